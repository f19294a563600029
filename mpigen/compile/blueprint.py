"""Compile: Blueprint -> MPIJob (kubeflow.org/v1alpha2), the form a user would have written by hand.

Everything the blueprint says goes into the MPIJob's pod templates here; everything the
operator adds (RBAC, hostfile, init container, volumes, the launcher's variables) is the
targets' job, and so is what names the job's own objects (mpigen.render.parts.additions),
because a GitOps profile renames the job after compilation. What only one target reads of
the blueprint, it reads in the spec the job keeps (MPIJob.source).

Rank pods are the pods that run MPI ranks: the workers, and the launcher when it is a
worker too (spec.launcher.runAsWorker). Only they get accelerators, shared memory, RDMA
devices, the host network, secondary networks and added capabilities.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mpigen.formats.blueprint import Blueprint, Spec
from mpigen.formats.datasets import Dataset, Ephemeral
from mpigen.formats.placement import RolePlacement
from mpigen.kube.merge_patch import merge_patch
from mpigen.compile.environment import env_list, uses_rank_env
from mpigen.compile.launch import launcher_command
from mpigen.compile.mpijob import (LAUNCHER, WORKER, Extensions, GangScheduling, MPIJob, MPIJobSpec, ObjectMeta,
                           ReplicaSpec)
from mpigen.kube.labels import EXCLUSIVE_LABEL, HOSTNAME_TOPOLOGY, JOB_LABEL, MULTUS_NETWORKS
from mpigen.kube.quantity import format_quantity, parse

# Container names of the operator's examples; spec.mainContainer replaces both, because
# kubexec.sh then execs into that container on the workers, and a role's containerName its own.
LAUNCHER_CONTAINER = "mpi-launcher"
WORKER_CONTAINER = "mpi-worker"

SHM_VOLUME = "dshm"
SHM_MOUNT = "/dev/shm"
SHM_PER_GPU = Fraction(2**30)  # 1Gi per GPU by default (NCCL's shared-memory transport, DataLoader workers)
DOWNLOAD_PREFIX = "download-"


def compile_blueprint(bp: Blueprint) -> MPIJob:
    meta, spec = bp.metadata, bp.spec
    launcher = _template(bp, LAUNCHER, rank=spec.launcher.runAsWorker)
    worker = _template(bp, WORKER, rank=True)
    return MPIJob(
        metadata=ObjectMeta(name=meta.name, namespace=meta.namespace,
                            labels=dict(meta.labels), annotations=dict(meta.annotations)),
        spec=MPIJobSpec(
            slotsPerWorker=spec.slots,
            backoffLimit=spec.runPolicy.backoffLimit,
            activeDeadlineSeconds=spec.runPolicy.activeDeadlineSeconds,
            cleanPodPolicy=spec.runPolicy.cleanPodPolicy,
            mainContainer=spec.mainContainer,
            mpiDistribution=spec.mpiImplementation,
            mpiReplicaSpecs={
                LAUNCHER: ReplicaSpec(replicas=1, template=launcher),
                WORKER: ReplicaSpec(replicas=spec.workers, template=worker),
            },
        ),
        extensions=extensions(spec),
        source=spec,
    )


def extensions(spec: Spec) -> Extensions:
    gang = spec.scheduling.gang
    return Extensions(
        gang=None if gang is None else GangScheduling(
            scheduler=gang.scheduler, schedulerName=gang.scheduler_name, minAvailable=gang.minAvailable,
            queue=gang.queue, scheduleTimeoutSeconds=gang.scheduleTimeoutSeconds),
        queue=spec.scheduling.queue,
        priorityClass=spec.scheduling.priorityClass,
        topology=spec.scheduling.topology,
        multiKueue=spec.scheduling.multiKueue,
        runLauncherAsWorker=spec.launcher.runAsWorker,
        launchLine=spec.launcherCommand is None,
        rankEnv=uses_rank_env(spec),
        workerServiceAccountAnnotations=dict(spec.serviceAccount.annotations),
    )


def shared_memory(spec: Spec) -> str | None:
    """The size of /dev/shm in rank pods, or None for the runtime's default (64 MiB)."""
    if spec.sharedMemory is not None:
        return spec.sharedMemory if parse(spec.sharedMemory) > 0 else None
    if spec.gpusPerWorker == 0:
        return None
    size = spec.gpusPerWorker * SHM_PER_GPU
    limits = [spec.resources.worker.get("memory")]
    if spec.launcher.runAsWorker:  # the launcher gets the same /dev/shm within its own limit
        limits.append(spec.resources.launcher.get("memory"))
    for memory in limits:
        if memory is not None:
            size = min(size, parse(memory) / 2)
    return format_quantity(size, binary=True)


