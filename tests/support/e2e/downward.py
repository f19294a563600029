"""The downward API: a pod's own fields, for env valueFrom.fieldRef and downwardAPI volume
items. Only the fields the rendered objects use are modelled; any other is refused."""

from __future__ import annotations

import re

from tests.support.e2e.errors import Unsupported
from tests.support.e2e.pods import Pod

LABEL = re.compile(r"metadata\.labels\['([^']+)'\]")


def field_value(pod: Pod, path: str) -> str:
    if path == "metadata.name":
        return pod.name
    if path == "metadata.namespace":
        return pod.namespace
    if path == "spec.serviceAccountName":
        return pod.service_account
    if path == "status.podIP":
        return pod.ip
    label = LABEL.fullmatch(path)
    if label:
        return pod.labels.get(label.group(1), "")
    raise Unsupported(f"{pod.name}: downward API field {path} is not modelled")


def env_value(pod: Pod, item: dict) -> str:
    """The value of one env entry of a container: a literal or a fieldRef."""
    if "valueFrom" not in item:
        return item.get("value", "")
    source = item["valueFrom"]
    if set(source) != {"fieldRef"}:
        raise Unsupported(f"{pod.name}: env {item['name']} uses valueFrom {sorted(source)}, which is not modelled")
    return field_value(pod, source["fieldRef"]["fieldPath"])
