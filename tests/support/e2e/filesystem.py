"""The pod's filesystem, as its mount namespace will hold it: /etc is an overlay whose
/etc/hosts is the one the kubelet writes, and each volume the container mounts (ConfigMap
items with their modes, read-only; emptyDirs) is bound at its mountPath. Writes to /etc stay
in the pod's overlay, so the machine is left unchanged."""

from __future__ import annotations

import shlex
from pathlib import Path

from tests.support.e2e.errors import Unsupported
from tests.support.e2e.pods import Pod, find


def mount_lines(pod: Pod, objects: list[dict]) -> list[str]:
    """The shell lines that mount the pod's /etc overlay and its volumes, run in its new mount
    namespace; the overlays' upper folders (with /etc/hosts) and the volumes are made first."""
    mounts = volume_mounts(pod, objects)
    tops = sorted({"/etc", *("/" + Path(m).parts[1] for m, _, _ in mounts)})
    lines = []
    for top in tops:
        if not Path(top).is_dir():
            raise Unsupported(f"{pod.name}: cannot create a mount point under {top}, which the machine lacks")
        upper, work = pod.root / "upper" / top[1:], pod.root / "work" / top[1:]
        upper.mkdir(parents=True, exist_ok=True)
        work.mkdir(parents=True, exist_ok=True)
        if top == "/etc":
            (upper / "hosts").write_text(pod.hosts_file())
        lines.append(f"mount -t overlay overlay -o lowerdir={top},upperdir={upper},workdir={work} {top}")
    for mount_path, source, read_only in mounts:
        lines += [f"mkdir -p {shlex.quote(mount_path)}", f"mount --bind {source} {shlex.quote(mount_path)}"]
        if read_only:
            lines.append(f"mount -o remount,bind,ro {shlex.quote(mount_path)}")
    return lines


def volume_mounts(pod: Pod, objects: list[dict]) -> list[tuple[str, Path, bool]]:
    """(mountPath, host folder, read-only) for the first container's mounts."""
    volumes = {v["name"]: v for v in pod.spec.get("volumes", [])}
    mounts = []
    for mount in pod.container.get("volumeMounts", []):
        volume = volumes[mount["name"]]
        folder = pod.volume_dir(volume["name"])
        if not folder.exists():
            folder.mkdir(parents=True)
            if "configMap" in volume:
                project_config_map(objects, volume["configMap"], folder)
            elif "emptyDir" not in volume:
                raise Unsupported(f"{pod.name}: volume {volume['name']}: only configMap and emptyDir are modelled")
        if set(mount) - {"name", "mountPath", "readOnly"}:
            raise Unsupported(f"{pod.name}: volumeMount {mount}: subPath and propagation are not modelled")
        mounts.append((mount["mountPath"], folder, "configMap" in volume or mount.get("readOnly", False)))
    return mounts


def project_config_map(objects: list[dict], source: dict, folder: Path) -> None:
    data = find(objects, "ConfigMap", source["name"])["data"]
    items = source.get("items") or [{"key": k, "path": k} for k in sorted(data)]
    for item in items:
        path = folder / item["path"]
        path.write_text(data[item["key"]])
        path.chmod(item.get("mode", source.get("defaultMode", 0o644)))
