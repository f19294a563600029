"""Kubernetes' own kinds, as Kind entries (mpigen.render.kinds) from the facts of mpigen.kube:
those the targets write (a launcher Job, worker StatefulSet, ConfigMap, RBAC, the MPIJob
CRD), and those a folder mpigen diffs may hold besides; Kueue manages the Job and the
StatefulSet (its batch/job and statefulset integrations). A ConfigMap's slots are its
hostfile's; a StatefulSet's workers are the pods the operator labels as workers."""

from __future__ import annotations

from typing import Callable

from mpigen.kube import immutable, workloads
from mpigen.kube.kueue_immutable import BATCH_JOB_RULES, STATEFULSET_RULES
from mpigen.kube.sizes import MAX_CONFIG_MAP_DATA, config_map_data_size
from mpigen.kube.values import equal, get, whole_number
from mpigen.render.kinds import Admission, Find, Kind, Pods, SizeLimit, every_version

RBAC = "rbac.authorization.k8s.io"
WORKER_ROLE = "worker"  # the operator's mpi_role_type of the workers (mpigen.compile.names.role_labels)


def _alone(pods: Callable[[dict], Pods]) -> Callable[[dict, Find], Pods]:
    """A count that needs no other object of the render."""
    return lambda obj, find: pods(obj)


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


def _config_map_slots(obj: dict, find: Find) -> int:
    hostfile = get(obj, "data", "hostfile")
    return hostfile_slots(hostfile) if isinstance(hostfile, str) else 0


def _stateful_set_workers(obj: dict, find: Find) -> int:
    """Its replicas (default 1) when the operator labels it as the workers (mpi_role_type)."""
    if get(obj, "metadata", "labels", "mpi_role_type") != WORKER_ROLE:
        return 0
    return whole_number(get(obj, "spec", "replicas"), default=1)


# The ConfigMaps of a job that grow are the hostfiles, mpigen's and the controllers': a line a worker.
HOSTFILE_SIZE = SizeLimit(config_map_data_size, MAX_CONFIG_MAP_DATA, "spec.workers",
                          "every worker is a line of its hostfile: lower spec.workers or shorten the job's name")


def _template_changes(old: dict, new: dict) -> bool:
    """A new pod template: the controller's rolling update replaces the pods."""
    return not equal(get(old, "spec", "template"), get(new, "spec", "template"))


def _one_pod_set(obj: dict, find) -> int:
    """A batch Job's Workload has one pod set (Kueue v0.19.2, pkg/controller/jobs/job/job_controller.go
    PodSets); a StatefulSet's pods are one pod group of one role, whose Workload has one pod set
    (pkg/controller/jobs/statefulset marks them a group; pkg/controller/jobs/pod/pod_controller.go
    PodSets: one per role, the hash of the pod's shape)."""
    return 1


TEMPLATE = (".spec.template",)  # the pod template of a workload
KUBERNETES = (
    Kind("", "Pod", "pods", pods=_alone(workloads.pod), pod_templates=(".",)),
    Kind("batch", "Job", "jobs", run=True, pods=_alone(workloads.replicated("parallelism")),
         immutable=immutable.job, admission=Admission(TEMPLATE, ("spec", "suspend")),
         kueue=every_version(BATCH_JOB_RULES), pod_templates=TEMPLATE, pod_sets=_one_pod_set),
    Kind("apps", "StatefulSet", "statefulsets", pods=_alone(workloads.replicated("replicas")),
         workers=_stateful_set_workers, immutable=immutable.stateful_set, restarts_pods=_template_changes,
         kueue=every_version(STATEFULSET_RULES), pod_templates=TEMPLATE, pod_sets=_one_pod_set),
    Kind("apps", "Deployment", "deployments", pods=_alone(workloads.replicated("replicas")),
         immutable=immutable.selector, pod_templates=TEMPLATE),
    Kind("apps", "ReplicaSet", "replicasets", pods=_alone(workloads.replicated("replicas")),
         immutable=immutable.selector, pod_templates=TEMPLATE),
    Kind("apps", "DaemonSet", "daemonsets", immutable=immutable.selector, pod_templates=TEMPLATE),
    Kind("", "Service", "services", immutable=immutable.service),
    Kind("", "ConfigMap", "configmaps", slots=_config_map_slots, immutable=immutable.config_map,
         size_limit=HOSTFILE_SIZE),
    Kind("", "Secret", "secrets", immutable=immutable.secret),
    Kind("", "PersistentVolumeClaim", "persistentvolumeclaims", immutable=immutable.persistent_volume_claim),
    Kind("", "ServiceAccount", "serviceaccounts"),
    Kind(RBAC, "Role", "roles"),
    Kind(RBAC, "RoleBinding", "rolebindings", immutable=immutable.role_binding),
    Kind(RBAC, "ClusterRoleBinding", "clusterrolebindings", cluster_scoped=True, immutable=immutable.role_binding),
    Kind("apiextensions.k8s.io", "CustomResourceDefinition", "customresourcedefinitions", cluster_scoped=True),
)
