"""The pod's volumes as the kubelet writes them, before its containers start: a folder per
volume in pod.root/volumes, bound into each container that mounts it (filesystem.py).

- emptyDir: an empty folder of mode 0777 (pkg/volume/emptydir);
- configMap, secret: the items (or every key) with their mode (item mode, else defaultMode,
  else 0644); a Secret's data is base64 and written decoded;
- projected: its sources (configMap, secret, downwardAPI fieldRef, serviceAccountToken)
  in one folder, defaultMode 0644. The token is a file holding a token the pretend API server
  issued for the pod's ServiceAccount (tokens.py), not a signed JWT.
Files are owned by root. With the pod's fsGroup, as pkg/volume/volume_linux.go
SetVolumeOwnership does for these read-only volumes: group fsGroup, mode | 0440, and the
folders setgid. A Secret or ConfigMap that does not exist fails the pod's start (MountFailed;
the kubelet would retry until it appears, which the cluster orders instead).
"""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Protocol

from tests.support.e2e.downward import field_value
from tests.support.e2e.errors import Unsupported
from tests.support.e2e.pods import Pod, find

DEFAULT_MODE = 0o644


class MountFailed(Exception):
    """A volume's source does not exist: the kubelet cannot start the pod."""


class Sources(Protocol):
    objects: list[dict]

    def secret(self, namespace: str, name: str) -> dict | None: ...

    def issue_token(self, pod: Pod) -> str: ...


def prepare_volumes(pod: Pod, cluster: Sources) -> None:
    """Write every volume of the pod into its folder."""
    group = pod.spec.get("securityContext", {}).get("fsGroup")
    for volume in pod.spec.get("volumes", []):
        folder = pod.volume_dir(volume["name"])
        folder.mkdir(parents=True)
        if "emptyDir" in volume:
            folder.chmod(0o777)
            _own(folder, group, writable=True)
            continue
        if "configMap" in volume:
            _items(folder, _config_map(cluster, pod, volume["configMap"]), volume["configMap"], False)
        elif "secret" in volume:
            _items(folder, _secret(cluster, pod, volume["secret"]["secretName"]), volume["secret"], True)
        elif "projected" in volume:
            _projected(folder, cluster, pod, volume["projected"])
        else:
            raise Unsupported(f"{pod.name}: volume {volume['name']}: only emptyDir, configMap, secret and projected "
                              "are modelled")
        for path in [folder, *folder.rglob("*")]:
            _own(path, group, writable=False)


def _config_map(cluster: Sources, pod: Pod, source: dict) -> dict[str, bytes]:
    if source["name"] == "kube-root-ca.crt":  # published in every namespace by kube-controller-manager
        return {"ca.crt": b"-----BEGIN CERTIFICATE-----\n(the pretend cluster's CA)\n-----END CERTIFICATE-----\n"}
    found = [o for o in cluster.objects if o["kind"] == "ConfigMap" and o["metadata"]["name"] == source["name"]]
    if not found:
        raise MountFailed(f'{pod.name}: configmap "{source["name"]}" not found')
    return {k: v.encode() for k, v in find(cluster.objects, "ConfigMap", source["name"])["data"].items()}


def _secret(cluster: Sources, pod: Pod, name: str) -> dict[str, bytes]:
    secret = cluster.secret(pod.namespace, name)
    if secret is None:
        raise MountFailed(f'{pod.name}: MountVolume.SetUp failed: secret "{name}" not found')
    return {k: base64.b64decode(v) for k, v in secret.get("data", {}).items()}


def _items(folder: Path, data: dict[str, bytes], source: dict, secret: bool, default: int | None = None) -> None:
    mode = source.get("defaultMode", DEFAULT_MODE if default is None else default)
    items = source.get("items") or [{"key": k, "path": k} for k in sorted(data)]
    for item in items:
        if item["key"] not in data:
            kind = "secret" if secret else "configmap"
            raise MountFailed(f"{folder.name}: {kind} has no key {item['key']!r}")
        path = folder / item["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data[item["key"]])
        path.chmod(item.get("mode", mode))


def _projected(folder: Path, cluster: Sources, pod: Pod, projected: dict) -> None:
    mode = projected.get("defaultMode", DEFAULT_MODE)
    for source in projected["sources"]:
        if "configMap" in source:
            _items(folder, _config_map(cluster, pod, source["configMap"]), source["configMap"], False, mode)
        elif "secret" in source:
            _items(folder, _secret(cluster, pod, source["secret"]["name"]), source["secret"], True, mode)
        elif "downwardAPI" in source:
            for item in source["downwardAPI"]["items"]:
                path = folder / item["path"]
                path.write_text(field_value(pod, item["fieldRef"]["fieldPath"]))
                path.chmod(item.get("mode", mode))
        elif "serviceAccountToken" in source:
            path = folder / source["serviceAccountToken"]["path"]
            path.write_text(cluster.issue_token(pod))
            path.chmod(mode)
        else:
            raise Unsupported(f"{pod.name}: projected source {sorted(source)} is not modelled")


def _own(path: Path, group: int | None, writable: bool) -> None:
    if group is None:
        return
    os.lchown(path, 0, group)
    if path.is_symlink():
        return
    mode = path.stat().st_mode & 0o7777
    mode |= 0o660 if writable else 0o440
    if path.is_dir():
        mode |= 0o2000 | 0o110
    path.chmod(mode)