def _template(bp: Blueprint, role: str, rank: bool) -> dict[str, Any]:
    """The pod template of a role, as a user would write it into mpiReplicaSpecs."""
    spec = bp.spec
    placement = spec.placement.launcher if role == LAUNCHER else spec.placement.worker
    shm = shared_memory(spec) if rank else None
    container = _container(spec, role, rank, shm)
    pod: dict[str, Any] = {"containers": [container]}
    if role == LAUNCHER:
        downloads = [_download(spec, d) for d in spec.datasets if d.download is not None]
        if downloads:
            pod["initContainers"] = downloads
    _place(pod, placement)
    exclusive = rank and _one_pod_per_node(spec)
    if exclusive:
        _repel_rank_hosts(pod, bp.metadata.name)
    if rank and spec.network.hostNetwork:
        pod["hostNetwork"] = True
        pod["dnsPolicy"] = "ClusterFirstWithHostNet"  # else pods cannot resolve cluster names
    security = spec.security.model_dump(include={"runAsUser", "runAsGroup", "fsGroup", "runAsNonRoot",
                                                 "seccompProfile"},
                                        exclude_none=True)
    if security:
        pod["securityContext"] = security
    if spec.imagePullSecrets:
        pod["imagePullSecrets"] = [{"name": name} for name in spec.imagePullSecrets]
    if role == WORKER and spec.serviceAccount.name:
        pod["serviceAccountName"] = spec.serviceAccount.name
    volumes = [dataset_volume(d) for d in spec.datasets]
    if shm:
        volumes.append({"name": SHM_VOLUME, "emptyDir": {"medium": "Memory", "sizeLimit": shm}})
    if volumes:
        pod["volumes"] = volumes

    patch = spec.podTemplatePatch.launcher if role == LAUNCHER else spec.podTemplatePatch.worker
    metadata: dict[str, Any] = {}
    labels = {**bp.metadata.labels, **patch.metadata.labels}
    if exclusive:
        labels.update({JOB_LABEL: bp.metadata.name, EXCLUSIVE_LABEL: "true"})
    annotations = {**bp.metadata.annotations, **patch.metadata.annotations}
    if rank and spec.network.secondaryNetworks:
        annotations[MULTUS_NETWORKS] = ",".join(spec.network.secondaryNetworks)
    if labels:
        metadata["labels"] = labels
    if annotations:
        metadata["annotations"] = annotations

    pod["containers"][0] = merge_patch(pod["containers"][0], patch.container)
    pod = merge_patch(pod, patch.pod)
    return {"metadata": metadata, "spec": pod} if metadata else {"spec": pod}


def main_container_name(spec: Spec, role: str) -> str:
    """The name of a role's MPI container: spec.mainContainer, else the role's
    podTemplatePatch.<role>.containerName, else the operator examples' name."""
    own = (spec.podTemplatePatch.launcher if role == LAUNCHER else spec.podTemplatePatch.worker).containerName
    return spec.mainContainer or own or (LAUNCHER_CONTAINER if role == LAUNCHER else WORKER_CONTAINER)


def _container(spec: Spec, role: str, rank: bool, shm: str | None) -> dict[str, Any]:
    container: dict[str, Any] = {"name": main_container_name(spec, role), "image": spec.image}
    if role == LAUNCHER:
        container["command"] = launcher_command(spec)
    if spec.env:
        container["env"] = env_list(spec.env)
    limits = dict(spec.resources.launcher if role == LAUNCHER else spec.resources.worker)
    if rank:
        if spec.gpusPerWorker > 0:
            limits[spec.gpuResource] = str(spec.gpusPerWorker)
        if spec.network.rdma is not None:
            limits[spec.network.rdma.resource] = str(spec.network.rdma.count)
    if limits:
        # Limits only: Kubernetes sets requests equal to them, and extended resources
        # such as GPUs must have requests == limits anyway.
        container["resources"] = {"limits": limits}
    mounts = [dataset_mount(d) for d in spec.datasets]
    if shm:
        mounts.append({"name": SHM_VOLUME, "mountPath": SHM_MOUNT})
    if mounts:
        container["volumeMounts"] = mounts
    capabilities: list[str] = []
    if rank:
        capabilities = list(spec.security.capabilities)
        if spec.network.rdma is not None and spec.network.rdma.ipcLock and "IPC_LOCK" not in capabilities:
            capabilities.insert(0, "IPC_LOCK")  # RDMA registers (pins) memory
    container["securityContext"] = least_privilege(capabilities, rank and spec.security.privileged)
    return container


