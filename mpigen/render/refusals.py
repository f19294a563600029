"""What the cluster refuses of rendered objects, checked at render time: their size (over a
limit of its kind's own, the API server's on annotations, or etcd's on one request), and the
Pod Security level an environment's namespaces enforce and the AppArmor annotations the API
server checks (annotation_problems), checked on every
pod template of the rendered objects (the kinds' `pod_templates` fact, mpigen.render.kinds),
the targets' own additions included: each refused field an error at the blueprint field that
set it (mpigen.check.pod_fields), or at the blueprint's path where none did, naming the
targets whose own pods meet the level."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any, Callable, Iterator, NamedTuple

from mpigen.check.pod_fields import causes
from mpigen.compile.mpijob import MPIJob
from mpigen.compile.root_sshd import root_capabilities
from mpigen.errors import Diagnostic, Mark, error
from mpigen.formats.blueprint import Blueprint
from mpigen.kube.pod_security import PRIVILEGED, Violation, violations
from mpigen.kube.sizes import MAX_ANNOTATIONS, MAX_ETCD_REQUEST, compact_json, largest_annotations, stored_size
from mpigen.load.document import Document, Loc, field_path
from mpigen.render.kinds import Kind, group_of
from mpigen.render.target import Lifecycle, Options
from mpigen.render.targets import CUSTOM_RESOURCES, TARGETS, finder, kind_facts, render_job, target_checks

DOCS = "docs/targets.md, Pod Security"
# What the blueprint states to meet a control it leaves to the cluster's defaults.
UNSET_FIX = {
    "runAsNonRoot": "set spec.security.runAsNonRoot: true and a non-root spec.security.runAsUser",
    "seccompProfile_restricted": "set spec.security.seccompProfile: {type: RuntimeDefault}",
}


def _walk(node: Any, steps: list[str], path: str) -> Iterator[tuple[str, Any]]:
    """(path, value) of each node a jq path without filters (".a.b[].c") leads to."""
    if not steps:
        yield path, node
        return
    step, rest = steps[0], steps[1:]
    key, each = (step[:-2], True) if step.endswith("[]") else (step, False)
    if not isinstance(node, dict) or key not in node:
        return
    here, value = f"{path}.{key}".lstrip("."), node[key]
    if not each:
        yield from _walk(value, rest, here)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _walk(item, rest, f"{here}[{i}]")
    elif isinstance(value, dict):
        for name, item in value.items():
            yield from _walk(item, rest, f"{here}.{name}")


def pod_templates(obj: dict) -> list[tuple[str, dict]]:
    """(path, template) of every pod template of an object, where its kind says they are, with
    what its controller adds to the pods."""
    facts = kind_facts(obj.get("apiVersion", ""), obj.get("kind", ""))
    found = []
    for jq in facts.pod_templates if facts is not None else ():
        steps = [s for s in jq.split(".") if s]
        found += [(path, t) for path, t in _walk(obj, steps, "") if isinstance(t, dict)]
    if facts is None or facts.pod_additions is None:
        return found
    return [(path, _with(t, facts.pod_additions(obj, path))) for path, t in found]


def _with(template: dict, added: list[dict]) -> dict:
    """The template as its pods run: with the init containers the controller appends."""
    if not added:
        return template
    spec = template.get("spec") if isinstance(template.get("spec"), dict) else {}
    inits = spec.get("initContainers") if isinstance(spec.get("initContainers"), list) else []
    return {**template, "spec": {**spec, "initContainers": [*inits, *added]}}


def refused(objects: list[dict], options: Options) -> list[tuple[dict, str, dict, Violation]]:
    """(object, template path, template, violation) of every pod field the level refuses."""
    if options.pod_security in (None, PRIVILEGED):
        return []
    return [(obj, where, template, v) for obj in objects for where, template in pod_templates(obj)
            for v in violations(template, options.pod_security, options.kube_version)]


def _traced(doc: Document, template: dict, v: Violation) -> tuple[list[Loc], set[str]]:
    """The blueprint fields that set a refused field, and the refused values none of them
    writes (of a list, the entries the target adds; else all or nothing)."""
    bad = {part.strip() for part in v.value.split(",")}
    found = causes(doc, template, v.path, bad)
    written = [doc.get(loc) for loc in found]
    if found and not all(isinstance(w, list) for w in written):
        return found, set()
    return found, bad - {str(value) for w in written for value in w}


def _own_problems(objects: list[dict], options: Options, doc: Document) -> list[Violation]:
    """The refused fields (or list entries) no blueprint field set: the target's own, or the
    cluster's defaults."""
    return [v for obj, where, template, v in refused(objects, options) if _traced(doc, template, v)[1]]


