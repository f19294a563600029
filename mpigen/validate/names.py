"""The job's name against what Kubernetes allows the names derived from it: the last worker
pod's name (63 characters) and the worker StatefulSet's (kubernetes#64023).
"""

from __future__ import annotations

from mpigen.errors import Diagnostic, error, warning
from mpigen.validate.fields import NAME, WORKERS, Fields

# A StatefulSet's pods carry controller-revision-hash=<name>-<10 chars>, a label value
# (at most 63 characters), so longer StatefulSet names leave the pods uncreatable
# (kubernetes/kubernetes#64023).
MAX_STATEFULSET_NAME = 52


def name_too_long(name: str, workers: int, added: int = 0) -> tuple[str, int] | None:
    """("pod", room) when the last worker pod's name, <name><added characters>-worker-<N-1>,
    exceeds the 63 characters of a pod name; ("statefulset", room) when the StatefulSet's
    name exceeds MAX_STATEFULSET_NAME; room is the longest name that fits."""
    pod_suffix = added + len(f"-worker-{workers - 1}")
    if len(name) + pod_suffix > 63:
        return "pod", 63 - pod_suffix
    set_suffix = added + len("-worker")
    if len(name) + set_suffix > MAX_STATEFULSET_NAME:
        return "statefulset", MAX_STATEFULSET_NAME - set_suffix
    return None


def check_name_length(f: Fields, out: list[Diagnostic]) -> None:
    if not f.ok(NAME, WORKERS) or f.get(NAME) is None or f.get(WORKERS) is None:
        return
    name, workers = f.get(NAME), f.get(WORKERS)
    last_pod = f"{name}-worker-{workers - 1}"
    kind, room = name_too_long(name, workers) or (None, 0)
    if kind == "pod":
        out.append(error(f.doc.value_mark(NAME),
                         f"metadata.name: worker pod name {last_pod!r} is {len(last_pod)} characters, more than the "
                         f"63 a pod name allows; shorten the name to at most {room} characters"))
    elif kind == "statefulset":
        out.append(warning(f.doc.value_mark(NAME),
                           f"metadata.name: StatefulSet name {name + '-worker'!r} is longer than "
                           f"{MAX_STATEFULSET_NAME} characters; Kubernetes cannot create its pods because the "
                           "controller-revision-hash label would exceed 63 characters (kubernetes#64023); "
                           f"shorten the name to at most {room} characters"))
