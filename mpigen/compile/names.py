"""Names, labels and mounts the v1alpha2 controller uses (MO@c5c0c3e mpi_job_controller.go)."""

from __future__ import annotations

from mpigen.compile.mpijob import MPIJob
from mpigen.kube.data import copy_data

CONFIG_SUFFIX = "-config"
LAUNCHER_SUFFIX = "-launcher"
WORKER_SUFFIX = "-worker"

CONFIG_VOLUME = "mpi-job-config"
KUBECTL_VOLUME = "mpi-job-kubectl"
KUBECTL_MOUNT = "/opt/kube"
# Where the operator mounts its ConfigMap on the launcher, which the launcher's variables point to.
CONFIG_MOUNT = "/etc/mpi"
KUBEXEC_KEY = "kubexec.sh"
HOSTFILE_KEY = "hostfile"
KUBEXEC_PATH = f"{CONFIG_MOUNT}/{KUBEXEC_KEY}"
HOSTFILE_PATH = f"{CONFIG_MOUNT}/{HOSTFILE_KEY}"
KUBEXEC_MODE = 0o555  # serialized as 365
HOSTFILE_MODE = 0o444  # serialized as 292


def config_name(job: MPIJob) -> str:
    return job.metadata.name + CONFIG_SUFFIX


def launcher_name(job: MPIJob) -> str:
    return job.metadata.name + LAUNCHER_SUFFIX


def worker_name(job: MPIJob) -> str:
    return job.metadata.name + WORKER_SUFFIX


def worker_pod_names(job: MPIJob) -> list[str]:
    return [f"{worker_name(job)}-{i}" for i in range(job.workers)]


# Every label key the controller writes (app_labels and role_labels).
OPERATOR_LABEL_KEYS = ("app", "group_name", "mpi_job_name", "mpi_role_type")


def app_labels(job: MPIJob) -> dict[str, str]:
    """ConfigMap, ServiceAccount, Role and RoleBinding carry {app: <job>}."""
    return {"app": job.metadata.name}


def role_labels(job: MPIJob, role: str) -> dict[str, str]:
    """StatefulSet and Job metadata, selector and pod template labels (underscored keys)."""
    return {"group_name": "kubeflow.org", "mpi_job_name": job.metadata.name, "mpi_role_type": role}


def object_meta(job: MPIJob, name: str, labels: dict[str, str]) -> dict:
    return {"name": name, "namespace": job.metadata.namespace, "labels": dict(labels)}


def pod_template(template: dict, labels: dict[str, str]) -> tuple[dict, dict]:
    """A deep copy of a replica's pod template with the operator's labels written over the
    template's own (the controller's values win), and its pod spec."""
    template = copy_data(template)
    meta = template.setdefault("metadata", {})
    meta["labels"] = {**meta.get("labels", {}), **labels}
    return template, template.setdefault("spec", {})
