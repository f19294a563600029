"""`mpigen import`, TrainJobs (trainer.kubeflow.org/v1alpha1) -> blueprints: the trainjob
target's decompiler (its Target's `importer` loads it, for `mpigen import` alone).

The TrainJob and the runtime it references (when its file is given too) are read as the
v2beta1 MPIJob they amount to (mpigen.render.trainjob.mpijob_view), by the MPIJob
decompiler (mpigen.decompile.mpijob); then the blueprint takes what only a TrainJob says: the runtime (none
when mpigen wrote it from a blueprint, else spec.runtime naming it), the launcher as a node
(runLauncherAsNode), Kueue's priority class and MultiKueue (managedBy), the runtime's gang
scheduling and the workers' SSH port. Its runtimePatches are merged into the view's pods
(mpigen.render.trainjob.patches_view); what the import says of whole entries is _patch_notes'. Last, what is to be proved (a Proof,
mpigen.decompile.port): `mpigen import` renders the blueprint with the trainjob target and
compares it with the TrainJob and runtime given, each value it does not give back reported at
its line.
"""

from __future__ import annotations

import re

from mpigen.compile.launch import FRAMEWORK_FLAGS
from mpigen.compile.mpijob import V2BETA1
from mpigen.decompile.mpijob import import_document
from mpigen.decompile.port import Given, Imported, Proof
from mpigen.decompile.reader import KindReader
from mpigen.decompile.view import ViewReader
from mpigen.errors import error, warning
from mpigen.formats.scheduling import DEFAULT_SCHEDULER_NAMES
from mpigen.formats.versions import DEFAULT_TRAINER_VERSION
from mpigen.kube.data import copy_data
from mpigen.kube.labels import KUEUE_PRIORITY_LABEL, KUEUE_QUEUE_LABEL, MULTIKUEUE
from mpigen.load.document import Document, value_at
from mpigen.render.trainjob.ml_policy import not_mpi
from mpigen.render.trainjob.mpijob_view import (DEFAULT_RUNTIME_KIND, NAMED_HOSTFILE, RUNTIME_KINDS, TRAINER_API,
                                                build_view, is_runtime, written_by_mpigen)
from mpigen.render.trainjob.names import (DEFAULT_SUSPEND, FRAMEWORK_LABEL, IMPLEMENTATION_ANNOTATION, PATCH_MANAGER,
                                          TRAINER_GROUP, TRAINJOB_CONTROLLER)
from mpigen.render.trainjob.patches_view import is_kueues
from mpigen.render.trainjob.versions import written_for

TRAINER = ("spec", "trainer")
TRAINJOB_SHAPE = {("metadata",): dict, ("spec",): dict, ("spec", "runtimeRef"): dict, TRAINER: dict,
                  TRAINER + ("image",): str, TRAINER + ("command",): list, TRAINER + ("args",): list,
                  TRAINER + ("env",): list, TRAINER + ("numNodes",): int, TRAINER + ("numProcPerNode",): int,
                  TRAINER + ("resourcesPerNode",): dict, ("spec", "activeDeadlineSeconds"): int,
                  ("spec", "suspend"): bool, ("spec", "managedBy"): str, ("spec", "runtimePatches"): list,
                  ("spec", "runtimePatches", "*"): dict}
_PATCH = ("spec", "runtimePatches", "*", "trainingRuntimeSpec")
_PATCHED = _PATCH + ("template", "spec", "replicatedJobs", "*", "template", "spec", "template")
TRAINJOB_SHAPE.update({_PATCH: dict, _PATCH + ("template",): dict, _PATCH + ("template", "spec"): dict,
                       _PATCH + ("template", "spec", "replicatedJobs"): list,
                       _PATCH + ("template", "spec", "replicatedJobs", "*"): dict,
                       _PATCH + ("template", "spec", "replicatedJobs", "*", "template"): dict,
                       _PATCH + ("template", "spec", "replicatedJobs", "*", "template", "spec"): dict,
                       _PATCHED: dict, _PATCHED + ("metadata",): dict, _PATCHED + ("spec",): dict,
                       _PATCHED + ("spec", "containers"): list, _PATCHED + ("spec", "containers", "*"): dict})
