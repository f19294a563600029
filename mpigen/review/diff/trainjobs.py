"""What a Kubeflow Trainer TrainJob runs, worked out as the Trainer (v2.3.0) builds its JobSet
from the TrainJob and the runtime it references, when that runtime is among the objects read
(pkg/runtime/core/trainingruntime.go newRuntimeInfo, plugins/mpi EnforceMLPolicy and
buildHostFileConfigMap, plugins/jobset SyncParallelCount): the pods of each replicated job,
with trainer.resourcesPerNode merged into container `node`, and the MPI slots of the hostfile.
Without the runtime, a TrainJob runs numNodes pods of resourcesPerNode."""

from __future__ import annotations

from mpigen.review.diff.model import Manifest, ObjectKey
from mpigen.review.diff.values import get, mapping, whole_number

GROUP = "trainer.kubeflow.org"
RUNTIME_KINDS = ("TrainingRuntime", "ClusterTrainingRuntime")
ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
NODE = "node"  # the Trainer's node job, and the container it fills in every job


def is_trainjob(key: ObjectKey) -> bool:
    return key.kind == "TrainJob" and key.api_version.startswith(f"{GROUP}/")


def runtimes(manifests) -> dict[tuple, dict]:
    """The runtimes among manifests by (environment, namespace, kind, name); a
    ClusterTrainingRuntime's namespace is ""."""
    found = {}
    for manifest in manifests:
        key = manifest.key
        if key.kind in RUNTIME_KINDS and key.api_version.startswith(f"{GROUP}/"):
            namespace = key.namespace if key.kind == "TrainingRuntime" else ""
            found[(key.environment, namespace, key.kind, key.name)] = manifest.data
    return found


def runtime_of(trainjob: Manifest, known: dict[tuple, dict]) -> dict | None:
    """The runtime trainjob's runtimeRef names (kind ClusterTrainingRuntime unless it says
    TrainingRuntime, in the TrainJob's namespace), if it is among the known runtimes."""
    ref = mapping(get(trainjob.data, "spec", "runtimeRef"))
    group, kind = ref.get("apiGroup", GROUP), ref.get("kind", "ClusterTrainingRuntime")
    if group != GROUP or kind not in RUNTIME_KINDS:
        return None
    namespace = trainjob.key.namespace if kind == "TrainingRuntime" else ""
    return known.get((trainjob.key.environment, namespace, kind, ref.get("name")))


def suspended(trainjob: Manifest) -> bool:
    return get(trainjob.data, "spec", "suspend") is True


def pods(trainjob: Manifest, runtime: dict | None) -> list[tuple[int, dict]]:
    """(pods, pod spec) of each replicated job the TrainJob's JobSet runs; none while suspended."""
    return [(count, pod) for _, count, pod in _jobs(trainjob, runtime)]


def workers(trainjob: Manifest, runtime: dict | None) -> int:
    """The pods of the node job (the ranks' hosts besides the launcher); none while suspended."""
    return sum(count for name, count, _ in _jobs(trainjob, runtime) if name == NODE)


def _jobs(trainjob: Manifest, runtime: dict | None) -> list[tuple[str, int, dict]]:
    """(name, pods, pod spec) of each replicated job; without the runtime, numNodes pods of
    resourcesPerNode (none without it) as job `node`."""
    if suspended(trainjob):
        return []
    trainer = mapping(get(trainjob.data, "spec", "trainer"))
    per_node = trainer.get("resourcesPerNode")
    if runtime is None:
        nodes = whole_number(trainer.get("numNodes"), default=1)
        node_pod = {"containers": [{"name": NODE, "resources": mapping(per_node)}]}
        return [(NODE, nodes, node_pod)]
    policy = get(runtime, "spec", "mlPolicy")
    policy = policy if isinstance(policy, dict) else None
    as_node = get(policy or {}, "mpi", "runLauncherAsNode") is True
    jobs = get(runtime, "spec", "template", "spec", "replicatedJobs")
    out = []
    for job in jobs if isinstance(jobs, list) else []:
        job = mapping(job)
        count, replicas = _count(job, trainer, policy)
        pod = mapping(get(job, "template", "spec", "template", "spec"))
        trainer_job = get(job, "template", "metadata", "labels", ANCESTOR_LABEL) == "trainer" and policy is not None
        if isinstance(per_node, dict) and (trainer_job or (as_node and job.get("name") == NODE)):
            pod = _with_resources(pod, per_node)
        out.append((job.get("name"), replicas * count, pod))
    return out


