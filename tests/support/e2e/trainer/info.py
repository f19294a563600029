"""The Trainer's runtime.Info of a TrainJob (pkg/runtime/runtime.go, pkg/runtime/core/
trainingruntime.go newRuntimeInfo and mergeRuntimePatches at v2.3.0), and what the JobSet plugin
does to it before the objects are built (plugins/jobset/jobset.go IdentifyPodNetwork,
SyncParallelCount).

An Info holds the runtime's JobSet spec (`spec`, runtimePatches merged, resourcesPerNode merged)
and one PodSet per replicatedJob, in the JobSet's order: its name, ancestor (the label
trainer.kubeflow.org/trainjob-ancestor-step), count (the Job's parallelism; for the trainer
ancestor mlPolicy.numNodes), its containers' name, image, command, env, ports and volumeMounts,
its volumes, and the DNS names of its pods (endpoints). Plugins change the PodSets; the JobSet
plugin writes them back into `spec` (jobset.py)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from tests.support.e2e.trainer.apply import strategic_merge

ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
TRAINER = "trainer"
NODE = "node"
LAUNCHER = "launcher"
CONTAINER_FIELDS = ("name", "image", "command", "env", "ports", "volumeMounts")  # runtime.Container
# The CRD's defaults of mlPolicy.mpi (trainingruntime_types.go MPIMLPolicySource, +kubebuilder:default).
MPI_DEFAULTS = {"numProcPerNode": 1, "mpiImplementation": "OpenMPI", "sshAuthMountPath": "/root/.ssh",
                "runLauncherAsNode": False}


@dataclass
class PodSet:
    name: str
    ancestor: str | None
    count: int
    containers: list[dict] = field(default_factory=list)
    init_containers: list[dict] = field(default_factory=list)
    volumes: list[dict] = field(default_factory=list)
    endpoints: list[str] = field(default_factory=list)


@dataclass
class Info:
    labels: dict
    annotations: dict
    ml_policy: dict  # MLPolicySource: {"mpi": {...}} with the CRD's defaults
    pod_group_policy: dict | None
    spec: dict  # the JobSet spec (JobSetSpecApplyConfiguration)
    pod_sets: list[PodSet] = field(default_factory=list)

    @property
    def mpi(self) -> dict | None:
        return self.ml_policy.get("mpi")

    def pod_set(self, name: str) -> PodSet | None:
        return next((ps for ps in self.pod_sets if ps.name == name), None)


def with_defaults(runtime_spec: dict) -> dict:
    """The runtime spec as the API server stores it: the CRD's defaults of mlPolicy.mpi."""
    spec = copy.deepcopy(runtime_spec)
    mpi = spec.get("mlPolicy", {}).get("mpi")
    if mpi is not None:
        spec["mlPolicy"]["mpi"] = {**MPI_DEFAULTS, **mpi}
    return spec


def new_runtime_info(trainjob: dict, runtime_spec: dict) -> Info:
    """newRuntimeInfo: labels and annotations of the template (and of the patches), the patches
    merged, each replicatedJob's PodSet, resourcesPerNode merged into container `node`."""
    template = copy.deepcopy(runtime_spec["template"])
    ml_policy = runtime_spec.get("mlPolicy")
    labels = dict(template.get("metadata", {}).get("labels", {}))
    annotations = dict(template.get("metadata", {}).get("annotations", {}))
    patches = trainjob["spec"].get("runtimePatches", [])
    for patch in patches:
        meta = patch.get("trainingRuntimeSpec", {}).get("template", {}).get("metadata", {})
        labels.update(meta.get("labels", {}))
        annotations.update(meta.get("annotations", {}))
    spec = merge_runtime_patches(template["spec"], patches)
    info = Info(labels, annotations, {k: v for k, v in (ml_policy or {}).items() if k != "numNodes"},
                runtime_spec.get("podGroupPolicy"), spec)
    resources = trainjob["spec"].get("trainer", {}).get("resourcesPerNode")
    launcher_as_node = bool((info.mpi or {}).get("runLauncherAsNode"))
    for rjob in spec["replicatedJobs"]:
        job = rjob["template"]
        count = job["spec"].get("parallelism", 1)
        ancestor = job.get("metadata", {}).get("labels", {}).get(ANCESTOR_LABEL)
        if ancestor == TRAINER and ml_policy is not None:
            count = ml_policy.get("numNodes", 1)
        if resources is not None and ((ancestor == TRAINER and ml_policy is not None)
                                      or (launcher_as_node and rjob["name"] == NODE)):
            _merge_resources(job["spec"]["template"]["spec"], resources)
        pod = job["spec"]["template"]["spec"]
        info.pod_sets.append(PodSet(
            rjob["name"], ancestor, max(count, 1),
            containers=[_container(c) for c in pod.get("containers", [])],
            init_containers=[_container(c) for c in pod.get("initContainers", [])],
            volumes=copy.deepcopy(pod.get("volumes", []))))
    return info


def merge_runtime_patches(spec: dict, patches: list[dict]) -> dict:
    """mergeRuntimePatches: each patch's template.spec strategic-merged in turn, then the
    replicatedJobs put back in the runtime's order."""
    order = {rjob["name"]: i for i, rjob in enumerate(spec["replicatedJobs"])}
    for patch in patches:
        spec_patch = patch.get("trainingRuntimeSpec", {}).get("template", {}).get("spec")
        if spec_patch is not None:
            spec = strategic_merge(spec, spec_patch)
    spec["replicatedJobs"].sort(key=lambda rjob: order.get(rjob["name"], 0))
    return spec


def _merge_resources(pod: dict, resources: dict) -> None:
    """The first container named `node` gets resourcesPerNode over its own (MergeResourceRequirements)."""
    for container in pod.get("containers", []):
        if container.get("name") == NODE:
            merged = strategic_merge(container.get("resources", {}), resources)
            container["resources"] = {k: v for k, v in merged.items() if k in ("limits", "requests")}
            return


def _container(container: dict) -> dict:
    return {k: copy.deepcopy(container[k]) for k in CONTAINER_FIELDS if k in container}


def identify_pod_network(info: Info, trainjob: dict) -> None:
    """IdentifyPodNetwork: `<trainjob>-<rjob>-<replica>-<pod>.<subdomain>` for each pod of each
    replicatedJob (PodSets and replicatedJobs by index); the subdomain is the TrainJob's name
    unless the template's network names one."""
    name = trainjob["metadata"]["name"]
    subdomain = info.spec.get("network", {}).get("subdomain", name)
    for ps, rjob in zip(info.pod_sets, info.spec["replicatedJobs"]):
        ps.endpoints = [f"{name}-{rjob['name']}-{r}-{p}.{subdomain}"
                        for r in range(rjob.get("replicas", 1)) for p in range(ps.count)]


def sync_parallel_count(info: Info) -> None:
    """SyncParallelCount: each replicatedJob's parallelism and completions are its PodSet's count."""
    for ps in info.pod_sets:
        for rjob in info.spec["replicatedJobs"]:
            if rjob["name"] == ps.name:
                rjob["template"]["spec"]["parallelism"] = ps.count
                rjob["template"]["spec"]["completions"] = ps.count
                break