_JOBS = ("spec", "template", "spec", "replicatedJobs")
RUNTIME_SHAPE = {("metadata",): dict, ("metadata", "labels"): dict, ("metadata", "annotations"): dict,
                 ("metadata", "annotations", IMPLEMENTATION_ANNOTATION): str, ("spec",): dict,
                 ("spec", "mlPolicy"): dict, ("spec", "mlPolicy", "numNodes"): int, ("spec", "mlPolicy", "mpi"): dict,
                 ("spec", "mlPolicy", "mpi", "numProcPerNode"): int,
                 ("spec", "mlPolicy", "mpi", "runLauncherAsNode"): bool,
                 ("spec", "podGroupPolicy"): dict, ("spec", "template"): dict, ("spec", "template", "spec"): dict,
                 _JOBS: list, _JOBS + ("*",): dict, _JOBS + ("*", "template"): dict,
                 _JOBS + ("*", "template", "spec"): dict, _JOBS + ("*", "template", "spec", "template"): dict,
                 _JOBS + ("*", "template", "spec", "template", "spec"): dict,
                 _JOBS + ("*", "template", "spec", "template", "spec", "containers"): list,
                 _JOBS + ("*", "template", "spec", "template", "spec", "containers", "*"): dict,
                 _JOBS + ("*", "template", "spec", "template", "spec", "containers", "*", "ports"): list,
                 _JOBS + ("*", "template", "spec", "template", "spec", "containers", "*", "readinessProbe"): dict,
                 _JOBS + ("*", "template", "spec", "template", "spec", "containers", "*", "readinessProbe",
                          "tcpSocket"): dict}
TYPE_WORDS = {dict: "a mapping", list: "a list", str: "a string", int: "a whole number", bool: "true or false"}
HASHED_NAME = re.compile(r"mpigen-[0-9a-f]{10}")  # a shared ClusterTrainingRuntime named by its content
DEFAULT_SSH_PORT = 2222
KUEUES_ENTRY = ("Kueue's entry (kueue.x-k8s.io/manager): the nodeSelector, tolerations and scheduling gates of the "
                "flavor Kueue admitted the job to, the cluster's state, not the job's; the imported blueprint leaves "
                "it out, and Kueue writes it again when it admits the job (with spec.scheduling.queue)")
VOLCANO_QUEUE = "scheduling.volcano.sh/queue-name"
# Frameworks whose launch lines are the same, by the one the MPIJob decompiler picks.
SAME_LINE = {"pytorch": ("pytorch", "deepspeed"), "horovod": ("horovod", "tensorflow", "mxnet")}


def runtime_ref(doc: Document) -> tuple[str, str | None]:
    """(kind, name) of the runtime a TrainJob references."""
    ref = doc.get(("spec", "runtimeRef"), {})
    ref = ref if isinstance(ref, dict) else {}
    return ref.get("kind", DEFAULT_RUNTIME_KIND), ref.get("name")


def reference_of(trainjob: Document, runtimes: list[Document]) -> Document | None:
    """The runtime the TrainJob references, among those given (a TrainingRuntime is in the
    TrainJob's namespace)."""
    kind, name = runtime_ref(trainjob)
    namespace = trainjob.get(("metadata", "namespace"), "default")
    for runtime in runtimes:
        if runtime.data.get("kind") == kind and runtime.get(("metadata", "name")) == name and (
                kind != "TrainingRuntime" or runtime.get(("metadata", "namespace"), "default") == namespace):
            return runtime
    return None


