"""The order objects are written and applied in: Helm's install order (Argo CD's too), then
namespace, then name, so that a stream or a kustomization lists what an object needs
before it, and the order never depends on the order of rendering."""

from __future__ import annotations

from typing import Iterable

# helm.sh/helm pkg/release/v1/util/kind_sorter.go InstallOrder (= Argo CD's kindOrder).
INSTALL_ORDER = (
    "PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange",
    "PodSecurityPolicy", "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList",
    "ConfigMap", "StorageClass", "PersistentVolume", "PersistentVolumeClaim",
    "CustomResourceDefinition", "ClusterRole", "ClusterRoleList", "ClusterRoleBinding",
    "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList", "Service",
    "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
    "HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress",
    "APIService", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
)
# Among custom resources, a Kubeflow Trainer runtime goes before the TrainJobs that reference
# it: the Trainer's webhook refuses a TrainJob whose runtime does not exist yet.
CUSTOM_FIRST = ("ClusterTrainingRuntime", "TrainingRuntime")
_RANK = {kind: rank for rank, kind in enumerate(INSTALL_ORDER + CUSTOM_FIRST)}
_CUSTOM = len(INSTALL_ORDER) + len(CUSTOM_FIRST)


def sort_key(obj: dict) -> tuple:
    """Helm's install order; unknown kinds (custom resources) last, runtimes first, then by kind; then namespace, name."""
    kind = obj.get("kind", "")
    meta = obj.get("metadata", {})
    rank = _RANK.get(kind, _CUSTOM)
    return (rank, kind if rank == _CUSTOM else "", meta.get("namespace", ""), meta.get("name", ""))


def sort_objects(objects: Iterable[dict]) -> list[dict]:
    return sorted(objects, key=sort_key)