def meeting_targets(job: MPIJob, doc: Document, blueprint: Blueprint, options: Options,
                    lifecycle: Lifecycle) -> list[str]:
    """The targets that take the blueprint and whose own additions meet the level."""
    out = []
    for name in TARGETS:
        here = replace(options, target=name, own=None)
        if any(d.severity == "error" for d in target_checks(doc, blueprint, job, here)):
            continue
        own = _own_problems(render_job(job, here, lifecycle), here, doc)
        if all(v.control in UNSET_FIX and v.value == "unset" for v in own):
            out.append(name)
    return out


def _where(obj: dict, where: str) -> str:
    return f"the pods of {obj['kind']} {obj['metadata']['name']} ({where})"


def _own_hint(v: Violation, rest: set[str]) -> str:
    """Why a target writes what it does, where mpigen knows."""
    if v.control.startswith("capabilities") and rest <= set(root_capabilities(1)):
        return "; they are what a root sshd needs (docs/ssh.md): a non-root spec.security.runAsUser needs none"
    return ""


class _Report:
    """The diagnostics of one job's render, one per blueprint field (or target field) and control."""

    def __init__(self, options: Options, doc: Document, meeting: Callable[[], list[str]]):
        self.options, self.doc, self.meeting = options, doc, meeting
        self.out: dict[tuple[Mark, str], Diagnostic] = {}

    def head(self, obj: dict, where: str, v: Violation, value: str) -> str:
        return (f"the namespace's Pod Security level {self.options.pod_security} (Kubernetes "
                f"{self.options.kube_version}, control {v.control}) refuses {v.path} = {value} in "
                f"{_where(obj, where)} (allowed: {v.allowed})")

    def add(self, mark: Mark, key: str, message: str) -> None:
        self.out.setdefault((mark, key), error(mark, message))

    def violation(self, obj: dict, where: str, template: dict, v: Violation) -> None:
        found, rest = _traced(self.doc, template, v)
        for loc in found:
            mark = self.doc.value_mark(loc)
            self.add(mark, field_path(loc), f"{field_path(loc)}: {self.head(obj, where, v, v.value)}")
        if not rest:
            return
        mark, head = Mark(self.doc.path), self.head(obj, where, v, ", ".join(sorted(rest)) if found else v.value)
        if v.value == "unset" and v.control in UNSET_FIX:
            self.add(mark, v.control, f"{head}: {UNSET_FIX[v.control]}")
            return
        level, target = self.options.pod_security, self.options.target
        others = [t if t != target else f"{t} with its default options" for t in self.meeting()]
        hint = (f"the targets whose own pods meet it with this blueprint: {', '.join(others)}" if others
                else "no target's own pods meet it with this blueprint")
        self.add(mark, f"{v.control}:{v.path}", f"{head}; target {target} (or the controller it renders for) "
                                                f"writes this itself and cannot meet {level}{_own_hint(v, rest)}; "
                                                f"{hint} ({DOCS})")


