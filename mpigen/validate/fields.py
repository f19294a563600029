"""Validate: YAML documents -> Blueprint models, or diagnostics that point into the file.

Two passes: the pydantic model checks each field; the checks below look across fields
(name length against the worker count, reserved names, clashing mounts). Every problem
of a document is returned, so one run reports them all; mpigen.pipeline gathers them
across documents and environments (and finds jobs defined twice).

Under overlays, a blueprint is validated as each overlay patches it, and every value the
file states must also be valid as written (written_problems), so that an overlay cannot
hide a bad value by replacing it: the per-value rules (is_per_value, VALUE_CHECKS) run on
the file itself, and the rules of the whole blueprint (required keys, rules across the
keys of a mapping, sums and limits across fields) on what the overlays give.
"""

from __future__ import annotations

import difflib
import posixpath

from mpigen.formats.blueprint import Blueprint
from mpigen.errors import Diagnostic, Mark, error, warning
from mpigen.load.documents import Document, Loc, field_path
from mpigen.load.model import validate_model
from mpigen.compile.blueprint import SHM_MOUNT, SHM_VOLUME
from mpigen.compile.environment import CONFIG_MOUNT, LAUNCHER_ENV_NAMES, RANK_ENV_DIR
from mpigen.kube.names import path_problem
from mpigen.render.additions import RANK_ENV_VOLUME
from mpigen.render.names import (CONFIG_VOLUME, KUBECTL_MOUNT, KUBECTL_VOLUME,
                                 OPERATOR_LABEL_KEYS)
from mpigen.kube.labels import MANAGED_BY, MPIGEN_PREFIX

# What the backends write themselves, taken from them so that the checks cannot drift:
# the operator's and mpigen's label keys (above),
# the volumes and mount paths the operator adds to the pods,
# and mpigen's own (shared memory, the rank environment script),
RESERVED_VOLUMES = (CONFIG_VOLUME, KUBECTL_VOLUME, SHM_VOLUME, RANK_ENV_VOLUME)
RESERVED_MOUNTS = (CONFIG_MOUNT, KUBECTL_MOUNT, SHM_MOUNT, RANK_ENV_DIR)
# and the launcher variables (a user value would be overridden).
RESERVED_ENV = LAUNCHER_ENV_NAMES
# A StatefulSet's pods carry controller-revision-hash=<name>-<10 chars>, a label value
# (at most 63 characters), so longer StatefulSet names leave the pods uncreatable
# (kubernetes/kubernetes#64023).
MAX_STATEFULSET_NAME = 52


def attributed(diagnostic: Diagnostic, doc: Document) -> Diagnostic:
    """A problem found in a value an overlay wrote is reported at the overlay's line; it
    also names the blueprint it was applied to."""
    if diagnostic.mark.path == doc.path:
        return diagnostic
    return Diagnostic(diagnostic.mark, f"{diagnostic.message} (applied to {doc.path})", diagnostic.severity)


def is_per_value(err: dict) -> bool:
    """Whether a field error is about a value as written, which no overlay can mend: its
    type, range, length, format, allowed values, an unknown key; and anything inside a
    list, which a merge patch can only replace whole. Not per value: a required key
    missing from a mapping (an overlay may supply it), and a rule across the keys of a
    mapping (a model validator, whose input is that mapping), which an overlay may change
    key by key: both hold for the blueprint the overlays give."""
    if any(isinstance(part, int) for part in err["loc"]):
        return True
    if err["type"] == "missing":
        return False
    return not (err["type"] == "value_error" and isinstance(err.get("input"), dict))


def written_problems(doc: Document) -> list[Diagnostic]:
    """The problems of the values a file states, as written, whatever an overlay makes of
    them: every per-value field error (see is_per_value) and the checks of one value
    (VALUE_CHECKS). A blueprint whose every overlay replaces a bad value is still refused,
    at its own line; the rules across fields hold for the blueprint an overlay gives.
    Works on a part of a blueprint too (an overlay's patch): what it leaves out is not
    reported."""
    if not isinstance(doc.data, dict):
        return []
    _, diagnostics, bad = validate_model(doc, Blueprint, report=is_per_value)
    fields = _Fields(doc, bad | doc.reported)
    for check in VALUE_CHECKS:
        check(fields, diagnostics)
    return diagnostics


def validate_document(doc: Document) -> tuple[Blueprint | None, list[Diagnostic]]:
    """The blueprint, or None; and every diagnostic for the document: what loading found,
    field errors, and the cross-field checks whose fields are themselves valid."""
    if path_problem(doc.path):  # the path goes into the `# Source:` comment of every object
        return None, [error(Mark(doc.path), path_problem(doc.path))]
    if not isinstance(doc.data, dict):
        return None, doc.problems + [error(doc.start, "a blueprint must be a mapping with apiVersion, kind, "
                                                      "metadata and spec")]
    blueprint, diagnostics, bad = validate_model(doc, Blueprint)
    diagnostics = doc.problems + diagnostics
    diagnostics += cross_field_checks(doc, bad | doc.reported)
    if any(d.severity == "error" for d in diagnostics):
        blueprint = None
    return blueprint, diagnostics


