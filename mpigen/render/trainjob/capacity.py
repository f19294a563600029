"""What a Kubeflow Trainer TrainJob runs, worked out as the Trainer (v2.3.0) builds its JobSet
from the TrainJob and the runtime it references, when that runtime is among the objects of
the render (pkg/runtime/core/trainingruntime.go newRuntimeInfo, plugins/mpi EnforceMLPolicy
and buildHostFileConfigMap, plugins/jobset SyncParallelCount): the pods of each replicated
job, with trainer.resourcesPerNode merged into container `node`, and the MPI slots of the
hostfile. Without the runtime, a TrainJob runs numNodes pods of resourcesPerNode."""

from __future__ import annotations

from mpigen.kube.values import get, mapping, whole_number
from mpigen.render.kinds import Find, Pods
from mpigen.render.trainjob.names import (ANCESTOR_LABEL, ANCESTOR_TRAINER, DEFAULT_NAMED_KIND, LAUNCHER_JOB,
                                          NODE_CONTAINER, NODE_JOB, TRAINER_GROUP)

RUNTIME_KINDS = ("TrainingRuntime", "ClusterTrainingRuntime")


def runtime_of(trainjob: dict, find: Find) -> dict | None:
    """The runtime trainjob's runtimeRef names (kind ClusterTrainingRuntime unless it says
    TrainingRuntime, in the TrainJob's namespace), if it is among the objects of the render."""
    ref = mapping(get(trainjob, "spec", "runtimeRef"))
    group, kind = ref.get("apiGroup", TRAINER_GROUP), ref.get("kind", DEFAULT_NAMED_KIND)
    if group != TRAINER_GROUP or kind not in RUNTIME_KINDS:
        return None
    namespace = get(trainjob, "metadata", "namespace")
    return find(group, kind, namespace if isinstance(namespace, str) else "", ref.get("name"))


def pod_sets(trainjob: dict, find: Find) -> int | None:
    """The pod sets of a queued TrainJob's Workload: those of the JobSet the Trainer makes of
    it, one per replicated job of its runtime's template (Kueue v0.19.2,
    pkg/controller/jobs/trainjob/trainjob_controller.go podSets -> JobSet.PodSets); None when
    the runtime is the cluster's, not the render's."""
    runtime = runtime_of(trainjob, find)
    if runtime is None:
        return None
    jobs = get(runtime, "spec", "template", "spec", "replicatedJobs")
    return len(jobs) if isinstance(jobs, list) else 0


def suspended(trainjob: dict) -> bool:
    return get(trainjob, "spec", "suspend") is True


def pods(trainjob: dict, find: Find) -> Pods:
    """(pods, pod spec) of each replicated job the TrainJob's JobSet runs; none while suspended."""
    return [(count, pod) for _, count, pod in _jobs(trainjob, runtime_of(trainjob, find))]


def workers(trainjob: dict, find: Find) -> int:
    """The pods of the node job (the ranks' hosts besides the launcher); none while suspended."""
    return sum(count for name, count, _ in _jobs(trainjob, runtime_of(trainjob, find)) if name == NODE_JOB)


def _jobs(trainjob: dict, runtime: dict | None) -> list[tuple[str, int, dict]]:
    """(name, pods, pod spec) of each replicated job; without the runtime, numNodes pods of
    resourcesPerNode (none without it) as job `node`."""
    if suspended(trainjob):
        return []
    trainer = mapping(get(trainjob, "spec", "trainer"))
    per_node = trainer.get("resourcesPerNode")
    if runtime is None:
        nodes = whole_number(trainer.get("numNodes"), default=1)
        node_pod = {"containers": [{"name": NODE_CONTAINER, "resources": mapping(per_node)}]}
        return [(NODE_JOB, nodes, node_pod)]
    policy = get(runtime, "spec", "mlPolicy")
    policy = policy if isinstance(policy, dict) else None
    as_node = get(policy or {}, "mpi", "runLauncherAsNode") is True
    jobs = get(runtime, "spec", "template", "spec", "replicatedJobs")
    out = []
    for job in jobs if isinstance(jobs, list) else []:
        job = mapping(job)
        count, replicas = job_pods(job, trainer, policy)
        pod = mapping(get(job, "template", "spec", "template", "spec"))
        ancestor = get(job, "template", "metadata", "labels", ANCESTOR_LABEL)
        trainer_job = ancestor == ANCESTOR_TRAINER and policy is not None
        if isinstance(per_node, dict) and (trainer_job or (as_node and job.get("name") == NODE_JOB)):
            pod = _with_resources(pod, per_node)
        out.append((job.get("name"), replicas * count, pod))
    return out


def job_pods(job: dict, trainer: dict, policy: dict | None) -> tuple[int, int]:
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
    if get(job, "template", "metadata", "labels", ANCESTOR_LABEL) == ANCESTOR_TRAINER:
        if not isinstance(mpi, dict) and nodes is not None:
            return whole_number(nodes, default=count), 1
        return (whole_number(policy.get("numNodes"), default=1) if policy is not None else count), 1
    if job.get("name") == NODE_JOB and isinstance(mpi, dict) and nodes is not None:
        nodes = whole_number(nodes, default=count)
        return (max(nodes - 1, 1) if mpi.get("runLauncherAsNode") is True else nodes), replicas
    return count, replicas


def _with_resources(pod: dict, per_node: dict) -> dict:
    """pod with resourcesPerNode merged into container `node` (its limits and requests key by
    key, as the Trainer's strategic merge does)."""
    containers = []
    for container in pod.get("containers") if isinstance(pod.get("containers"), list) else []:
        if mapping(container).get("name") == NODE_CONTAINER:
            base = mapping(container.get("resources"))
            merged = {part: {**mapping(base.get(part)), **mapping(per_node.get(part))}
                      for part in ("limits", "requests") if part in base or part in per_node}
            container = {**container, "resources": merged}
        containers.append(container)
    return {**pod, "containers": containers}


def slots(trainjob: dict, find: Find) -> int:
    """MPI slots of the hostfile the Trainer's MPI plugin writes: numProcPerNode for each node
    pod, and for the launcher when it is a node. A runtime without an MPI policy has no
    hostfile; a TrainJob whose runtime is not among the objects counts numNodes hosts."""
    if suspended(trainjob):
        return 0
    runtime = runtime_of(trainjob, find)
    trainer = mapping(get(trainjob, "spec", "trainer"))
    mpi = {} if runtime is None else get(runtime, "spec", "mlPolicy", "mpi")
    if not isinstance(mpi, dict):
        return 0
    counts = {name: count for name, count, _ in _jobs(trainjob, runtime)}
    hosts = counts.get(NODE_JOB, 0) + (counts.get(LAUNCHER_JOB, 0) if mpi.get("runLauncherAsNode") is True else 0)
    return hosts * procs_per_node(trainer, mpi, runtime)


def procs_per_node(trainer: dict, mpi: dict, runtime: dict | None) -> int:
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
        ancestor = get(job, "template", "metadata", "labels", ANCESTOR_LABEL)
        if job.get("name") == NODE_JOB or ancestor == ANCESTOR_TRAINER:
            containers = get(job, "template", "spec", "template", "spec", "containers")
            for container in containers if isinstance(containers, list) else []:
                if mapping(container).get("name") == NODE_CONTAINER and isinstance(container.get("resources"), dict):
                    return container["resources"]
    return {}


def _trainer_gpus(resources: dict) -> int:
    """The Trainer's GPU count (runtime.numGPU): the first resource whose name contains gpu."""
    return next((whole_number(value, default=0) for name, value in resources.items() if "gpu" in name.lower()), 0)
