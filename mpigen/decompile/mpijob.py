"""`mpigen import`: existing MPIJob manifests -> blueprints: the MPIJob decompiler (the
mpijob target declares it for the MPIJob kind), with which a target's decompiler reads the
view of its job as the MPIJob it amounts to (mpigen.decompile.view).

Reads the three generations (kubeflow.org/v1alpha2 with mpiReplicaSpecs, slotsPerWorker
and cleanPodPolicy at the top of spec; the training-operator's kubeflow.org/v1 with
runPolicy; kubeflow.org/v2beta1), each with its own fields, defaults and validation
(shared/reference/mpi-operator.md sections 2, 3 and 4), and writes what a blueprint says.

The import is lossless: rendering the blueprint gives what the operator makes of the
MPIJob (the v1alpha2 controller's objects under the default target, the same MPIJob under
the target that writes the MPIJob resource for v1 and v2beta1), outside the contract's exceptions. What a
blueprint cannot carry is reported at its line: a warning, or an error with --strict. An
MPIJob the operator or the API server would refuse, or whose blueprint mpigen would
refuse (mpigen.decompile.refusals), is an error at its line. The launch line becomes command, mpirunArgs and
framework when rendering them gives the same line back (checked), else launcherCommand.
"""

from __future__ import annotations

from typing import Any

from mpigen.compile.environment import RANK_ENV_SCRIPT
from mpigen.compile.mpijob import V1, V1ALPHA2, V2BETA1
from mpigen.decompile.both_roles import RESERVED_LABELS, container_names, env, networks, template_metadata
from mpigen.decompile.job_spec import (SPEC_FIELDS, implementation_of, read_replicas, restart_policies, run_policy,
                                       v2beta1_fields)
from mpigen.decompile.launch_line import host_discovery_at, launch_fields
from mpigen.decompile.own_objects import (completed, identity_of, multi_kueue, privileged, rank_host_launcher,
                                          service_account, strip_rank_hosts, topology)
from mpigen.decompile.own_objects import written_by_mpigen
from mpigen.decompile.pod_templates import gpus, read_role
from mpigen.decompile.port import Given, Imported
from mpigen.decompile.reader import Reader
from mpigen.decompile.refusals import refuse_what_mpigen_would
from mpigen.decompile.volumes import dangling_mounts, datasets, worker_only_volumes
from mpigen.decompile.worker_sshd import worker_command
from mpigen.errors import warning
from mpigen.formats.blueprint import API_VERSION, BLUEPRINT_KIND
from mpigen.kube.labels import KUEUE_QUEUE_LABEL, LAST_APPLIED, mpigens_own
from mpigen.kube.data import copy_data
from mpigen.load.document import Document

# The pod securityContext fields spec.security writes on both pods (mpigen.compile.blueprint).
POD_SECURITY = {"runAsUser", "runAsGroup", "fsGroup", "runAsNonRoot", "seccompProfile"}
APIS = (V1ALPHA2, V1, V2BETA1)  # the MPIJob generations `mpigen import` reads

# Metadata the API server writes (kubectl get -o yaml shows it), and kubectl's own record.
SERVER_METADATA = {"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "selfLink",
                   "deletionTimestamp", "deletionGracePeriodSeconds"}


def import_job(doc: Document, reference: Document | None, strict: bool, given: Given) -> Imported:
    """The blueprint of one MPIJob manifest, as a target's decompiler (an MPIJob references
    nothing but the ServiceAccounts given)."""
    return import_document(doc, strict, None, given)


