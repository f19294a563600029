"""A TrainJob's runtimePatches on a runtime the cluster has (shared/reference/targets.md 2.1):
what the blueprint says of the node and launcher pods that the TrainJob has no field for and
that a runtime patch may carry (the Trainer's PodSpecPatch): the pods' volumes (datasets,
shared memory), nodeSelector, tolerations, affinity, imagePullSecrets, account and security
context; the main container's volume mounts and security context; pod labels and annotations.
The launcher gets the workers' volumes and mounts too, in case the runtime runs ranks on it.
What it may not carry is refused, at the blueprint's line (mpigen.render.trainjob.checks)."""

from __future__ import annotations

from mpigen.compile.mpijob import LAUNCHER, WORKER, MPIJob
from mpigen.kube.data import copy_data
from mpigen.render.parts.sshd import allow_root_sshd
from mpigen.render.trainjob import hydra
from mpigen.render.trainjob.names import LAUNCHER_JOB, NODE_CONTAINER, NODE_JOB, PATCH_MANAGER

# PodSpecPatch (TR:pkg/apis/trainer/v1alpha1/trainjob_types.go), in the order a reader looks for them.
POD_FIELDS = ("serviceAccountName", "securityContext", "imagePullSecrets", "nodeSelector", "affinity", "tolerations",
              "schedulingGates", "terminationGracePeriodSeconds", "volumes")
CONTAINER_FIELDS = ("volumeMounts", "securityContext")  # env is not allowed on container node


def replicated_job_patch(name: str, template: dict) -> dict | None:
    pod = template.get("spec", {})
    spec = {key: copy_data(pod[key]) for key in POD_FIELDS if key in pod}
    main = pod["containers"][0]
    container = {key: copy_data(main[key]) for key in CONTAINER_FIELDS if key in main}
    if container:
        spec["containers"] = [{"name": NODE_CONTAINER, **container}]
    patch: dict = {}
    metadata = {key: dict(value) for key, value in template.get("metadata", {}).items() if value}
    if metadata:
        patch["metadata"] = metadata
    if spec:
        patch["spec"] = spec
    if not patch:
        return None
    return {"name": name, "template": {"spec": {"template": patch}}}


def with_rank_mounts(launcher: dict, worker: dict) -> dict:
    """The launcher's pod template with the workers' volumes and mounts added: a runtime of the
    cluster's may run ranks on its launcher (runLauncherAsNode, as the Trainer's own MPI
    runtimes do), and those ranks need what the workers' do (rank-env.sh, /dev/shm, datasets)."""
    launcher = copy_data(launcher)
    pod, rank = launcher.setdefault("spec", {}), worker.get("spec", {})
    names = {v["name"] for v in pod.get("volumes", [])}
    added = [v for v in rank.get("volumes", []) if v["name"] not in names]
    if added:
        pod["volumes"] = pod.get("volumes", []) + copy_data(added)
    main, paths = pod["containers"][0], {m["mountPath"] for m in pod["containers"][0].get("volumeMounts", [])}
    mounts = [m for m in rank["containers"][0].get("volumeMounts", []) if m["mountPath"] not in paths]
    if mounts:
        main["volumeMounts"] = main.get("volumeMounts", []) + copy_data(mounts)
    return launcher


def node_template(job: MPIJob) -> dict:
    """The workers' pod template with what a root sshd needs of the capabilities the main
    container drops (mpigen.render.parts.sshd), as mpigen's own runtime gives its node pods: the
    runtime's node job runs sshd under the security context the patch carries."""
    worker = copy_data(job.spec.mpiReplicaSpecs[WORKER].template)
    if "spec" in worker:
        allow_root_sshd(worker["spec"], job.source.ssh.port)
    return worker


def runtime_patches(job: MPIJob) -> list[dict]:
    worker = node_template(job)
    launcher = with_rank_mounts(job.spec.mpiReplicaSpecs[LAUNCHER].template, worker)
    if hydra.converts(job, named=True):
        launcher = hydra.with_hostfile_folder(launcher)
    jobs = [patch for patch in (replicated_job_patch(NODE_JOB, worker), replicated_job_patch(LAUNCHER_JOB, launcher))
            if patch is not None]
    if not jobs:
        return []
    return [{"manager": PATCH_MANAGER, "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": jobs}}}}]