def import_job(doc: Document, runtime: Document | None, strict: bool, given: Given) -> Imported:
    """The blueprint of one TrainJob; `runtime` is the runtime it references, when given."""
    r = KindReader(doc, False, TRAINER_API)  # losses are warnings until the end: --strict makes them errors
    if doc.get(("apiVersion",)) != TRAINER_API:
        r.refuse(("apiVersion",), f"not a TrainJob of {TRAINER_API}")
        return Imported({}, r.problems)
    kind, name = runtime_ref(doc)
    group = doc.get(("spec", "runtimeRef", "apiGroup"), TRAINER_GROUP)
    if not isinstance(name, str) or not name or kind not in RUNTIME_KINDS or group != TRAINER_GROUP:
        r.refuse(("spec", "runtimeRef"), f"a TrainJob references a runtime: runtimeRef needs a name, apiGroup "
                                         f"{TRAINER_GROUP} and a kind of {', '.join(RUNTIME_KINDS)}")
        return Imported({}, r.problems)
    if runtime is not None and not is_runtime(runtime.data):
        return Imported({}, r.problems + _not_a_runtime(runtime))
    if runtime is not None and not_mpi(runtime):
        return Imported({}, r.problems + not_mpi(runtime))
    unnamed = None
    runtime_reader = KindReader(runtime, False, TRAINER_API) if written_by_mpigen(runtime) else None
    if not _shaped(r, TRAINJOB_SHAPE) or (runtime_reader is not None and not _shaped(runtime_reader, RUNTIME_SHAPE)):
        return Imported({}, r.problems + (runtime_reader.problems if runtime_reader is not None else []))
    if runtime is None:
        unnamed = warning(doc.key_mark(("spec", "runtimeRef")), f"TrainJob spec.runtimeRef: the {kind} {name!r} was "
                          "not given (pass its file too): the blueprint names it (spec.runtime) and takes only what "
                          "the TrainJob says")
        r.problems.append(unnamed)
    view = build_view(doc, runtime)
    for loc, why in view.refused:
        r.refuse(loc, why)
    if r.refused:
        return Imported({}, r.problems)
    patch_notes, left_out = _patch_notes(r, written_by_mpigen(runtime))  # nothing under those left out is compared
    vdoc = view.document(doc)
    imported = import_document(vdoc, False, ViewReader(vdoc, False, V2BETA1, view), given)
    r.problems += imported.diagnostics
    if view.guessed is not None:
        other = "MPICH" if view.guessed == "IntelMPI" else "Intel MPI"
        r.differs(("spec", "trainer", "command"), f"a Hydra launch line (-localhost) on a runtime of the cluster's, "
                                                  f"which does not say whether it is {other}'s or "
                                                  f"{view.guessed}'s: the imported blueprint says mpiImplementation: "
                                                  f"{view.guessed} (by its I_MPI_ variables); check it")
    if not imported.blueprint:
        return Imported({}, r.problems)
    blueprint = imported.blueprint
    _trainer_fields(doc, runtime, view, blueprint["spec"], blueprint["metadata"])
    documents = [(r, _defaulted(doc, runtime, blueprint["spec"]))] + (
        [(runtime_reader, runtime_reader.doc.data)] if runtime_reader is not None else [])
    # proved by the command; --strict makes every loss an error once all are reported (the runtime left out
    # loses nothing)
    proof = Proof(documents, frozenset(d.mark for d in imported.diagnostics + left_out), _options(runtime_reader),
                  notes=tuple(patch_notes) + ((unnamed,) if unnamed is not None else ()))
    return Imported(blueprint, [d for reader, _ in documents for d in reader.problems], proof)


def _not_a_runtime(runtime: Document) -> list:
    """The error of a document given as the TrainJob's runtime that is not one (any value may
    be handed in: a kind that is a list is reported at its line, never looked up)."""
    data = runtime.data if isinstance(runtime.data, dict) else None
    wanted = f"a {' or '.join(RUNTIME_KINDS)} of {TRAINER_API}"
    if data is None:
        return [error(runtime.start, f"not a runtime: the TrainJob's runtime is {wanted}")]
    key = "kind" if data.get("kind") not in RUNTIME_KINDS else "apiVersion"
    mark = runtime.value_mark((key,)) if key in data else runtime.start
    return [error(mark, f"{key}: {data.get(key)!r} is not a runtime's: the TrainJob's runtime is {wanted}; "
                        "pass the runtime its spec.runtimeRef names")]


