"""The fields of Kubernetes' own kinds that the API server refuses to update
(ValidateJobUpdate, ValidateStatefulSetUpdate, ValidateDeploymentUpdate, ValidateServiceUpdate,
ValidateRoleBindingUpdate, ValidateConfigMapUpdate, ValidateSecretUpdate,
ValidatePersistentVolumeClaimUpdate): each function gives the paths that change from the old
object to the new among them."""

from __future__ import annotations

from mpigen.kube.values import equal, get, mapping

JOB_IMMUTABLE = ("template", "selector", "completions", "completionMode", "manualSelector",
                 "podFailurePolicy", "backoffLimitPerIndex", "managedBy")
STATEFULSET_MUTABLE = ("replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit",
                       "persistentVolumeClaimRetentionPolicy", "minReadySeconds")


def _changed(old: dict, new: dict, locs: list[tuple[str, ...]]) -> list[str]:
    return [".".join(loc) for loc in locs if not equal(get(old, *loc), get(new, *loc))]


def _spec_keys(old: dict, new: dict) -> list[str]:
    return sorted(mapping(old.get("spec")).keys() | mapping(new.get("spec")).keys())


def job(old: dict, new: dict) -> list[str]:
    return _changed(old, new, [("spec", name) for name in JOB_IMMUTABLE])


def stateful_set(old: dict, new: dict) -> list[str]:
    return _changed(old, new, [("spec", name) for name in _spec_keys(old, new) if name not in STATEFULSET_MUTABLE])


def selector(old: dict, new: dict) -> list[str]:
    """A Deployment's, DaemonSet's or ReplicaSet's."""
    return _changed(old, new, [("spec", "selector")])


def service(old: dict, new: dict) -> list[str]:
    """The cluster IPs, once set."""
    old_spec = mapping(old.get("spec"))
    return _changed(old, new, [("spec", name) for name in ("clusterIP", "clusterIPs")
                               if old_spec.get(name) not in (None, "", [])])


def role_binding(old: dict, new: dict) -> list[str]:
    """A RoleBinding's or ClusterRoleBinding's."""
    return _changed(old, new, [("roleRef",)])


def config_map(old: dict, new: dict) -> list[str]:
    """All of it, once it is immutable."""
    if old.get("immutable") is not True:
        return []
    return _changed(old, new, [(name,) for name in ("immutable", "data", "binaryData")])


def secret(old: dict, new: dict) -> list[str]:
    """All of it, once it is immutable."""
    if old.get("immutable") is not True:
        return []
    return _changed(old, new, [(name,) for name in ("immutable", "data", "binaryData", "stringData")])


def persistent_volume_claim(old: dict, new: dict) -> list[str]:
    """All of its spec but its resource requests and volume attributes class."""
    resources = (mapping(get(old, "spec", "resources")).keys() | mapping(get(new, "spec", "resources")).keys())
    return _changed(old, new, [("spec", name) for name in _spec_keys(old, new)
                               if name not in ("resources", "volumeAttributesClassName")]
                    + [("spec", "resources", name) for name in sorted(resources) if name != "requests"])