# --- checks across fields ---------------------------------------------------------------

class _Fields:
    """Read access to a document's raw data for the cross-field checks, which run even when
    other fields are invalid: a check runs only when none of the fields it reads had an
    error (the pydantic model has then vouched for their types)."""

    def __init__(self, doc: Document, bad: set[Loc]):
        self.doc, self.bad = doc, bad
        # Every location at or above a bad one: a lookup costs the depth of a location,
        # not the number of errors (checks call ok() once per list item).
        self._above_bad = {tuple(b[:n]) for b in bad for n in range(len(b) + 1)}

    def ok(self, *locs: Loc) -> bool:
        """No error at, above or below any of these locations."""
        if not self.bad:
            return True
        for loc in locs:
            loc = tuple(loc)
            if loc in self._above_bad or any(loc[:n] in self.bad for n in range(len(loc))):
                return False
        return True

    def get(self, loc: Loc, default=None):
        node = self.doc.get(loc)
        return default if node is None else node


NAME, WORKERS = ("metadata", "name"), ("spec", "workers")


def cross_field_checks(doc: Document, bad: set[Loc]) -> list[Diagnostic]:
    from mpigen.validate.production import production_checks

    f = _Fields(doc, bad)
    out: list[Diagnostic] = []
    _check_name_length(f, out)
    _check_reserved_metadata(f, out)
    _check_command(f, out)
    _check_resources(f, out)
    _check_env(f, out)
    _check_datasets(f, out)
    _check_pod_patch(f, out)
    production_checks(f, out)
    return out


def _check_pod_patch(f: _Fields, out: list[Diagnostic]) -> None:
    """podTemplatePatch may only set Kubernetes fields the blueprint has no field for."""
    from mpigen.formats.blueprint import CONTAINER_FIELDS, CONTAINER_OWNED, POD_FIELDS, POD_OWNED

    for role in ("launcher", "worker"):
        for part, fields, owned in (("pod", POD_FIELDS, POD_OWNED), ("container", CONTAINER_FIELDS, CONTAINER_OWNED)):
            loc = ("spec", "podTemplatePatch", role, part)
            if not f.ok(loc):
                continue
            for key in f.get(loc, {}):
                where = f"spec.podTemplatePatch.{role}.{part}"
                if key not in fields:
                    hint = difflib.get_close_matches(key, fields, n=1)
                    also = f"; did you mean {hint[0]!r}?" if hint else ""
                    out.append(error(f.doc.key_mark(loc + (key,)),
                                     f"{where}: {key!r} is not a Kubernetes {'pod spec' if part == 'pod' else 'container'} "
                                     f"field{also}"))
                elif key in owned:
                    out.append(error(f.doc.key_mark(loc + (key,)), f"{where}: {key!r} cannot be patched: {owned[key]}"))
                elif role == "launcher" and part == "pod" and key in ("serviceAccountName", "serviceAccount"):
                    out.append(error(f.doc.key_mark(loc + (key,)),
                                     f"{where}: {key!r} cannot be patched: the launcher runs as <name>-launcher, "
                                     "the account the operator's Role is bound to"))
                else:
                    out += _fractions(f.doc, loc + (key,))


def _fractions(doc: Document, loc: Loc) -> list[Diagnostic]:
    """No pod or container field takes a number with a fraction (numbers are int32 or
    int64, quantities int-or-string): each one under loc, at its line."""
    found, pending = [], [loc]
    while pending:
        at = pending.pop()
        value = doc.get(at)
        if isinstance(value, float):
            found.append(error(doc.value_mark(at), f"{field_path(at)}: {value!r} has a fraction, which no pod or "
                                                   "container field takes; write a whole number, or a quantity as "
                                                   f'a string ("{value}")'))
        elif isinstance(value, dict):
            pending += [at + (key,) for key in value]
        elif isinstance(value, list):
            pending += [at + (index,) for index in range(len(value))]
    return found


def _check_name_length(f: _Fields, out: list[Diagnostic]) -> None:
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


def _check_reserved_metadata(f: _Fields, out: list[Diagnostic]) -> None:
    for where in ("labels", "annotations"):
        loc = ("metadata", where)
        if not f.ok(loc):
            continue
        for key in f.get(loc, {}):
            if key.startswith(MPIGEN_PREFIX) or key == MANAGED_BY or (where == "labels" and key in OPERATOR_LABEL_KEYS):
                out.append(error(f.doc.key_mark(loc + (key,)),
                                 f"metadata.{where}: key {key!r} is written by the MPI Operator or mpigen on the "
                                 "rendered objects; choose another key"))


