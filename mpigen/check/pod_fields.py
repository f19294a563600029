"""Which blueprint fields may have set a field of a rendered pod template: the podTemplatePatch
path of either role, then the blueprint's own field for it; none for a field that only a
target's own additions, or the cluster's defaults, decide."""

from __future__ import annotations

import re
from typing import Any, Callable

from mpigen.kube.values import ABSENT
from mpigen.load.document import Document, Loc, value_at

ROLES = ("launcher", "worker")
CONTAINERS = ("initContainers", "containers", "ephemeralContainers")
_PART = re.compile(r"([^.\[\]]+)|\[([^\]]*)\]")


def parse_path(path: str) -> Loc:
    """"spec.containers[0].securityContext" -> ("spec", "containers", 0, "securityContext");
    a bracketed key that is no index stays a key (metadata.annotations[a/b])."""
    return tuple(key if key else (int(index) if index.isdigit() else index)
                 for key, index in _PART.findall(path))


def _holds(written: Any, rendered: Any, bad: set[str]) -> bool:
    """Whether a value the blueprint writes is (or, for a list merged with the target's, holds)
    the refused value."""
    if isinstance(written, list):
        return written == rendered or bool(bad & {str(v) for v in written})
    return written == rendered


Cause = Callable[[Document, dict, Loc, Any, set], list[Loc]]  # (doc, template, pod field, its value, refused)


def _written(doc: Document, loc: Loc, holds: Callable[[Any], bool]) -> list[Loc]:
    written = doc.get(loc, ABSENT)
    return [loc] if written is not ABSENT and written is not None and holds(written) else []


def _same(*loc: str) -> Cause:
    """The blueprint field `loc`, which the pod field takes as it is."""
    return lambda doc, template, pod_loc, rendered, bad: _written(doc, loc, lambda w: _holds(w, rendered, bad))


def _privileged(doc: Document, template: dict, pod_loc: Loc, rendered: Any, bad: set) -> list[Loc]:
    """spec.security.privileged: true, beside which mpigen writes no allowPrivilegeEscalation
    and drops no capability (Kubernetes refuses the one beside privileged)."""
    return _written(doc, ("spec", "security", "privileged"), lambda w: w is True)


def _added(doc: Document, template: dict, pod_loc: Loc, rendered: Any, bad: set) -> list[Loc]:
    """The capabilities the blueprint adds: spec.security.capabilities, and IPC_LOCK of spec.network.rdma."""
    out = _written(doc, ("spec", "security", "capabilities"), lambda w: _holds(w, rendered, bad))
    if "IPC_LOCK" in bad:
        out += _written(doc, ("spec", "network", "rdma"), lambda w: isinstance(w, dict) and w.get("ipcLock") is not False)
    return out


def _dataset(source: str) -> Cause:
    """The dataset whose volume is refused: spec.datasets[j].<source>, j by the volume's name."""
    def find(doc: Document, template: dict, pod_loc: Loc, rendered: Any, bad: set) -> list[Loc]:
        name = value_at(template, ("spec", "volumes", pod_loc[1], "name"))
        datasets = doc.get(("spec", "datasets"), [])
        return [("spec", "datasets", j, source) for j, d in enumerate(datasets if isinstance(datasets, list) else [])
                if isinstance(d, dict) and d.get("name") == name and source in d]
    return find


# A pod field (its path under spec; "*" for a container's index, a volume's index dropped) ->
# the blueprint fields that write it.
BLUEPRINT_FIELDS: dict[tuple, Cause] = {
    ("hostNetwork",): _same("spec", "network", "hostNetwork"),
    ("securityContext", "runAsUser"): _same("spec", "security", "runAsUser"),
    ("securityContext", "runAsNonRoot"): _same("spec", "security", "runAsNonRoot"),
    ("*", "securityContext", "privileged"): _privileged,
    ("*", "securityContext", "allowPrivilegeEscalation"): _privileged,
    ("*", "securityContext", "capabilities", "drop"): _privileged,
    ("*", "securityContext", "capabilities", "add"): _added,
    ("volumes", "hostPath"): _dataset("hostPath"),
    ("volumes", "nfs"): _dataset("nfs"),
}


def _shape(pod_loc: Loc) -> tuple:
    """The key of BLUEPRINT_FIELDS a field under spec matches."""
    if len(pod_loc) > 2 and pod_loc[0] in CONTAINERS:
        return ("*", *pod_loc[2:])
    if len(pod_loc) > 2 and pod_loc[0] == "volumes":
        return ("volumes", *pod_loc[2:])
    return pod_loc


def causes(doc: Document, template: dict, path: str, bad: set[str]) -> list[Loc]:
    """The blueprint fields (as written in `doc`, overlays applied) that set the field `path` of
    a rendered pod template to what it holds, or left it unset (for a list, to hold a refused
    entry of `bad`); [] when none does."""
    loc = parse_path(path)
    rendered = value_at(template, loc, ABSENT)
    if loc[:2] == ("metadata", "annotations"):
        return _written(doc, loc, lambda w: w == rendered)
    pod_loc = loc[1:]
    candidates = [("spec", "podTemplatePatch", role, "pod", *pod_loc) for role in ROLES]
    if pod_loc[0] == "containers":
        candidates += [("spec", "podTemplatePatch", role, "container", *pod_loc[2:]) for role in ROLES]
    out = [c for c in candidates if rendered is not ABSENT and _holds(doc.get(c, ABSENT), rendered, bad)]
    cause = BLUEPRINT_FIELDS.get(_shape(pod_loc))
    return out + (cause(doc, template, pod_loc, rendered, bad) if cause is not None else [])