def pod_security_problems(objects: list[dict], options: Options, doc: Document, blueprint: Blueprint,
                          job: MPIJob, lifecycle: Lifecycle) -> list[Diagnostic]:
    """Every pod field of the rendered objects the environment's Pod Security level refuses, an
    error at the blueprint field that set it, else at the blueprint's path."""
    report = _Report(options, doc, cache(lambda: meeting_targets(job, doc, blueprint, options, lifecycle)))
    for obj, where, template, v in refused(objects, options):
        report.violation(obj, where, template, v)
    return list(report.out.values())


# v1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix, and the profiles ValidateProfileFormat takes
APPARMOR_CONTAINER = "container.apparmor.security.beta.kubernetes.io/"
APPARMOR_PROFILES = ("", "runtime/default", "unconfined")
APPARMOR_LOCALHOST = "localhost/"


def annotation_problems(objects: list[dict], doc: Document) -> list[Diagnostic]:
    """The AppArmor annotations of the rendered pod templates (their controllers' init containers
    included) that the API server refuses (Kubernetes v1.30 pkg/apis/core/validation/validation.go
    ValidatePodTemplateSpec -> ValidatePodSpecificAnnotations -> ValidateAppArmorPodAnnotations):
    one naming a container the template lacks ("container not found": metadata.annotations go on
    every pod template, the launcher's, the workers' and a target's own), or a value no profile
    (ValidateProfileFormat: "", runtime/default, unconfined or localhost/<profile>, else "invalid
    AppArmor profile name"); each an error at the blueprint line that wrote the annotation."""
    out: dict[tuple[Loc, bool], Diagnostic] = {}
    for obj in objects:
        for where, template in pod_templates(obj):
            meta, spec = template.get("metadata") or {}, template.get("spec") or {}
            names = {c.get("name") for key in ("containers", "initContainers", "ephemeralContainers")
                     for c in spec.get(key) or [] if isinstance(c, dict)}
            for key, value in (meta.get("annotations") or {}).items():
                if not key.startswith(APPARMOR_CONTAINER):
                    continue
                container = key[len(APPARMOR_CONTAINER):]
                for loc in _written_annotation(doc, key, value):
                    if container not in names and (loc, True) not in out:
                        out[(loc, True)] = error(doc.key_mark(loc), (
                            f"{field_path(loc)}: {_where(obj, where)} have no container {container!r} (they have "
                            f"{', '.join(sorted(map(str, names)))}), and the API server refuses a pod template whose "
                            "AppArmor annotation names none of its containers (\"container not found\"); "
                            "metadata.annotations go on every pod template: write it under "
                            "spec.podTemplatePatch.<role>.metadata.annotations of the role that has the container, or "
                            "set that container's securityContext.appArmorProfile instead"))
                    valid = value in APPARMOR_PROFILES or str(value).startswith(APPARMOR_LOCALHOST)
                    if not valid and (loc, False) not in out:
                        out[(loc, False)] = error(doc.value_mark(loc), (
                            f"{field_path(loc)}: {value!r} is no AppArmor profile, and the API server refuses the pod "
                            "template (\"invalid AppArmor profile name\"); write runtime/default, unconfined or "
                            "localhost/<profile>"))
    return list(out.values())


_ANNOTATIONS = (("metadata", "annotations"),
                *(("spec", "podTemplatePatch", role, "metadata", "annotations") for role in ("launcher", "worker")))


def writes_apparmor(doc: Document) -> bool:
    """Whether the blueprint writes an AppArmor annotation (only then does annotation_problems
    need its document at render time)."""
    return any(isinstance(found := doc.get(loc), dict) and any(str(k).startswith(APPARMOR_CONTAINER) for k in found)
               for loc in _ANNOTATIONS)


def _written_annotation(doc: Document, key: str, value: object) -> list[Loc]:
    """Where the blueprint writes an annotation with this value: metadata.annotations, else a
    role's podTemplatePatch metadata."""
    spots = [loc + (key,) for loc in _ANNOTATIONS]
    found = [loc for loc in spots if doc.get(loc) == value]
    return found[:1]