def _shaped(r: KindReader, shape: dict) -> bool:
    """Whether each field the import reads has its type (else refused at its line); the
    `*` of a path is every item of a list."""
    for path, kind in shape.items():
        for loc in _expand(r.doc.data, path):
            value = r.get(loc)
            if value is not None and not (isinstance(value, kind) and (kind is bool or not isinstance(value, bool))):
                r.refuse(loc, f"expected {TYPE_WORDS[kind]}")
    return not r.refused


def _expand(data, path: tuple, loc: tuple = ()):
    if not path:
        yield loc
        return
    if path[0] == "*":
        node = value_at(data, loc)
        for index in range(len(node) if isinstance(node, list) else 0):
            yield from _expand(data, path[1:], loc + (index,))
    else:
        yield from _expand(data, path[1:], loc + (path[0],))


def _options(runtime_reader: KindReader | None) -> dict:
    """The environment's options the runtime mpigen wrote was rendered with, as far as the
    runtime tells them: its Trainer version, which the blueprint does not say (an environment's
    versions.trainer), and a warning at the line that shows it when it is not the default."""
    version, loc = written_for(runtime_reader.doc.data) if runtime_reader is not None else (None, None)
    if loc is not None:
        runtime_reader.differs(loc, f"written for Kubeflow Trainer {version}, which an environment says, not a "
                                    f"blueprint: render the imported blueprint with versions.trainer: {version} "
                                    "(in mpigen.yaml or the environment's overlay) to get this runtime back")
    return {"trainer_version": version or DEFAULT_TRAINER_VERSION}


def _defaulted(doc: Document, runtime: Document | None, spec: dict) -> dict:
    """The TrainJob as the Trainer reads it, to compare with the render: runtimeRef's
    defaults, and the CRD's managedBy and (without a Kueue queue) suspend; the sizes the runtime gives, when it was given; on a runtime mpigen did not
    write, the Open MPI 5 hostfile variable mpigen adds to the trainer's env."""
    data = copy_data(doc.data)
    spec_data = data.setdefault("spec", {})
    ref = spec_data.setdefault("runtimeRef", {})
    if isinstance(ref, dict):
        ref.setdefault("apiGroup", TRAINER_GROUP)
        ref.setdefault("kind", DEFAULT_RUNTIME_KIND)
    _as_rendered(spec_data, written_by_mpigen(runtime))
    spec_data.setdefault("managedBy", TRAINJOB_CONTROLLER)  # the CRD's defaults, which mpigen writes out
    if KUEUE_QUEUE_LABEL not in (doc.get(("metadata", "labels")) or {}):  # (under a queue, suspend is Kueue's)
        spec_data.setdefault("suspend", DEFAULT_SUSPEND)
    trainer = spec_data.setdefault("trainer", {})
    if isinstance(trainer, dict) and isinstance(trainer.get("command"), list) and isinstance(trainer.get("args"), list):
        trainer["command"] = trainer["command"] + trainer.pop("args")  # the launch line the blueprint keeps whole
    if runtime is not None and isinstance(trainer, dict):
        trainer.setdefault("numProcPerNode", spec.get("slotsPerWorker"))
        trainer.setdefault("numNodes", spec["workers"] + int(spec.get("launcher", {}).get("runAsWorker", False)))
    if not written_by_mpigen(runtime) and spec.get("mpiImplementation", "OpenMPI") == "OpenMPI" \
            and isinstance(trainer, dict) and NAMED_HOSTFILE not in (trainer.get("env") or []):
        trainer["env"] = [*(trainer.get("env") or []), dict(NAMED_HOSTFILE)]
    return data