def import_document(doc: Document, strict: bool = False, reader: Reader | None = None,
                    given: Given = Given()) -> Imported:
    """The blueprint of one MPIJob document (read by `reader`, a Reader of it by default);
    `given`: the ServiceAccounts given beside it, of which its cloud identity may be one, and
    the names a blueprint may not use."""
    data = doc.data
    api = data.get("apiVersion") if isinstance(data, dict) else None
    r = reader or Reader(doc, strict, api)
    r.launcher_as_worker = r.launcher_as_worker or written_by_mpigen(data)
    if not isinstance(data, dict) or data.get("kind") != "MPIJob" or api not in APIS:
        r.refuse(("kind",) if isinstance(data, dict) else (), f"not an MPIJob of {', '.join(APIS)}")
        return Imported({}, r.problems)
    for key in data:
        if key not in ("apiVersion", "kind", "metadata", "spec", "status"):
            r.lost((key,), f"{key!r} (not a field of an MPIJob)")
    metadata, spec = _metadata(r), r.mapping(("spec",))
    identity = identity_of(r, given.accounts)
    for key in spec:
        if key not in SPEC_FIELDS[api]:
            r.lost(("spec", key), f"not a field of the {api} MPIJob spec (the API server drops it)")
    roles = read_replicas(r) and not r.refused and (read_role(r, "Launcher"), read_role(r, "Worker"))
    if not roles or None in roles or r.refused:
        return Imported({}, r.problems)
    blueprint = {"apiVersion": API_VERSION, "kind": BLUEPRINT_KIND, "metadata": metadata,
                 "spec": _spec(r, spec, metadata, identity, *roles)}
    if not r.refused:
        refuse_what_mpigen_would(r, blueprint, given.reserved)
    failed = any(d.severity == "error" for d in r.problems)
    return Imported({} if failed else blueprint, r.problems)


def _spec(r: Reader, spec: dict, metadata: dict, identity: dict | None, launcher: dict, worker: dict) -> dict:
    out: dict[str, Any] = {}
    queue = metadata.get("labels", {}).pop(KUEUE_QUEUE_LABEL, None)
    if queue is not None:
        out["scheduling"] = {"queue": queue}
    networks(r, launcher, worker, out)
    topology(r, launcher, worker, out)
    rank_host_launcher(r, launcher, worker)
    template_metadata(r, metadata, [launcher, worker])
    out["image"], out["workers"] = launcher["image"], spec["mpiReplicaSpecs"]["Worker"]["replicas"]
    r.came_from(("image",), launcher["cloc"] + ("image",))
    r.came_from(("workers",), ("spec", "mpiReplicaSpecs", "Worker", "replicas"))
    if worker["image"] != launcher["image"]:
        r.lost(worker["cloc"] + ("image",), "the workers' image, which differs from the launcher's")
    implementation = out["mpiImplementation"] = implementation_of(r, spec)
    out["slotsPerWorker"] = spec.get("slotsPerWorker", 1)  # never the blueprint's GPU-based default
    r.came_from(("slotsPerWorker",), ("spec", "slotsPerWorker"))
    gpus(r, worker, out)
    restart_policies(r)
    container_names(r, spec, launcher, worker, out)
    argv = launcher["command"] + launcher["args"]
    workers_only = env(r, launcher, worker, out, rank_env=RANK_ENV_SCRIPT in argv)
    worker_command(r, worker, spec, out)
    _volumes(r, launcher, worker, out, rank_env=RANK_ENV_SCRIPT in argv)
    placement = {role: part["placement"] for role, part in (("launcher", launcher), ("worker", worker))
                 if part["placement"]}
    if placement:
        out["placement"] = placement
    multi_kueue(r, out)
    run_policy(r, spec, out, queue)
    completed(r, out)
    service_account(r, worker, identity, out)
    privileged(r, launcher, worker, out)
    _pod_fields(launcher, worker, out)
    patch = {role: part["patch"] for role, part in (("launcher", launcher), ("worker", worker)) if part["patch"]}
    if patch:
        out["podTemplatePatch"] = patch
    v2beta1_fields(r, spec, out, implementation)
    out.update(_launch(r, launcher, argv, implementation, out, workers_only))
    return out


def _volumes(r: Reader, launcher: dict, worker: dict, out: dict, rank_env: bool) -> None:
    for role, part in (("launcher", launcher), ("worker", worker)):
        dangling_mounts(r, part)
        if part["limits"]:
            out.setdefault("resources", {})[role] = part["limits"]
    found = datasets(r, launcher, worker)
    shm = worker_only_volumes(r, launcher, worker, rank_env, bool(out.get("gpusPerWorker")), found)
    if found:
        out["datasets"] = found
    if shm is not None:
        out["sharedMemory"] = shm