class TooLarge(NamedTuple):
    """An object the cluster would refuse for its size: the blueprint field that makes it so
    ("" where no one field does: the caller names the largest), why, and the limit it is over."""

    field: str
    problem: str
    limit: str = "kind"  # "kind" (its kind's own), "annotations" or "etcd"


def oversized(objects: list[dict], json_at_most: list[int] | None = None) -> list[TooLarge]:
    """Why the cluster would refuse each object of a render, or one its controller creates from
    one (the table of kinds' `creates` fact), for its size: over a limit of its kind's own (its
    `size_limit` fact), or over what etcd stores in one request (mpigen.kube.sizes). One pass over
    what each counts. `json_at_most`: for each object, a number of bytes its compact JSON
    (mpigen.kube.sizes.compact_json) does not exceed, where the caller knows one: an object
    whose JSON fits under both limits that read it is not encoded at all."""
    find = finder(objects)
    problems = []
    for i, obj in enumerate(objects):
        facts = kind_facts(obj["apiVersion"], obj["kind"])
        problems += _too_large(obj, facts, "", "", json_at_most[i] if json_at_most is not None else None)
        if facts is not None and facts.creates is not None:
            creator = f"the {obj['kind']} {obj['metadata']['name']}"
            for made in facts.creates(obj, find):
                problems += _too_large(made, kind_facts(made["apiVersion"], made["kind"]),
                                       f" that the controller of {creator} creates",
                                       f"; the controller fails to create it, and {creator} never starts")
    return problems


def _too_large(obj: dict, facts: Kind | None, made_by: str, consequence: str,
               json_at_most: int | None = None) -> list[TooLarge]:
    """Why the cluster would refuse `obj` (of the kind `facts` tells of) for its size: none, or one."""
    limit = facts.size_limit if facts is not None else None
    if limit is not None and (size := limit.size(obj)) > limit.limit:
        named = _named(obj, made_by)
        return [TooLarge(limit.field, f"{named} would hold {size:,} bytes, over the API server's limit of "
                                      f"{limit.limit:,} bytes for its kind, and the cluster would refuse it"
                                      f"{consequence}; {limit.advice}")]
    if json_at_most is not None and json_at_most <= min(MAX_ANNOTATIONS, MAX_ETCD_REQUEST):
        return []  # its JSON fits under both limits below, and so do its annotations and strings
    # One pass in C that most objects fit in: their JSON holds every annotation whole, and is
    # never less than their strings.
    json_size = len(compact_json(obj).encode("utf-8"))
    if json_size > MAX_ANNOTATIONS and (size := largest_annotations(obj)) > MAX_ANNOTATIONS:
        named = _named(obj, made_by)
        return [TooLarge("", f"{named} would carry {size:,} bytes of annotations (keys and values, on the object "
                             f"or a pod template), over the API server's limit of {MAX_ANNOTATIONS:,} bytes, and the "
                             f"cluster would refuse it{consequence}", "annotations")]
    custom = (group_of(obj["apiVersion"]), obj["kind"]) in CUSTOM_RESOURCES
    size = json_size
    if size > MAX_ETCD_REQUEST and not custom:
        size = stored_size(obj, as_json=False)
    if size > MAX_ETCD_REQUEST:
        counted = "its JSON, as a custom resource is stored" if custom else "its strings alone"
        named = _named(obj, made_by)
        return [TooLarge("", f"{named} would take at least {size:,} bytes to store ({counted}), over etcd's "
                             f"request limit of {MAX_ETCD_REQUEST:,} bytes (its --max-request-bytes default), and "
                             f"the API server would fail to create it (\"etcdserver: request is too large\")"
                             f"{consequence}", "etcd")]
    return []


def _named(obj: dict, made_by: str) -> str:
    return f"the {obj['kind']} {obj['metadata']['name']}{made_by}"