def _patch_notes(r: KindReader, ours: bool) -> tuple[list, list]:
    """What the import says of the runtimePatches it reads (mpigen.render.trainjob.patches_view), beside
    what the MPIJob decompiler says of their fields: Kueue's entry left out (a note: the cluster's);
    on a runtime of the cluster's, the entry the blueprint's render writes as mpigen's own (a note:
    the pods get the same fields), and each further entry merged into it (a warning: one entry
    where the TrainJob has several); on a runtime mpigen wrote, each entry's fields written into
    that runtime (a note). (the notes, what is said of whole entries: the proof compares nothing
    under them)"""
    patches = r.get(("spec", "runtimePatches")) or []
    left_out = []
    for index in [i for i, patch in enumerate(patches) if is_kueues(patch)]:
        left_out.append(_note(r, ("spec", "runtimePatches", index), KUEUES_ENTRY))
    notes, (first, later) = list(left_out), _foreign(patches, ours)
    if first is not None:
        notes.append(_note(r, ("spec", "runtimePatches", first, "manager"),
                           f"{patches[first]['manager']!r}: the imported blueprint's render writes this entry's "
                           f"fields as mpigen's own entry (manager {PATCH_MANAGER}), which gives the pods the same "
                           "fields"))
    for index in later if ours else ():
        left_out.append(_note(r, ("spec", "runtimePatches", index), f"an entry of manager "
                              f"{patches[index].get('manager')!r} on the runtime mpigen wrote: the imported "
                              "blueprint's render writes its fields into that runtime's pods, as the Trainer merges "
                              "them there"))
    for index in later if not ours else ():
        r.differs(("spec", "runtimePatches", index), f"a further entry (manager {patches[index].get('manager')!r}): "
                  f"the imported blueprint renders one entry (manager {PATCH_MANAGER}), its fields and this entry's "
                  "merged as the Trainer merges them")
        left_out.append(r.problems[-1])
    return notes, left_out


def _note(r: KindReader, loc: tuple, message: str):
    """A warning that loses nothing (--strict lets it be), at loc."""
    note = warning(r.doc.key_mark(loc), f"{r.name(loc)}: {message}")
    r.problems.append(note)
    return note


def _foreign(patches: list, ours: bool) -> tuple[int | None, list[int]]:
    """The entries of other managers than mpigen's and Kueue's: the one whose manager the render
    writes as mpigen's (the first, when mpigen's own is not there and the runtime is the
    cluster's), and the others."""
    foreign = [i for i, p in enumerate(patches) if isinstance(p, dict) and not is_kueues(p)
               and p.get("manager") != PATCH_MANAGER]
    if foreign and not ours and not any(isinstance(p, dict) and p.get("manager") == PATCH_MANAGER for p in patches):
        return foreign[0], foreign[1:]
    return None, foreign


def _as_rendered(spec: dict, ours: bool) -> None:
    """The runtimePatches as the render is compared with them: without the time the Trainer's
    webhook stamps on each entry, and the entry written as mpigen's own under its manager; none
    on a runtime mpigen wrote, whose render writes every entry's fields into the runtime (each
    entry noted, _patch_notes)."""
    patches = spec.get("runtimePatches")
    if not isinstance(patches, list):
        return
    if ours and all(isinstance(p, dict) and p.get("manager") != PATCH_MANAGER for p in patches):
        del spec["runtimePatches"]
        return
    for patch in patches:
        if isinstance(patch, dict):
            patch.pop("time", None)
    first, _ = _foreign(patches, ours)
    if first is not None:
        patches[first]["manager"] = PATCH_MANAGER