def _metadata(r: Reader) -> dict:
    meta = r.mapping(("metadata",))
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        r.refuse(("metadata", "name") if "name" in meta else ("metadata",),
                 "an MPIJob needs metadata.name (a blueprint is named after it)")
    for key in meta:
        if key not in ("name", "namespace", "labels", "annotations") and key not in SERVER_METADATA:
            r.lost(("metadata", key), f"the MPIJob's metadata.{key}")
    out: dict[str, Any] = {"name": name}
    r.came_from(("metadata", "name"), ("metadata", "name"))
    if meta.get("namespace") is not None:
        out["namespace"] = meta["namespace"]
        r.came_from(("metadata", "namespace"), ("metadata", "namespace"))
    for kind in ("labels", "annotations"):
        values = {}
        for key, value in r.mapping(("metadata", kind)).items():
            if not isinstance(value, str):
                r.refuse(("metadata", kind, key), f"{kind[:-1]} values are strings; quote it")
                continue
            if mpigens_own(key) or key == LAST_APPLIED:
                continue  # mpigen's own from an earlier render, and kubectl apply's record
            if kind == "labels" and key in RESERVED_LABELS:
                r.lost(("metadata", kind, key), f"the label {key}, a key the operator writes on its own objects")
                continue
            values[key] = value
            r.came_from(("metadata", kind, key), ("metadata", kind, key))
        if values:
            out[kind] = values
    return out


def _pod_fields(launcher: dict, worker: dict, out: dict) -> None:
    """Pod fields that blueprint fields express, out of the roles' patches: pull secrets
    and the pod security context (spec.security's fields alone) both pods share, and (out of
    the workers' placement) the rank-host anti-affinity mpigen writes for onePodPerNode."""
    pods = [launcher["patch"]["pod"], worker["patch"]["pod"]]
    secrets = [pod.get("imagePullSecrets") for pod in pods]
    if isinstance(secrets[0], list) and secrets[0] and all(s == secrets[0] for s in secrets) \
            and all(isinstance(s, dict) and set(s) == {"name"} for s in secrets[0]):
        out["imagePullSecrets"] = [s["name"] for s in secrets[0]]
        for pod in pods:
            del pod["imagePullSecrets"]
    contexts = [pod.get("securityContext") for pod in pods]
    if isinstance(contexts[0], dict) and contexts[0] and contexts[0] == contexts[1] \
            and set(contexts[0]) <= POD_SECURITY:
        out.setdefault("security", {}).update(copy_data(contexts[0]))  # what spec.security writes on both pods
        for pod in pods:
            del pod["securityContext"]
    if strip_rank_hosts(worker["placement"]):
        out.setdefault("placement", {}).setdefault("worker", {})["onePodPerNode"] = True
    for role in (launcher, worker):
        for part in [k for k, v in role["patch"].items() if not v]:
            del role["patch"][part]


def _launch(r: Reader, launcher: dict, argv: list[str], implementation: str, spec: dict,
            workers_only: set[str]) -> dict:
    cloc = launcher["cloc"]
    if not launcher["command"]:
        if not launcher["args"]:
            r.refuse(cloc, "the launcher container has no command, so it runs its image's entrypoint, which a "
                           "blueprint cannot name; write the launcher's command out (a blueprint needs "
                           "spec.command or spec.launcherCommand)")
            return {}
        r.differs(cloc + ("args",), "args without a command run the image's entrypoint with them; a blueprint "
                                    "cannot express that, so the imported launcher runs the args as its command")
    fields, kept = launch_fields(argv, implementation, spec, workers_only)
    for key in fields:
        r.came_from((key,), cloc + ("command",) if launcher["command"] else cloc + ("args",))
    command = len(launcher["command"])
    if kept is not None:
        index, why = kept
        r.differs(cloc + (("command", index) if index < command else ("args", index - command)), why)
    if (index := host_discovery_at(argv)) is not None:
        loc = cloc + (("command", index) if index < command else ("args", index - command))
        r.problems.append(warning(r.doc.value_mark(loc), f"{r.name(loc)}: Horovod elastic's host discovery script is "
                                  "written by the MPI Operator's controller, so the blueprint runs only with --target "
                                  "mpijob; static, jobset and trainjob refuse it (none writes the script)"))
    return fields
