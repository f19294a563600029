"""The job's name against what Kubernetes allows the names derived from it on every target:
the last worker pod's name, <name>-worker-<workers-1>, a pod's host name (63 characters)."""

from __future__ import annotations

from mpigen.errors import Diagnostic, error
from mpigen.validate.fields import NAME, WORKERS, Fields

MAX_POD_NAME = 63  # a pod's name is its host name: a DNS-1123 label


def check_name_length(f: Fields, out: list[Diagnostic]) -> None:
    if not f.ok(NAME, WORKERS) or f.get(NAME) is None or f.get(WORKERS) is None:
        return
    name, workers = f.get(NAME), f.get(WORKERS)
    last_pod = f"{name}-worker-{workers - 1}"
    if len(last_pod) > MAX_POD_NAME:
        room = MAX_POD_NAME - len(last_pod) + len(name)
        out.append(error(f.doc.value_mark(NAME),
                         f"metadata.name: worker pod name {last_pod!r} is {len(last_pod)} characters, more than the "
                         f"63 a pod name allows; shorten the name to at most {room} characters"))
