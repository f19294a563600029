"""What the API server refuses of a pod template, judged on each role's compiled template (its
metadata and pod spec, after podTemplatePatch and overlays), at the blueprint line that set it.

Every pod template mpigen writes (a Job's, a StatefulSet's, and those a JobSet, an MPIJob or a
Trainer runtime hands to a Job) is validated by Kubernetes' ValidatePodTemplateSpec
(pkg/apis/core/validation/validation.go, v1.30 as today's), which adds to the pod's rules:
- `if len(spec.Spec.EphemeralContainers) > 0`: "ephemeral containers not allowed in pod
  template" (they are added to a running pod, by `kubectl debug`);
- validateSeccompAnnotationsAndFields: where the pod's securityContext.seccompProfile and the
  annotation seccomp.security.alpha.kubernetes.io/pod are both set, and where a container's
  securityContext.seccompProfile and container.seccomp.security.alpha.kubernetes.io/<name> are,
  they must match (validateSeccompAnnotationsAndFieldsMatch: Unconfined is `unconfined`,
  RuntimeDefault `runtime/default` or `docker/default`, Localhost `localhost/<its
  localhostProfile>`): "seccomp type in annotation and field must match", "seccomp profile in
  annotation and field must match"."""

from __future__ import annotations

from mpigen.check.effective import PODS_OF_ROLE, ROLE_PATHS, written_at
from mpigen.compile.blueprint import main_container_name
from mpigen.compile.mpijob import LAUNCHER, MPIJob
from mpigen.errors import Diagnostic, error
from mpigen.formats.blueprint import Blueprint
from mpigen.load.document import Document, Loc, field_path

SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"  # v1.SeccompPodAnnotationKey
SECCOMP_CONTAINER = "container.seccomp.security.alpha.kubernetes.io/"  # v1.SeccompContainerAnnotationKeyPrefix
LOCALHOST = "localhost/"  # v1.SeccompLocalhostProfileNamePrefix
_MATCHING = {"Unconfined": ("unconfined",), "RuntimeDefault": ("runtime/default", "docker/default")}
_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")


def template_checks(doc: Document, job: MPIJob) -> list[Diagnostic]:
    """Each problem at its line, once however many roles' templates share that line."""
    found: dict[tuple[Loc, str, bool], list[str]] = {}
    for role, name in ROLE_PATHS.items():
        template = job.spec.mpiReplicaSpecs[role].template
        for loc, message, at_key in (*_ephemeral(template, name), *_seccomp(doc, template, name)):
            found.setdefault((loc, message, at_key), []).append(PODS_OF_ROLE[name])
    return [error(doc.key_mark(loc) if at_key else doc.value_mark(loc),
                  f"{field_path(loc)}: " + message.format(pods=" and ".join(pods)))
            for (loc, message, at_key), pods in found.items()]


def _ephemeral(template: dict, role: str) -> list[tuple[Loc, str, bool]]:
    if not template.get("spec", {}).get("ephemeralContainers"):
        return []
    return [(("spec", "podTemplatePatch", role, "pod", "ephemeralContainers"),
             "the API server refuses ephemeral containers in a pod template (\"ephemeral containers not allowed in "
             "pod template\"), so {pods} would never be created: they are added to a running pod, with kubectl "
             "debug; remove them", True)]


def _seccomp(doc: Document, template: dict, role: str) -> list[tuple[Loc, str, bool]]:
    """The seccomp annotations of the template that contradict the field they stand beside."""
    annotations = template.get("metadata", {}).get("annotations", {})
    spec = template.get("spec", {})
    patch: Loc = ("spec", "podTemplatePatch", role)
    out = []
    pod_profile = spec.get("securityContext", {}).get("seccompProfile")
    if pod_profile is not None and SECCOMP_POD in annotations:
        field = written_at(doc, patch + ("pod", "securityContext", "seccompProfile"),
                           ("spec", "security", "seccompProfile"))
        out += _contradiction(_annotation(doc, role, SECCOMP_POD), annotations[SECCOMP_POD], pod_profile,
                              field_path(field))
    for key in _CONTAINER_LISTS:
        for container in spec.get(key, []):
            profile = container.get("securityContext", {}).get("seccompProfile")
            annotation = SECCOMP_CONTAINER + str(container.get("name"))
            if profile is not None and annotation in annotations:
                what = f"the {container.get('name')} container's securityContext.seccompProfile"
                out += _contradiction(_annotation(doc, role, annotation), annotations[annotation], profile, what)
    return out


def _contradiction(loc: Loc, value: str, profile: dict, field: str) -> list[tuple[Loc, str, bool]]:
    """validateSeccompAnnotationsAndFieldsMatch, at the annotation's line (loc)."""
    kind, local = profile.get("type"), profile.get("localhostProfile")
    if kind in _MATCHING:
        if value in _MATCHING[kind]:
            return []
        refusal = "seccomp type in annotation and field must match"
    elif kind == "Localhost":
        if not value.startswith(LOCALHOST):
            refusal = "seccomp type in annotation and field must match"
        elif local is None or value[len(LOCALHOST):] != local:
            refusal = "seccomp profile in annotation and field must match"
        else:
            return []
    else:
        return []
    stated = f"{kind} {local}" if kind == "Localhost" else kind
    return [(loc, f"{value!r} contradicts {field} ({stated}) on the pod template of {{pods}}; the API server refuses a pod template whose "
                  f"seccomp annotation and field differ (\"{refusal}\"); remove the annotation, which the field "
                  "replaces, or make the two say the same", False)]


def _annotation(doc: Document, role: str, key: str) -> Loc:
    """Where the template's annotation is written: the role's patch, else metadata.annotations."""
    return written_at(doc, ("spec", "podTemplatePatch", role, "metadata", "annotations", key),
                      ("metadata", "annotations", key))


def launcher_name_taken(doc: Document, blueprint: Blueprint, name: str, has: str) -> list[Diagnostic]:
    """The launcher's MPI container named as a container the target or its controller puts
    beside it in the launcher's pod (`has` says so, in words that name it): the API server refuses a pod
    template with two containers of one name, init containers included (Kubernetes v1.30
    pkg/apis/core/validation/validation.go validateInitContainers: "Names must be unique within
    regular and init containers", field.Duplicate), so the launcher's pods are never created."""
    if main_container_name(blueprint.spec, LAUNCHER) != name:
        return []
    loc = written_at(doc, ("spec", "podTemplatePatch", "launcher", "containerName"), ("spec", "mainContainer"))
    return [error(doc.value_mark(loc), f"{field_path(loc)}: {has}, and the API server refuses two containers of "
                                       "one name in a pod; choose another name")]
