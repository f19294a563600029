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
  annotation and field must match"; and ValidatePodSpecificAnnotations ->
  ValidateSeccompPodAnnotations -> ValidateSeccompProfile: each of those annotations holds
  runtime/default, docker/default, unconfined or localhost/<a relative path without `..`>
  (validateLocalDescendingPath), else "must be a valid seccomp profile";
- the containers' rules a blueprint can break (mpigen.check.template_containers).

An owner adds rules of its own on its template: a StatefulSet's (the static target's workers)
may not set activeDeadlineSeconds (pkg/apis/apps/validation/validation.go ValidateStatefulSetSpec:
"activeDeadlineSeconds in StatefulSet is not Supported"; its restartPolicy Always, and a Job's
OnFailure or Never, are the target's, never a blueprint's: podTemplatePatch refuses
restartPolicy)."""

from __future__ import annotations

from mpigen.check.effective import PODS_OF_ROLE, ROLE_PATHS, written_at
from mpigen.check.template_containers import container_problems, patched_init_containers, shown
from mpigen.compile.blueprint import main_container_name
from mpigen.compile.mpijob import LAUNCHER, WORKER, MPIJob
from mpigen.errors import Diagnostic, error
from mpigen.formats.blueprint import Blueprint
from mpigen.load.document import Document, Loc, field_path

SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"  # v1.SeccompPodAnnotationKey
SECCOMP_CONTAINER = "container.seccomp.security.alpha.kubernetes.io/"  # v1.SeccompContainerAnnotationKeyPrefix
LOCALHOST = "localhost/"  # v1.SeccompLocalhostProfileNamePrefix
_MATCHING = {"Unconfined": ("unconfined",), "RuntimeDefault": ("runtime/default", "docker/default")}
_PROFILES = frozenset(value for values in _MATCHING.values() for value in values)
_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")


def template_checks(doc: Document, job: MPIJob, main_container: str | None = None) -> list[Diagnostic]:
    """Each problem at its line, once however many roles' templates share that line;
    `main_container`: the name the target gives the MPI container, where it renames it."""
    found: dict[tuple[Loc, str, bool], list[str]] = {}
    for role, name in ROLE_PATHS.items():
        template = job.spec.mpiReplicaSpecs[role].template
        for loc, message, at_key in (*_ephemeral(template, name), *_seccomp(doc, template, name),
                                     *_seccomp_values(doc, template, name), *container_problems(doc, template, name, main_container)):
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
        for container in spec.get(key) or []:
            if not isinstance(container, dict):
                continue  # refused as it is (mpigen.validate.container_names), or as ephemeral
            profile = container.get("securityContext", {}).get("seccompProfile")
            annotation = SECCOMP_CONTAINER + str(container.get("name"))
            if profile is not None and annotation in annotations:
                what = f"the {container.get('name')} container's securityContext.seccompProfile"
                out += _contradiction(_annotation(doc, role, annotation), annotations[annotation], profile, what)
    return out


def _contradiction(loc: Loc, value: str, profile: dict, field: str) -> list[tuple[Loc, str, bool]]:
    """validateSeccompAnnotationsAndFieldsMatch, at the annotation's line (loc); an annotation
    no profile at all is _seccomp_values' to report."""
    kind, local = profile.get("type"), profile.get("localhostProfile")
    if not valid_seccomp_annotation(value):
        return []
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
    return [(loc, f"{shown(value)} contradicts {field} ({stated}) on the pod template of {{pods}}; the API server refuses a pod template whose "
                  f"seccomp annotation and field differ (\"{refusal}\"); remove the annotation, which the field "
                  "replaces, or make the two say the same", False)]


def valid_seccomp_annotation(value: object) -> bool:
    """ValidateSeccompProfile: runtime/default, docker/default, unconfined, or localhost/ and a
    path validateLocalDescendingPath takes (not absolute, no `..` element)."""
    if not isinstance(value, str):
        return False
    if value in _PROFILES:
        return True
    if not value.startswith(LOCALHOST):
        return False
    local = value[len(LOCALHOST):]
    return not local.startswith("/") and ".." not in local.split("/")


def _seccomp_values(doc: Document, template: dict, role: str) -> list[tuple[Loc, str, bool]]:
    """The template's seccomp annotations that name no profile, at the line that wrote each."""
    annotations = template.get("metadata", {}).get("annotations", {})
    return [(_annotation(doc, role, key), f"{shown(value)} is no seccomp profile, and the API server refuses the pod "
                                          "template of {pods} (\"must be a valid seccomp profile\"); write "
                                          "runtime/default, unconfined or localhost/<a relative path without ..>, or "
                                          "better, remove the annotation and set spec.security.seccompProfile, which "
                                          "replaces it", False)
            for key, value in annotations.items()
            if (key == SECCOMP_POD or key.startswith(SECCOMP_CONTAINER)) and not valid_seccomp_annotation(value)]


def _annotation(doc: Document, role: str, key: str) -> Loc:
    """Where the template's annotation is written: the role's patch, else metadata.annotations."""
    return written_at(doc, ("spec", "podTemplatePatch", role, "metadata", "annotations", key),
                      ("metadata", "annotations", key))


def launcher_name_taken(doc: Document, blueprint: Blueprint, name: str, has: str) -> list[Diagnostic]:
    """name_taken on the launcher's pod."""
    return name_taken(doc, blueprint, "launcher", name, has)


def name_taken(doc: Document, blueprint: Blueprint, role: str, name: str, has: str,
               main: bool = True) -> list[Diagnostic]:
    """A container of the role's pod (its MPI container, an init container of its
    podTemplatePatch) named as a container the target or its controller puts beside them
    (`has` says so, in words that name it): the API server refuses a pod template with two
    containers of one name, init containers included (Kubernetes v1.30
    pkg/apis/core/validation/validation.go validateInitContainers: "Names must be unique within
    regular and init containers", field.Duplicate), so the role's pods are never created. Not
    `main`: the target names the MPI container itself."""
    patch = ("spec", "podTemplatePatch", role)
    found = [patch + ("pod", "initContainers", i, "name") for i, c in patched_init_containers(doc, role)
             if c.get("name") == name]
    if main and main_container_name(blueprint.spec, LAUNCHER if role == "launcher" else WORKER) == name:
        found.insert(0, written_at(doc, patch + ("containerName",), ("spec", "mainContainer")))
    return [error(doc.value_mark(loc), f"{field_path(loc)}: {has}, and the API server refuses two containers of "
                                       "one name in a pod; choose another name") for loc in found]


def statefulset_template(doc: Document, role: str) -> list[Diagnostic]:
    """A StatefulSet's pod template with activeDeadlineSeconds, which the API server refuses
    (kubernetes v1.30 pkg/apis/apps/validation/validation.go ValidateStatefulSetSpec:
    "activeDeadlineSeconds in StatefulSet is not Supported"): the StatefulSet is never created.
    The blueprint's runPolicy.activeDeadlineSeconds is the launcher Job's, never written there."""
    loc = ("spec", "podTemplatePatch", role, "pod", "activeDeadlineSeconds")
    if doc.get(loc) is None:
        return []
    return [error(doc.key_mark(loc), f"{field_path(loc)}: with --target static the {role}s are a StatefulSet, whose "
                                     "pod template the API server refuses with activeDeadlineSeconds (\"activeDeadlineSeconds "
                                     "in StatefulSet is not Supported\"); remove it, and bound the job's time with "
                                     "spec.runPolicy.activeDeadlineSeconds, which the launcher's Job takes")]
