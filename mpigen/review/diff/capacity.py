"""What a job asks of the cluster, counted from its objects: GPUs (pods times the
accelerators of one pod), MPI slots (a hostfile's, an MPIJob's slotsPerWorker per
worker, or the hostfile the Trainer writes for a TrainJob) and workers (the worker pods:
a StatefulSet's labelled mpi_role_type=worker, an MPIJob's Worker replicas, a JobSet's
replicated job `worker`, a TrainJob's node pods). A suspended MPIJob, JobSet or TrainJob
runs nothing, so its job counts no slots and no workers either."""

from __future__ import annotations

from mpigen.kube.accelerators import is_accelerator
from mpigen.review.diff.manifests import job_of
from mpigen.review.diff.model import Manifest, ObjectKey
from mpigen.review.diff.trainjobs import is_trainjob, runtime_of, runtimes
from mpigen.review.diff.trainjobs import pods as trainjob_pods
from mpigen.review.diff.trainjobs import slots as trainjob_slots
from mpigen.review.diff.trainjobs import workers as trainjob_workers
from mpigen.review.diff.values import get, mapping, whole_number

REPLICA_FIELDS = {"StatefulSet": "replicas", "Deployment": "replicas", "ReplicaSet": "replicas",
                  "Job": "parallelism"}
WORKER = "worker"  # the operator's mpi_role_type of the workers, and a JobSet's replicated job of them


def totals(manifests) -> dict[tuple, tuple[int, int, int]]:
    """(GPUs, slots, workers) per job of one render."""
    manifests = list(manifests)
    known = runtimes(manifests)  # a TrainJob's pods are its runtime's
    by_job: dict[tuple, tuple[int, int, int]] = {}
    suspended = set()
    for manifest in manifests:
        counted = _counted(manifest, known)
        so_far = by_job.get(job_of(manifest), (0, 0, 0))
        by_job[job_of(manifest)] = tuple(a + b for a, b in zip(so_far, counted))
        if is_jobset(manifest.key) and get(manifest.data, "spec", "suspend") is True:
            suspended.add(job_of(manifest))
    # A suspended JobSet has no pods: its hostfile names hosts that do not exist.
    return {job: (gpus, 0 if job in suspended else slots, workers)
            for job, (gpus, slots, workers) in by_job.items()}


def _counted(manifest: Manifest, known: dict) -> tuple[int, int, int]:
    """(GPUs, slots, workers) of one object; a TrainJob's from the runtime it references, when known."""
    if is_trainjob(manifest.key):
        runtime = runtime_of(manifest, known)
        return (sum(count * _pod_gpus(pod) for count, pod in trainjob_pods(manifest, runtime)),
                trainjob_slots(manifest, runtime), trainjob_workers(manifest, runtime))
    return _gpus(manifest), _slots(manifest), _workers(manifest)


def _workers(manifest: Manifest) -> int:
    """The worker pods of one object (none while its job is suspended)."""
    spec = mapping(manifest.data.get("spec"))
    if is_mpijob(manifest.key):
        if get(spec, "runPolicy", "suspend") is True:
            return 0
        return whole_number(get(spec, "mpiReplicaSpecs", "Worker", "replicas"), default=0)
    if is_jobset(manifest.key):
        jobs = spec.get("replicatedJobs")
        named = [mapping(job) for job in (jobs if isinstance(jobs, list) else [])]
        return sum(pods for (pods, _), job in zip(_replicated_jobs(spec), named) if job.get("name") == WORKER)
    if manifest.key.kind == "StatefulSet" and get(manifest.data, "metadata", "labels", "mpi_role_type") == WORKER:
        return whole_number(spec.get("replicas"), default=1)
    return 0


def is_mpijob(key: ObjectKey) -> bool:
    return key.kind == "MPIJob" and key.api_version.startswith("kubeflow.org/")


def is_jobset(key: ObjectKey) -> bool:
    return key.kind == "JobSet" and key.api_version.startswith("jobset.x-k8s.io/")


