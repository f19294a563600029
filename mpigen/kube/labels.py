"""Label and annotation keys written or read across mpigen's stages, each defined once.

The MPI Operator's own label keys (app, group_name, mpi_job_name, mpi_role_type) belong
to the static target (mpigen.compile.names), which writes them as the controller does.
"""

from __future__ import annotations

# mpigen's own keys
MANAGED_BY = "app.kubernetes.io/managed-by"
# Flux's kustomize-controller skips the post-build substitution of an object that carries it as a
# label or an annotation, with the value "disabled" (fluxcd/pkg kustomize/kustomize_varsub.go)
FLUX_SUBSTITUTE = "kustomize.toolkit.fluxcd.io/substitute"
MPIGEN_PREFIX = "mpigen.dev/"  # label and annotation keys reserved for mpigen
JOB_LABEL = MPIGEN_PREFIX + "job"  # every object of a job, and its rank pods under onePodPerNode
RUN_LABEL = MPIGEN_PREFIX + "run"  # the run identity, under a GitOps profile
# On an MPIJob, the gang scheduler its blueprint asks for (spec.scheduling.gang.scheduler) and a
# schedulerName other than that scheduler's own: the operator's --gang-scheduling flag says it
# on the cluster, so that only import and a reader of the MPIJob learn it from these.
GANG_SCHEDULER_ANNOTATION = MPIGEN_PREFIX + "gang-scheduler"
GANG_SCHEDULER_NAME_ANNOTATION = MPIGEN_PREFIX + "gang-scheduler-name"
EXCLUSIVE_LABEL = MPIGEN_PREFIX + "rank-host"  # rank pods that must not share a node (onePodPerNode)

# Kubernetes and the schedulers
HOSTNAME_TOPOLOGY = "kubernetes.io/hostname"
KUEUE_QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
KUEUE_PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"  # a WorkloadPriorityClass
# Kueue's other keys its webhook keeps on a running job (mpigen.kube.kueue_immutable); mpigen writes none
KUEUE_MAX_EXEC_TIME_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
KUEUE_PREBUILT_WORKLOAD = "kueue.x-k8s.io/prebuilt-workload-name"  # a label, or an annotation
KUEUE_ELASTIC_JOB_ANNOTATION = "kueue.x-k8s.io/elastic-job"
KUEUE_ADMISSION_GATED_BY_ANNOTATION = "kueue.x-k8s.io/admission-gated-by"
KUEUE_COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION = "kueue.x-k8s.io/job-completions-equal-parallelism"  # a batch Job's
# Topology Aware Scheduling: pod-template annotations, by the blueprint's spec.scheduling.topology key
KUEUE_TOPOLOGY_ANNOTATIONS = {"required": "kueue.x-k8s.io/podset-required-topology",
                              "preferred": "kueue.x-k8s.io/podset-preferred-topology"}
MULTIKUEUE = "kueue.x-k8s.io/multikueue"  # the managedBy value MultiKueue dispatches
MULTUS_NETWORKS = "k8s.v1.cni.cncf.io/networks"  # secondary networks (Multus)
GROUP_NAME_ANNOTATION = "scheduling.k8s.io/group-name"  # Volcano and kube-batch
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"  # scheduler-plugins
VOLCANO_QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"  # on the MPIJob, the operator's fallback
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"

# GitOps controllers
ARGOCD_SYNC_WAVE = "argocd.argoproj.io/sync-wave"
ARGOCD_SYNC_OPTIONS = "argocd.argoproj.io/sync-options"
FLUX_SSA = "kustomize.toolkit.fluxcd.io/ssa"
FLUX_PRUNE = "kustomize.toolkit.fluxcd.io/prune"


def topology_annotation(required: str | None, preferred: str | None) -> tuple[str, str]:
    """Kueue's pod-template annotation (key, node label) for a required or preferred level."""
    if required is not None:
        return KUEUE_TOPOLOGY_ANNOTATIONS["required"], required
    return KUEUE_TOPOLOGY_ANNOTATIONS["preferred"], preferred
ARGOCD_COMPARE_OPTIONS = "argocd.argoproj.io/compare-options"


def mpigens_own(key: str) -> bool:
    """Whether a label or annotation key is one mpigen writes itself (import drops them, a
    blueprint may not give them)."""
    return key.startswith(MPIGEN_PREFIX) or key in (MANAGED_BY, FLUX_SUBSTITUTE)