def _check_command(f: _Fields, out: list[Diagnostic]) -> None:
    command, launcher, args = ("spec", "command"), ("spec", "launcherCommand"), ("spec", "mpirunArgs")
    if not isinstance(f.doc.data.get("spec"), dict) or not f.ok(command, launcher, args):
        return
    if f.get(launcher) is None and f.get(command) is None:
        out.append(error(f.doc.key_mark(("spec",)),
                         "spec: required key 'command' is missing (the program every rank runs); "
                         "or give the whole launcher command as launcherCommand"))
    if f.get(launcher) is not None:
        for unused in ("command", "mpirunArgs"):
            if f.get(("spec", unused)):
                out.append(error(f.doc.key_mark(("spec", unused)),
                                 f"spec.{unused} is not used when spec.launcherCommand is set: it replaces the "
                                 f"whole mpirun line; remove {unused} or launcherCommand"))


# Resource names Kubernetes knows without a domain (core/v1 ResourceName); every other
# resource is an extended resource, which must carry a domain prefix and be a whole number.
STANDARD_RESOURCES = ("cpu", "memory", "ephemeral-storage")


def _resource_name_problem(name: str) -> str | None:
    if name in STANDARD_RESOURCES or name.startswith("hugepages-"):
        return None
    if "/" not in name:
        return (f"{name!r} is not a Kubernetes resource: use cpu, memory, ephemeral-storage, hugepages-<size> "
                "or a domain-prefixed extended resource such as nvidia.com/gpu")
    if name.split("/", 1)[0].endswith("kubernetes.io"):
        return f"{name!r}: the kubernetes.io domain is reserved for Kubernetes' own resources"
    return None


def _check_resources(f: _Fields, out: list[Diagnostic]) -> None:
    gpu = ("spec", "gpuResource")
    if not f.ok(gpu):
        return
    gpu_resource = f.get(gpu, "nvidia.com/gpu")
    if "/" not in gpu_resource or _resource_name_problem(gpu_resource):
        out.append(error(f.doc.value_mark(gpu),
                         f"spec.gpuResource: {gpu_resource!r} is not an extended resource; accelerators are "
                         "requested by a domain-prefixed name such as nvidia.com/gpu or amd.com/gpu"))
    for role in ("worker", "launcher"):
        loc = ("spec", "resources", role)
        if not f.ok(loc):
            continue
        for name, quantity in f.get(loc, {}).items():
            where = f"spec.resources.{role}"
            problem = _resource_name_problem(name)
            if name == gpu_resource:
                hint = ("set gpusPerWorker instead" if role == "worker"
                        else "the launcher never requests GPUs (it only runs mpirun)")
                out.append(error(f.doc.key_mark(loc + (name,)), f"{where}: {name!r} is the GPU resource; {hint}"))
            elif problem:
                out.append(error(f.doc.key_mark(loc + (name,)), f"{where}: {problem}"))
            elif "/" in name and not str(quantity).isdigit():
                out.append(error(f.doc.value_mark(loc + (name,)),
                                 f"{where}.{name}: extended resources are whole numbers, got {quantity!r}"))


def _check_env(f: _Fields, out: list[Diagnostic]) -> None:
    loc = ("spec", "env")
    if not f.ok(loc):
        return
    for name in f.get(loc, {}):
        if name in RESERVED_ENV:
            out.append(error(f.doc.key_mark(loc + (name,)),
                             f"spec.env: {name} is set by the MPI Operator on the launcher and would be "
                             "overridden; remove it"))


def _check_datasets(f: _Fields, out: list[Diagnostic]) -> None:
    datasets = f.get(("spec", "datasets"), [])
    if not isinstance(datasets, list):
        return
    names: dict[str, int] = {}
    paths: dict[str, int] = {}
    for index in range(len(datasets)):
        here = ("spec", "datasets", index)
        name_loc, path_loc = here + ("name",), here + ("mountPath",)
        name = f.get(name_loc) if f.ok(name_loc) else None
        if isinstance(name, str):
            if name in RESERVED_VOLUMES:
                out.append(error(f.doc.value_mark(name_loc),
                                 f"spec.datasets[{index}].name: {name!r} is the name of a volume the MPI "
                                 "Operator adds; choose another name"))
            elif name in names:
                out.append(error(f.doc.value_mark(name_loc),
                                 f"spec.datasets[{index}].name: {name!r} is already used by "
                                 f"spec.datasets[{names[name]}]; volume names must be unique"))
            names.setdefault(name, index)
        raw = f.get(path_loc) if f.ok(path_loc) else None
        if not isinstance(raw, str):
            continue
        path = posixpath.normpath(raw)
        mark = f.doc.value_mark(path_loc)
        where = f"spec.datasets[{index}].mountPath"
        if ".." in raw.split("/"):
            out.append(error(mark, f"{where}: {raw!r} contains '..'; write the path without it"))
        elif path == "/":
            out.append(error(mark, f"{where}: cannot mount over the container's root folder"))
        elif any(path == r or path.startswith(r + "/") or r.startswith(path + "/") for r in RESERVED_MOUNTS):
            out.append(error(mark, f"{where}: {raw!r} clashes with the operator's mounts "
                                   f"({', '.join(RESERVED_MOUNTS)}); choose another path"))
        elif path in paths:
            out.append(error(mark, f"{where}: {raw!r} is already used by spec.datasets[{paths[path]}]; "
                                   "mount paths must be unique"))
        paths.setdefault(path, index)