def _trainer_fields(doc: Document, runtime: Document | None, view, spec: dict, metadata: dict) -> None:
    """What a TrainJob says that an MPIJob does not."""
    if written_by_mpigen(runtime):
        _framework(runtime, spec)
    if view.runAsWorker:
        spec.setdefault("launcher", {})["runAsWorker"] = True
    if view.ssh_port not in (None, DEFAULT_SSH_PORT):
        spec["ssh"] = {"port": view.ssh_port}
    scheduling = spec.get("scheduling", {})
    priority = metadata.get("labels", {}).pop(KUEUE_PRIORITY_LABEL, None)
    if not metadata.get("labels", True):
        del metadata["labels"]
    if priority is not None:
        scheduling["priorityClass"] = priority
    if doc.get(("spec", "managedBy")) == MULTIKUEUE:
        scheduling["multiKueue"] = True
    gang = _gang(runtime) if written_by_mpigen(runtime) else None
    if gang:
        scheduling["gang"] = gang
    if scheduling:
        spec["scheduling"] = scheduling
    choice = _runtime(doc, runtime)
    if choice:
        spec["runtime"] = choice
    spec.pop("launcher", None) if spec.get("launcher") == {} else None


def _framework(runtime: Document, spec: dict) -> None:
    """The framework mpigen labels its runtime with: of those whose launch lines are the same
    (pytorch and deepspeed; horovod, tensorflow and mxnet), the launch line alone cannot tell."""
    label = runtime.get(("metadata", "labels", FRAMEWORK_LABEL))
    current = spec.get("framework", "custom")
    flags = FRAMEWORK_FLAGS[spec.get("mpiImplementation", "OpenMPI")]  # Hydra's: none, every framework's line
    same = label in SAME_LINE.get(current, ()) or (
        label in FRAMEWORK_FLAGS["OpenMPI"] and flags.get(label, ()) == flags.get(current, ()))
    if "command" not in spec or not same:
        return
    if label == "custom":
        spec.pop("framework", None)
    else:
        spec["framework"] = label


def _gang(runtime: Document) -> dict | None:
    """scheduling.gang, from the runtime's podGroupPolicy and its pods' schedulerName."""
    gang = _gang_policy(runtime)
    if gang is not None:
        jobs = runtime.get(("spec", "template", "spec", "replicatedJobs"))
        values = [value_at(job, ("template", "spec", "template", "spec", "schedulerName"))
                  for job in jobs if isinstance(job, dict)] if isinstance(jobs, list) else []
        names = {value for value in values if isinstance(value, str)}
        if len(names) == 1 and next(iter(names)) != DEFAULT_SCHEDULER_NAMES[gang["scheduler"]]:
            gang["schedulerName"] = next(iter(names))
    return gang


def _gang_policy(runtime: Document) -> dict | None:
    policy = runtime.get(("spec", "podGroupPolicy"))
    if not isinstance(policy, dict):
        return None
    if "volcano" in policy:
        gang = {"scheduler": "volcano"}
        queue = runtime.get(("spec", "template", "metadata", "annotations", VOLCANO_QUEUE))
        if isinstance(queue, str):
            gang["queue"] = queue
        return gang
    if "coscheduling" in policy:
        gang = {"scheduler": "scheduler-plugins"}
        timeout = runtime.get(("spec", "podGroupPolicy", "coscheduling", "scheduleTimeoutSeconds"))
        if isinstance(timeout, int) and not isinstance(timeout, bool):
            gang["scheduleTimeoutSeconds"] = timeout
        return gang
    return None


def _runtime(doc: Document, runtime: Document | None) -> dict | None:
    """spec.runtime: none for the TrainingRuntime mpigen writes by default (named as the
    job); the kind (and name) of another runtime of mpigen's; the name of the cluster's."""
    kind, name = runtime_ref(doc)
    if not written_by_mpigen(runtime):
        return {"name": name, "kind": kind}
    if kind == "TrainingRuntime" and name == doc.get(("metadata", "name")):
        return None
    if kind == "ClusterTrainingRuntime" and HASHED_NAME.fullmatch(name):
        return {"emit": kind}
    return {"emit": kind, "name": name}
