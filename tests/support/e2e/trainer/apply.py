"""The Trainer's list updates (pkg/apply/apply.go at v2.3.0) and the subset of Kubernetes'
strategic merge patch (k8s.io/apimachinery/pkg/util/strategicpatch) that runtimePatches and
resourcesPerNode go through.

upsert: an item whose key equals the new one's is replaced where it stands, else the new one
is appended; env by name (byEnvVarName), volumes by name (byVolumeName), volume mounts by
mountPath (byVolumeMountPath, not by name), ports by containerPort or name.

strategic_merge: maps merge key by key (a null value deletes the key); lists of the fields in
MERGE_KEYS merge item by item on their patchMergeKey (JobSetSpec.replicatedJobs by name,
PodSpec containers, initContainers, volumes, imagePullSecrets by name, Container env by name,
volumeMounts by mountPath, ports by containerPort), an item of the patch that matches none
appended; any other list is replaced by the patch's. Directives ($patch, $retainKeys,
$setElementOrder) are not modelled and refused."""

from __future__ import annotations

import copy

from tests.support.e2e.errors import Unsupported

# patchMergeKey of the list fields a runtime patch reaches (k8s.io/api core/v1 types.go struct tags;
# jobset v1alpha2 ReplicatedJobs: listMapKey name).
MERGE_KEYS = {"replicatedJobs": "name", "containers": "name", "initContainers": "name", "volumes": "name",
              "imagePullSecrets": "name", "env": "name", "volumeMounts": "mountPath", "ports": "containerPort"}


def upsert(items: list[dict], new: dict, same) -> None:
    for i, item in enumerate(items):
        if same(item, new):
            items[i] = new
            return
    items.append(new)


def upsert_env(env: list[dict], *new: dict) -> None:
    for item in new:
        upsert(env, copy.deepcopy(item), lambda a, b: a.get("name") == b.get("name"))


def upsert_volumes(volumes: list[dict], *new: dict) -> None:
    for item in new:
        upsert(volumes, copy.deepcopy(item), lambda a, b: a.get("name") == b.get("name"))


def upsert_volume_mounts(mounts: list[dict], *new: dict) -> None:
    for item in new:
        upsert(mounts, copy.deepcopy(item), lambda a, b: a.get("mountPath") == b.get("mountPath"))


def upsert_ports(ports: list[dict], *new: dict) -> None:
    def same(a: dict, b: dict) -> bool:
        return a.get("containerPort") == b.get("containerPort") or (
            a.get("name") is not None and a.get("name") == b.get("name"))
    for item in new:
        upsert(ports, copy.deepcopy(item), same)


def strategic_merge(original, patch, field: str | None = None):
    """original patched by patch, as StrategicMergePatch does for the fields it meets."""
    if isinstance(patch, dict) and isinstance(original, dict):
        if any(k.startswith("$") for k in patch):
            raise Unsupported(f"strategic merge directive {sorted(k for k in patch if k.startswith('$'))}")
        merged = copy.deepcopy(original)
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
            elif key in merged:
                merged[key] = strategic_merge(merged[key], value, key)
            else:
                merged[key] = copy.deepcopy(value)
        return merged
    if isinstance(patch, list) and isinstance(original, list) and field in MERGE_KEYS:
        key = MERGE_KEYS[field]
        merged = copy.deepcopy(original)
        for item in patch:
            at = next((i for i, o in enumerate(merged) if o.get(key) == item.get(key)), None)
            if at is None:
                merged.append(copy.deepcopy(item))
            else:
                merged[at] = strategic_merge(merged[at], item, None)
        return merged
    return copy.deepcopy(patch)