def _replica_specs(spec: dict) -> list[tuple[int, dict]]:
    """(replicas, pod spec) of each of an MPIJob's replica specs (a suspended job has none
    running)."""
    if get(spec, "runPolicy", "suspend") is True:
        return []
    out = []
    for role, replica in mapping(spec.get("mpiReplicaSpecs")).items():
        replica = mapping(replica)
        count = whole_number(replica.get("replicas"), default=1 if role == "Launcher" else 0)
        out.append((count, mapping(mapping(replica.get("template")).get("spec"))))
    return out


def _replicated_jobs(spec: dict) -> list[tuple[int, dict]]:
    """(pods, pod spec) of each of a JobSet's replicated jobs: replicas (default 1) times the
    pods one Job runs at once, min(parallelism, completions) with parallelism defaulting to 1
    as a Job's does. A suspended JobSet has none running."""
    if spec.get("suspend") is True:
        return []
    jobs = spec.get("replicatedJobs")
    out = []
    for replicated in jobs if isinstance(jobs, list) else []:
        replicated = mapping(replicated)
        job_spec = mapping(get(replicated, "template", "spec"))
        parallelism = whole_number(job_spec.get("parallelism"), default=1)
        per_job = min(parallelism, whole_number(job_spec.get("completions"), default=parallelism))
        pods = whole_number(replicated.get("replicas"), default=1) * per_job
        out.append((pods, mapping(get(job_spec, "template", "spec"))))
    return out


def _gpus(manifest: Manifest) -> int:
    """Pods times the accelerators of one pod (init containers are not counted)."""
    kind, spec = manifest.key.kind, mapping(manifest.data.get("spec"))
    if kind == "Pod":
        return _pod_gpus(spec)
    if is_mpijob(manifest.key):
        return sum(count * _pod_gpus(pod) for count, pod in _replica_specs(spec))
    if is_jobset(manifest.key):
        return sum(count * _pod_gpus(pod) for count, pod in _replicated_jobs(spec))
    if kind not in REPLICA_FIELDS:
        return 0
    replicas = whole_number(spec.get(REPLICA_FIELDS[kind]), default=1)
    return replicas * _pod_gpus(mapping(mapping(spec.get("template")).get("spec")))


def _pod_gpus(pod_spec: dict) -> int:
    total = 0
    containers = pod_spec.get("containers")
    for container in containers if isinstance(containers, list) else []:
        resources = mapping(mapping(container).get("resources"))
        limits, requests = mapping(resources.get("limits")), mapping(resources.get("requests"))
        for name in limits.keys() | requests.keys():
            if is_accelerator(name):
                total += whole_number(limits.get(name, requests.get(name)), default=0)
    return total


def _slots(manifest: Manifest) -> int:
    if is_mpijob(manifest.key):  # slotsPerWorker (the operators' default 1) per worker
        spec = mapping(manifest.data.get("spec"))
        workers = mapping(mapping(spec.get("mpiReplicaSpecs")).get("Worker"))
        if get(spec, "runPolicy", "suspend") is True:
            return 0
        return (whole_number(spec.get("slotsPerWorker"), default=1)
                * whole_number(workers.get("replicas"), default=0))
    if manifest.key.kind != "ConfigMap":
        return 0
    hostfile = get(manifest.data, "data", "hostfile")
    return hostfile_slots(hostfile) if isinstance(hostfile, str) else 0


def hostfile_slots(text: str) -> int:
    """Slots of a hostfile: `host slots=N` (Open MPI), `host:N` (Intel MPI, MPICH), `host` (1)."""
    total = 0
    for line in text.splitlines():
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        slots = next((f.partition("=")[2] for f in fields[1:] if f.startswith("slots=")), None)
        if slots is None and ":" in fields[0]:
            slots = fields[0].rpartition(":")[2]
        total += whole_number(slots, default=1)
    return total