def _count(job: dict, trainer: dict, policy: dict | None) -> tuple[int, int]:
    """(pods of one Job, Jobs) of a runtime's replicated job in the TrainJob's JobSet. With
    the MPI policy the trainer job (the launcher) runs mlPolicy.numNodes pods and job `node`
    trainer.numNodes, one fewer when the launcher is a node; with another policy the trainer
    job runs trainer.numNodes. The trainer job's replicas are forced to 1; other jobs run what
    their template says."""
    spec = mapping(get(job, "template", "spec"))
    parallelism = whole_number(spec.get("parallelism"), default=1)
    count = min(parallelism, whole_number(spec.get("completions"), default=parallelism))
    replicas = whole_number(job.get("replicas"), default=1)
    nodes = trainer.get("numNodes")
    mpi = get(policy or {}, "mpi")
    if get(job, "template", "metadata", "labels", ANCESTOR_LABEL) == "trainer":
        if not isinstance(mpi, dict) and nodes is not None:
            return whole_number(nodes, default=count), 1
        return (whole_number(policy.get("numNodes"), default=1) if policy is not None else count), 1
    if job.get("name") == NODE and isinstance(mpi, dict) and nodes is not None:
        nodes = whole_number(nodes, default=count)
        return (max(nodes - 1, 1) if mpi.get("runLauncherAsNode") is True else nodes), replicas
    return count, replicas


def _with_resources(pod: dict, per_node: dict) -> dict:
    """pod with resourcesPerNode merged into container `node` (its limits and requests key by
    key, as the Trainer's strategic merge does)."""
    containers = []
    for container in pod.get("containers") if isinstance(pod.get("containers"), list) else []:
        if mapping(container).get("name") == NODE:
            base = mapping(container.get("resources"))
            merged = {part: {**mapping(base.get(part)), **mapping(per_node.get(part))}
                      for part in ("limits", "requests") if part in base or part in per_node}
            container = {**container, "resources": merged}
        containers.append(container)
    return {**pod, "containers": containers}


def slots(trainjob: Manifest, runtime: dict | None) -> int:
    """MPI slots of the hostfile the Trainer's MPI plugin writes: numProcPerNode for each node
    pod, and for the launcher when it is a node. A runtime without an MPI policy has no
    hostfile; a TrainJob whose runtime is not among the objects counts numNodes hosts."""
    if suspended(trainjob):
        return 0
    trainer = mapping(get(trainjob.data, "spec", "trainer"))
    mpi = {} if runtime is None else get(runtime, "spec", "mlPolicy", "mpi")
    if not isinstance(mpi, dict):
        return 0
    counts = {name: count for name, count, _ in _jobs(trainjob, runtime)}
    hosts = counts.get(NODE, 0) + (counts.get("launcher", 0) if mpi.get("runLauncherAsNode") is True else 0)
    return hosts * _procs_per_node(trainer, mpi, runtime)


def _procs_per_node(trainer: dict, mpi: dict, runtime: dict | None) -> int:
    """trainer.numProcPerNode, else the runtime's (default 1); a 1 becomes the GPUs of one
    node when there are more (the Trainer reads resourcesPerNode, else the runtime's node)."""
    if trainer.get("numProcPerNode") is not None:
        return whole_number(trainer.get("numProcPerNode"), default=1)
    procs = whole_number(mpi.get("numProcPerNode"), default=1)
    if procs != 1:
        return procs
    resources = trainer.get("resourcesPerNode")
    if not isinstance(resources, dict):
        resources = _runtime_node_resources(runtime)
    gpus = _trainer_gpus(mapping(resources.get("requests"))) or _trainer_gpus(mapping(resources.get("limits")))
    return gpus if gpus > 1 else 1


def _runtime_node_resources(runtime: dict | None) -> dict:
    """Container `node`'s resources in the runtime's first job named node or labelled trainer."""
    jobs = get(runtime or {}, "spec", "template", "spec", "replicatedJobs")
    for job in jobs if isinstance(jobs, list) else []:
        job = mapping(job)
        if job.get("name") == NODE or get(job, "template", "metadata", "labels", ANCESTOR_LABEL) == "trainer":
            containers = get(job, "template", "spec", "template", "spec", "containers")
            for container in containers if isinstance(containers, list) else []:
                if mapping(container).get("name") == NODE and isinstance(container.get("resources"), dict):
                    return container["resources"]
    return {}


def _trainer_gpus(resources: dict) -> int:
    """The Trainer's GPU count (runtime.numGPU): the first resource whose name contains gpu."""
    return next((whole_number(value, default=0) for name, value in resources.items() if "gpu" in name.lower()), 0)
