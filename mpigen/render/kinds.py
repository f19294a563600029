"""What mpigen knows of one kind of object it renders (Kind): its REST resource, whether it
is a run, the pods, GPUs, MPI slots and workers it asks of the cluster, the fields the API
server refuses to change, the labels Kueue's webhook refuses to change, where Kueue writes
into it at admission, the schema or model it is validated against, the size the API server
allows it, where its pod templates are, and the objects its controller creates from it.

`mpigen diff` and `validate --server` read these facts through the table of
mpigen.render.targets (Kubernetes' own kinds, KUBERNETES at the end of this module, and each target's),
so that they work for any target without naming its kinds. Every fact but the resource is
optional: a kind without it counts nothing, refuses no change, or has no schema at hand.

Kubernetes' own kinds are Kind entries from the facts of mpigen.kube: those the targets write (a
launcher Job, worker StatefulSet, ConfigMap, RBAC, the MPIJob CRD), and those a folder mpigen
diffs may hold besides; Kueue manages the Job and the StatefulSet (its batch/job and statefulset
integrations). A ConfigMap's slots are its hostfile's; a StatefulSet's workers are the pods the
operator labels as workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from mpigen.kube import immutable, workloads
from mpigen.kube.kueue_immutable import BATCH_JOB_RULES, STATEFULSET_RULES, Rule
from mpigen.kube.sizes import MAX_CONFIG_MAP_DATA, config_map_data_size
from mpigen.kube.values import equal, get, whole_number

# (pods, pod spec) of each group of identical pods an object runs.
Pods = list[tuple[int, dict]]


@dataclass(frozen=True)
class Admission:
    """Where a queueing controller (Kueue) writes into an object once it has been created:
    the pod templates it merges the admitted flavour into (jq paths, as Argo CD's
    ignoreDifferences takes them), the field that suspends the object (a path of keys), and
    whether a client-side apply sends the object as a JSON merge patch (a custom resource,
    which has no strategic merge)."""

    templates: tuple[str, ...]
    suspend: tuple[str, ...]
    merge_patch: bool = False


@dataclass(frozen=True)
class SizeLimit:
    """A limit of a kind's own on what the API server counts of an object (mpigen.kube.sizes),
    over which it refuses the object; and, in a blueprint's words, what makes an object of the
    kind that large in a job: the field it grows with (where the error is reported) and how to
    make it smaller."""

    size: Callable[[dict], int]
    limit: int
    field: str  # a blueprint field, e.g. spec.workers
    advice: str


# Another object of the same render: (API group, kind, namespace, name) -> the object, or
# None when the render has none (the namespace is ignored for a cluster-scoped kind).
Find = Callable[[str, str, str, str], dict | None]


@dataclass(frozen=True)
class Kind:
    """One kind of object, as its API group (\"\" for the core group) and kind name."""

    group: str
    kind: str
    plural: str  # the REST resource: /apis/<group>/<version>/namespaces/<ns>/<plural>/<name>
    cluster_scoped: bool = False
    # Whether the object is a run: adding one starts a run, removing one ends it (a launcher
    # Job, or a custom resource whose controller makes the launcher).
    run: bool = False
    # The pods the object runs, as written (none while it is suspended).
    pods: Callable[[dict, Find], Pods] | None = None
    # The worker pods among them: the hosts of the ranks besides the launcher.
    workers: Callable[[dict, Find], int] | None = None
    # The MPI slots its hostfile, or the hostfile its controller writes, gives the job.
    slots: Callable[[dict, Find], int] | None = None
    # Whether the object, as written, holds its whole job back (a suspended object whose
    # controller makes the pods the job's hostfile names): the job then counts no slots.
    holds_job: Callable[[dict], bool] | None = None
    # The paths (spec.template, spec.replicatedJobs[worker], ...) of the fields the API
    # server refuses to change from the old object to the new: Argo CD and Flux fail to sync.
    immutable: Callable[[dict, dict], list[str]] | None = None
    # apiVersion -> the rules of Kueue's webhook on the object's labels and annotations, when
    # Kueue manages the kind as a job at that version (mpigen.kube.kueue_immutable), else ().
    kueue: Callable[[str], tuple[Rule, ...]] | None = None
    # The pod sets of the Workload Kueue makes of the object when it is queued, as each of
    # Kueue's integrations builds them (its PodSets; mpigen.kube.kueue_limits): None where
    # Kueue does not manage the object as a job, or the count depends on what the render lacks.
    pod_sets: Callable[[dict, Find], int | None] | None = None
    # Whether the change from the old object to the new replaces pods that are running.
    restarts_pods: Callable[[dict, dict], bool] | None = None
    # (apiVersion, Kubernetes version) -> the OpenAPI v3 schema of the object (a CRD's
    # structural schema, whose unknown fields are errors), or None for another version.
    schema: Callable[[str, str], dict | None] | None = None
    # Kueue admits it as a workload (mpigen.render.kueue): where it writes into it.
    admission: Admission | None = None
    # apiVersion -> the pydantic model of the object (imported only when called: its
    # package is needed by validation alone), or None for another version.
    model: Callable[[str], type | None] | None = None
    # A limit of the kind's own on the object's size (a ConfigMap's data): over it, the
    # object is refused (mpigen.render.refusals.oversized).
    size_limit: SizeLimit | None = None
    # The objects its controller creates from it, as the controller writes them, where the
    # object decides their content (the hostfile ConfigMap an MPIJob's operator writes): over
    # their kinds' limits, the controller fails to create them and the job never starts.
    creates: Callable[[dict, Find], list[dict]] | None = None
    # The jq paths of the pod templates it holds, of the pods it or its controller makes,
    # suspended or not: what the namespace's Pod Security level is checked on.
    pod_templates: tuple[str, ...] = ()
    # The key of `versions:` (mpigen.formats.versions) that names the version of its controller
    # the clusters run, and (object as the clusters have it, old version, new version) -> what
    # moving the clusters from the one to the other does to it: (what it says, whether that is
    # a warning), or None for nothing to say.
    versions_key: str | None = None
    upgrade: Callable[[dict, str, str], tuple[str, bool] | None] | None = None
    # object -> the version of `versions_key` mpigen rendered it for, as the object shows it
    # (what `diff --live` compares the cluster's copy with the render's by).
    written_for: Callable[[dict], str] | None = None
    # (object, a pod template's path) -> the init containers its controller adds to the pods
    # of that template, which the object does not hold: checked with them.
    pod_additions: Callable[[dict, str], list[dict]] | None = None


def every_version(rules: tuple[Rule, ...]) -> Callable[[str], tuple[Rule, ...]]:
    """Kueue's rules for the kind at any apiVersion."""
    return lambda api: rules


def group_of(api_version: str) -> str:
    """The API group of an apiVersion: "" for the core group's v1."""
    return api_version.rpartition("/")[0]


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
    Kind("", "Namespace", "namespaces", cluster_scoped=True),
)
