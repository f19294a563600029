"""mpigen's additions that name the job's own objects, applied once the job has its final
name (a GitOps profile renames it per run), for every target:

- PyTorch and DeepSpeed under mpirun: the ConfigMap <job>-mpigen holding rank-env.sh,
  mounted at /etc/mpigen on the rank pods, and MASTER_ADDR (the first rank host: the
  first line of the hostfile) and MASTER_PORT on the launcher, which forwards them;
- cloud identity (spec.serviceAccount.annotations): the ServiceAccount <job>-identity
  that the workers run as.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from mpigen.compile.environment import RANK_ENV_DIR, RANK_ENV_KEY, RANK_ENV_VOLUME, rendezvous_env
from mpigen.compile.identity import IDENTITY_SUFFIX
from mpigen.compile.mpijob import LAUNCHER, MPIJob, WORKER
from mpigen.compile.names import launcher_name, object_meta, worker_name
from mpigen.kube.data import copy_data
from mpigen.render.parts import scripts

RANK_ENV_SUFFIX = "-mpigen"
RANK_ENV_MODE = 0o555


def rank_env_config_name(job: MPIJob) -> str:
    return job.metadata.name + RANK_ENV_SUFFIX


def identity_name(job: MPIJob) -> str:
    return job.metadata.name + IDENTITY_SUFFIX


def master_addr(job: MPIJob) -> str:
    """The host of rank 0: the first line of the hostfile (pod names resolve on every rank
    host: kubexec.sh copies them into /etc/hosts, and v2beta1 pods search the job's domain)."""
    return launcher_name(job) if job.extensions.runLauncherAsWorker else f"{worker_name(job)}-0"


@dataclass(frozen=True)
class Additions:
    """How a target's pods take mpigen's additions."""

    # The launcher has an account of its own (the static target's <job>-launcher, which
    # carries the same annotations); else it runs as the identity too.
    launcher_service_account: bool = True
    # The address of rank 0's host, where the target's pods are named otherwise than the operator's.
    first_rank_host: Callable[[MPIJob], str] = master_addr


def with_additions(job: MPIJob, additions: Additions = Additions()) -> MPIJob:
    """The job's pod templates with the references to mpigen's objects."""
    ext = job.extensions
    launcher_service_account = additions.launcher_service_account
    if not ext.rankEnv and not ext.workerServiceAccountAnnotations:
        return job
    replicas = {}
    for role, replica in job.spec.mpiReplicaSpecs.items():
        template = copy_data(replica.template)
        pod = template.setdefault("spec", {})
        main = pod["containers"][0]
        if ext.rankEnv and role == LAUNCHER:
            main["env"] = main.get("env", []) + rendezvous_env(additions.first_rank_host(job), main.get("env", []))
        if ext.rankEnv and (role == WORKER or ext.runLauncherAsWorker):
            main["volumeMounts"] = main.get("volumeMounts", []) + [
                {"name": RANK_ENV_VOLUME, "mountPath": RANK_ENV_DIR}]
            pod["volumes"] = pod.get("volumes", []) + [{
                "name": RANK_ENV_VOLUME,
                "configMap": {"name": rank_env_config_name(job),
                              "items": [{"key": RANK_ENV_KEY, "path": RANK_ENV_KEY, "mode": RANK_ENV_MODE}]},
            }]
        if ext.workerServiceAccountAnnotations and (role == WORKER or not launcher_service_account):
            pod["serviceAccountName"] = identity_name(job)
        replicas[role] = replica.model_copy(update={"template": template})
    return job.model_copy(update={"spec": job.spec.model_copy(update={"mpiReplicaSpecs": replicas})})


def addition_objects(job: MPIJob) -> list[dict]:
    objects = []
    if job.extensions.rankEnv:
        objects.append({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": object_meta(job, rank_env_config_name(job), {}),
            "data": {RANK_ENV_KEY: scripts.text(RANK_ENV_KEY)},
        })
    if job.extensions.workerServiceAccountAnnotations:
        meta = object_meta(job, identity_name(job), {})
        meta["annotations"] = dict(job.extensions.workerServiceAccountAnnotations)
        objects.append({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta})
    for obj in objects:
        if not obj["metadata"]["labels"]:
            del obj["metadata"]["labels"]
    return objects
