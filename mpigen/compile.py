"""Compile: Blueprint -> MPIJob (kubeflow.org/v1alpha2), the form a user would have written by hand.

Everything the blueprint says goes into the MPIJob's pod templates here; everything the
operator adds (RBAC, hostfile, init container, env, volumes) is the backends' job.
"""

from __future__ import annotations

from typing import Any

from mpigen.blueprint import Blueprint, Dataset, RolePlacement
from mpigen.launch import launcher_command
from mpigen.mpijob import LAUNCHER, WORKER, MPIJob, MPIJobSpec, ObjectMeta, ReplicaSpec

# Container names of the operator's examples; spec.mainContainer replaces both, because
# kubexec.sh then execs into that container on the workers.
LAUNCHER_CONTAINER = "mpi-launcher"
WORKER_CONTAINER = "mpi-worker"


def compile_blueprint(bp: Blueprint) -> MPIJob:
    meta, spec = bp.metadata, bp.spec
    env = [{"name": name, "value": value} for name, value in spec.env.items()]
    volumes = [dataset_volume(d) for d in spec.datasets]

    def template(container: dict[str, Any], placement: RolePlacement) -> dict[str, Any]:
        pod: dict[str, Any] = {"containers": [container]}
        if placement.nodeSelector:
            pod["nodeSelector"] = dict(placement.nodeSelector)
        if placement.tolerations:
            pod["tolerations"] = [t.to_pod_spec() for t in placement.tolerations]
        if volumes:
            pod["volumes"] = [dict(v) for v in volumes]
        tmeta: dict[str, Any] = {}
        if meta.labels:
            tmeta["labels"] = dict(meta.labels)
        if meta.annotations:
            tmeta["annotations"] = dict(meta.annotations)
        return {"metadata": tmeta, "spec": pod} if tmeta else {"spec": pod}

    launcher = _container(spec.mainContainer or LAUNCHER_CONTAINER, spec.image, env,
                          dict(spec.resources.launcher), spec.datasets)
    launcher["command"] = launcher_command(spec)

    worker_limits = dict(spec.resources.worker)
    if spec.gpusPerWorker > 0:
        worker_limits[spec.gpuResource] = str(spec.gpusPerWorker)
    worker = _container(spec.mainContainer or WORKER_CONTAINER, spec.image, env, worker_limits, spec.datasets)
    launcher_template = template(launcher, spec.placement.launcher)
    worker_template = template(worker, spec.placement.worker)

    for role_template, patch in ((launcher_template, spec.podTemplatePatch.launcher),
                                 (worker_template, spec.podTemplatePatch.worker)):
        pod = role_template["spec"]
        pod["containers"][0] = merge_patch(pod["containers"][0], patch.container)
        role_template["spec"] = merge_patch(pod, patch.pod)

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
                LAUNCHER: ReplicaSpec(replicas=1, template=launcher_template),
                WORKER: ReplicaSpec(replicas=spec.workers, template=worker_template),
            },
        ),
    )


def _container(name: str, image: str, env: list[dict], limits: dict[str, str],
               datasets: tuple[Dataset, ...] | list[Dataset]) -> dict[str, Any]:
    container: dict[str, Any] = {"name": name, "image": image}
    if env:
        container["env"] = [dict(e) for e in env]
    if limits:
        # Limits only: Kubernetes sets requests equal to them, and extended resources
        # such as GPUs must have requests == limits anyway.
        container["resources"] = {"limits": limits}
    if datasets:
        container["volumeMounts"] = [dataset_mount(d) for d in datasets]
    return container


def dataset_volume(dataset: Dataset) -> dict[str, Any]:
    if dataset.pvc is not None:
        source: dict[str, Any] = {"persistentVolumeClaim": {"claimName": dataset.pvc}}
    elif dataset.nfs is not None:
        source = {"nfs": {"server": dataset.nfs.server, "path": dataset.nfs.path}}
    else:
        source = {"hostPath": {"path": dataset.hostPath, "type": "Directory"}}
    return {"name": dataset.name, **source}


def dataset_mount(dataset: Dataset) -> dict[str, Any]:
    mount: dict[str, Any] = {"name": dataset.name, "mountPath": dataset.mountPath}
    if dataset.readOnly:
        mount["readOnly"] = True
    return mount


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386: mappings merge key by key, null removes, anything else replaces."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result
