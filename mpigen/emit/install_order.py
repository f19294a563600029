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
_RANK = {kind: rank for rank, kind in enumerate(INSTALL_ORDER)}


def sort_key(obj: dict, first: tuple[str, ...] = ()) -> tuple:
    """Helm's install order; then the custom resources others need first (`first`, in its
    order: the targets' `applied_first`, such as a Trainer runtime, whose webhook refuses a
    TrainJob that names a runtime not there yet); then other custom resources, by kind; then
    namespace, name."""
    kind = obj.get("kind", "")
    meta = obj.get("metadata", {})
    rank = _RANK.get(kind)
    if rank is None:
        rank = len(INSTALL_ORDER) + (first.index(kind) if kind in first else len(first))
    custom = rank == len(INSTALL_ORDER) + len(first)
    return (rank, kind if custom else "", meta.get("namespace", ""), meta.get("name", ""))


def sort_objects(objects: Iterable[dict], first: tuple[str, ...] = ()) -> list[dict]:
    return sorted(objects, key=lambda obj: sort_key(obj, first))
