"""The pods a workload of Kubernetes' own kinds runs, as written: a Pod itself, and a
controller's pod template times its replicas (a Job's parallelism). Each is (pods, pod spec)."""

from __future__ import annotations

from typing import Callable

from mpigen.kube.values import get, mapping, whole_number


def pod(obj: dict) -> list[tuple[int, dict]]:
    return [(1, mapping(obj.get("spec")))]


def replicated(field: str) -> Callable[[dict], list[tuple[int, dict]]]:
    """The pods of a controller that runs spec.<field> (default 1) copies of its pod template."""
    def pods(obj: dict) -> list[tuple[int, dict]]:
        spec = mapping(obj.get("spec"))
        return [(whole_number(spec.get(field), default=1), mapping(get(spec, "template", "spec")))]
    return pods