# The checks above that judge one key, or a list (which a merge patch replaces whole), wrong
# wherever it stands: they also run on the file as written (written_problems), so that an
# overlay cannot hide what they find.
VALUE_CHECKS = (_check_reserved_metadata, _check_pod_patch, _check_env, _check_datasets)


# --- checks that depend on the GitOps profile -------------------------------------------

def profile_checks(doc: Document, blueprint: Blueprint, gitops: str) -> list[Diagnostic]:
    """What a GitOps profile cannot render: a launcher TTL (the controller would recreate
    the deleted Job and run it again), and names too long once the run identity is added."""
    from mpigen.render.gitops import RUN_HASH_LENGTH

    from mpigen.validate.production import production_profile_checks

    if gitops == "none":
        return []
    out = production_profile_checks(doc, blueprint, gitops)
    ttl = ("spec", "runPolicy", "ttlSecondsAfterFinished")
    if blueprint.spec.runPolicy.ttlSecondsAfterFinished is not None:
        out.append(error(doc.key_mark(ttl),
                         f"spec.runPolicy.ttlSecondsAfterFinished cannot be used with --gitops {gitops}: once "
                         "Kubernetes deletes the finished launcher Job, the GitOps controller sees it missing, "
                         "creates it again and the training runs again; remove it, and set spec.state: "
                         "completed or archived in Git instead"))
    if blueprint.spec.runPolicy.cleanPodPolicy == "None" and blueprint.spec.state == "running":
        policy = ("spec", "runPolicy", "cleanPodPolicy")
        out.append(warning(doc.value_mark(policy),
                           "spec.runPolicy.cleanPodPolicy is None: the workers keep running, and holding their "
                           "GPUs, after the launcher finishes, and the GitOps controller keeps them so; set "
                           "cleanPodPolicy: Running to release them when mpirun succeeds, or set spec.state: "
                           "completed once the job is done"))
    name, workers = blueprint.metadata.name, blueprint.spec.workers
    last_pod = f"{name}-{'x' * RUN_HASH_LENGTH}-worker-{workers - 1}"
    kind, room = name_too_long(name, workers, added=RUN_HASH_LENGTH + 1) or (None, 0)
    if kind == "pod":
        out.append(error(doc.value_mark(NAME),
                         f"metadata.name: with --gitops {gitops} each run is named <name>-<run> "
                         f"({RUN_HASH_LENGTH + 1} more characters), so the worker pod name would be "
                         f"{len(last_pod)} characters, more than 63; shorten the name to at most {room} "
                         "characters"))
    elif kind == "statefulset":
        out.append(warning(doc.value_mark(NAME),
                           f"metadata.name: with --gitops {gitops} the StatefulSet is <name>-<run>-worker, longer "
                           f"than {MAX_STATEFULSET_NAME} characters; Kubernetes cannot create its pods "
                           f"(kubernetes#64023); shorten the name to at most {room} characters"))
    return out


def target_checks(doc: Document, blueprint: Blueprint, target: str, mpijob_api: str) -> list[Diagnostic]:
    """What an operator API cannot run: the training-operator's kubeflow.org/v1 MPIJob
    always writes an Open MPI hostfile (`host slots=N`), which Intel MPI and MPICH
    (Hydra: `host:N`) cannot read."""
    from mpigen.validate.production import production_target_checks
    from mpigen.render.mpijob.resource import V1

    out = production_target_checks(doc, blueprint, target, mpijob_api)
    if target != "mpijob" or mpijob_api != V1 or blueprint.spec.mpiImplementation == "OpenMPI":
        return out
    loc = ("spec", "mpiImplementation")
    return out + [error(doc.value_mark(loc),
                  f"spec.mpiImplementation: {blueprint.spec.mpiImplementation} cannot run as a kubeflow.org/v1 "
                  "MPIJob: the training-operator writes an Open MPI hostfile (host slots=N) that Hydra cannot "
                  "read; use --mpijob-api kubeflow.org/v2beta1, or the static target")]