def least_privilege(capabilities: list[str], privileged: bool = False) -> dict[str, Any]:
    """The securityContext of every container mpigen writes: no privilege escalation (setuid
    binaries, file capabilities) and no capability but those the blueprint asks for. Ranks
    need none under kubectl exec (tests/system/test_e2e_mpi.py runs them so). A privileged container,
    asked for in so many words, gets everything, and Kubernetes refuses
    allowPrivilegeEscalation: false beside it."""
    if privileged:
        context: dict[str, Any] = {"privileged": True}
        if capabilities:
            context["capabilities"] = {"add": capabilities}
        return context
    granted: dict[str, Any] = {"drop": ["ALL"]}
    if capabilities:
        granted["add"] = capabilities
    return {"allowPrivilegeEscalation": False, "capabilities": granted}


def _download(spec: Spec, dataset: Dataset) -> dict[str, Any]:
    step = dataset.download
    container: dict[str, Any] = {"name": DOWNLOAD_PREFIX + dataset.name, "image": step.image or spec.image,
                                 "command": list(step.command)}
    if step.env:
        container["env"] = env_list(step.env)
    container["volumeMounts"] = [{"name": dataset.name, "mountPath": dataset.mountPath}]
    container["securityContext"] = least_privilege([])
    return container


def _place(pod: dict[str, Any], placement: RolePlacement) -> None:
    if placement.nodeSelector:
        pod["nodeSelector"] = dict(placement.nodeSelector)
    if placement.tolerations:
        pod["tolerations"] = [t.to_pod_spec() for t in placement.tolerations]
    if placement.affinity:
        pod["affinity"] = merge_patch({}, dict(placement.affinity))
    if placement.priorityClassName:
        pod["priorityClassName"] = placement.priorityClassName


def _one_pod_per_node(spec: Spec) -> bool:
    explicit = spec.placement.worker.onePodPerNode
    return explicit if explicit is not None else spec.network.hostNetwork


def _repel_rank_hosts(pod: dict[str, Any], job: str) -> None:
    """A required anti-affinity against the job's other rank pods on the same node."""
    term = {"labelSelector": {"matchLabels": {JOB_LABEL: job, EXCLUSIVE_LABEL: "true"}},
            "topologyKey": HOSTNAME_TOPOLOGY}
    anti = pod.setdefault("affinity", {}).setdefault("podAntiAffinity", {})
    anti["requiredDuringSchedulingIgnoredDuringExecution"] = [
        *anti.get("requiredDuringSchedulingIgnoredDuringExecution", []), term]


def dataset_volume(dataset: Dataset) -> dict[str, Any]:
    if dataset.pvc is not None:
        source: dict[str, Any] = {"persistentVolumeClaim": {"claimName": dataset.pvc}}
    elif dataset.nfs is not None:
        source = {"nfs": {"server": dataset.nfs.server, "path": dataset.nfs.path}}
    elif dataset.hostPath is not None:
        source = {"hostPath": {"path": dataset.hostPath, "type": "Directory"}}
    elif dataset.csi is not None:
        csi: dict[str, Any] = {"driver": dataset.csi.driver}
        if dataset.readOnly:
            csi["readOnly"] = True
        if dataset.csi.volumeAttributes:
            csi["volumeAttributes"] = dict(dataset.csi.volumeAttributes)
        if dataset.csi.nodePublishSecret:
            csi["nodePublishSecretRef"] = {"name": dataset.csi.nodePublishSecret}
        source = {"csi": csi}
    elif dataset.configMap is not None:
        source = {"configMap": {"name": dataset.configMap}}
    elif dataset.emptyDir is not None:
        source = {"emptyDir": dataset.emptyDir.model_dump(exclude_defaults=True)}
    elif dataset.ephemeral is not None:
        source = {"ephemeral": {"volumeClaimTemplate": {"spec": ephemeral_claim(dataset.ephemeral)}}}
    else:
        source = {"secret": {"secretName": dataset.secret}}
    return {"name": dataset.name, **source}


def ephemeral_claim(ephemeral: Ephemeral) -> dict[str, Any]:
    """The claim spec of a generic ephemeral volume: ReadWriteOnce, since each pod gets a claim
    of its own (kubernetes staging/src/k8s.io/component-helpers/storage/ephemeral/ephemeral.go
    VolumeClaimName: the claim <pod>-<volume>, controlled by the pod)."""
    claim: dict[str, Any] = {"accessModes": ["ReadWriteOnce"]}
    if ephemeral.storageClass is not None:
        claim["storageClassName"] = ephemeral.storageClass
    claim["resources"] = {"requests": {"storage": ephemeral.size}}
    return claim


def dataset_mount(dataset: Dataset) -> dict[str, Any]:
    mount: dict[str, Any] = {"name": dataset.name, "mountPath": dataset.mountPath}
    if dataset.readOnly or dataset.configMap is not None or dataset.secret is not None:
        mount["readOnly"] = True
    return mount
