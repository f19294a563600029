"""The containers of a pod template as the API server validates them, judged on each role's
compiled template (after podTemplatePatch and overlays) at the blueprint line that wrote the
container: what ValidatePodTemplateSpec -> ValidatePodSpec refuses of them that a blueprint can
write (Kubernetes v1.30 pkg/apis/core/validation/validation.go):
- validateInitContainers: "Names must be unique within regular and init containers"
  (field.Duplicate on the init container's name): the MPI container (spec.mainContainer,
  podTemplatePatch.<role>.containerName), a dataset's download step (download-<dataset>) and
  the init containers of podTemplatePatch.<role>.pod.initContainers share one set of names;
- validateInitContainers -> validateContainerCommon -> validateInitContainerRestartPolicy: an
  init container's restartPolicy, where given, is Always (field.NotSupported), and one without
  restartPolicy: Always may not have lifecycle, livenessProbe, readinessProbe or startupProbe
  ("may not be set for init containers without restartPolicy=Always");
- validateContainers: a regular container's restartPolicy is refused ("may not be set for
  non-init containers"), so podTemplatePatch.<role>.container.restartPolicy is."""

from __future__ import annotations

from mpigen.check.effective import written_at
from mpigen.compile.blueprint import DOWNLOAD_PREFIX
from mpigen.load.document import Document, Loc

Found = tuple[Loc, str, bool]  # (where, message with {pods}, whether the mark is the key's)
ALWAYS = "Always"  # core.ContainerRestartPolicyAlways, the only restartPolicy of a container
_ONLY_SIDECARS = ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")


def shown(value: object) -> str:
    """A value of the user's quoted for a message that is formatted once more (with {pods})."""
    return repr(value).replace("{", "{{").replace("}", "}}")


def container_problems(doc: Document, template: dict, role: str, main_container: str | None = None) -> list[Found]:
    """What the API server refuses of the template's containers, each at its line
    (`main_container`: the name the target gives the MPI container, where it renames it)."""
    return _duplicate_names(doc, template, role, main_container) + _restart_policies(doc, template, role)


def patched_init_containers(doc: Document, role: str) -> list[tuple[int, dict]]:
    """The init containers the role's podTemplatePatch writes, with their indexes."""
    written = doc.get(("spec", "podTemplatePatch", role, "pod", "initContainers"))
    return [(i, c) for i, c in enumerate(written) if isinstance(c, dict)] if isinstance(written, list) else []


def _origins(doc: Document, template: dict, role: str,
             main_container: str | None) -> list[tuple[str, Loc | None, bool]]:
    """(name, where the blueprint writes it, whether it is an init container of the patch) of
    each container of the template: its MPI container first (by the target's name for it,
    where the target renames it), then its init containers."""
    spec = template.get("spec", {})
    patch: Loc = ("spec", "podTemplatePatch", role)
    named = written_at(doc, patch + ("containerName",), ("spec", "mainContainer"))
    out = [(str(c.get("name")), named if i == 0 and doc.get(named) is not None else None, False)
           for i, c in enumerate(spec.get("containers", []))]
    if main_container is not None and out:
        out[0] = (main_container, None, False)
    inits = spec.get("initContainers", [])
    if doc.get(patch + ("pod", "initContainers")) is not None:  # a merge patch replaces the whole list
        return out + [(str(c.get("name")), patch + ("pod", "initContainers", i, "name"), True)
                      for i, c in enumerate(inits)]
    datasets = doc.get(("spec", "datasets"), [])
    datasets = datasets if isinstance(datasets, list) else []
    for c in inits:
        name = str(c.get("name"))
        found = [j for j, d in enumerate(datasets) if isinstance(d, dict) and DOWNLOAD_PREFIX + str(d.get("name")) == name]
        out.append((name, ("spec", "datasets", found[0], "name") if found else None, False))
    return out


def _duplicate_names(doc: Document, template: dict, role: str, main_container: str | None) -> list[Found]:
    """The second container of a name, at the line to change: the patch's init container where
    one of the two is, else the line that names the other."""
    seen: dict[str, tuple[Loc | None, bool]] = {}
    out = []
    for name, origin, patched in _origins(doc, template, role, main_container):
        if name not in seen:
            seen[name] = (origin, patched)
            continue
        first, first_patched = seen[name]
        loc = origin if patched or first is None else first
        if loc is None:
            continue
        out.append((loc, f"{shown(name)} names two containers of the pod template of {{pods}}, and the API server refuses "
                         "it (\"Names must be unique within regular and init containers\"), so no pod is created; "
                         "give each container, init containers included, a name of its own", False))
    return out


def _restart_policies(doc: Document, template: dict, role: str) -> list[Found]:
    """restartPolicy on the MPI container, an init container's restartPolicy other than Always,
    and a plain init container's probes and lifecycle."""
    patch: Loc = ("spec", "podTemplatePatch", role)
    out = []
    if doc.get(patch + ("container", "restartPolicy")) is not None:
        out.append((patch + ("container", "restartPolicy"),
                    "the API server refuses restartPolicy on a regular container (\"may not be set for non-init "
                    "containers\"), so the pods of {pods} are never created; remove it (the pod's restart policy "
                    "is the target's, and restartPolicy: Always makes an init container a sidecar)", True))
    for i, container in patched_init_containers(doc, role):
        here = patch + ("pod", "initContainers", i)
        policy = container.get("restartPolicy")
        if policy is not None and policy != ALWAYS:
            out.append((here + ("restartPolicy",),
                        f"{shown(policy)}: an init container's restartPolicy can only be Always (a sidecar), and the API "
                        "server refuses any other (field.NotSupported), so the pods of {pods} are never created; "
                        "remove it, or write Always", False))
        elif policy is None:
            out += [(here + (key,), f"the API server refuses {key} on an init container without restartPolicy: Always "
                                    "(\"may not be set for init containers without restartPolicy=Always\"): an init "
                                    "container runs to completion before the others start; remove it, or give the "
                                    "container restartPolicy: Always to make it a sidecar", True)
                    for key in _ONLY_SIDECARS if container.get(key) is not None]
    return out
