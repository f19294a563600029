"""The pod's filesystem, as its mount namespace holds it.

The pod's root is a folder of its own (pod.root/rootfs, the holder chroots into it): each
top-level folder of the machine is bound there unchanged, except those the pod writes to or
mounts volumes under, which are overlays whose upper folders live in pod.root (so writes stay
in the pod and the machine is left unchanged):
- /etc, whose /etc/hosts is the one the kubelet writes (plus what cluster DNS answers, pods.py),
  and whose /etc/shadow is an image's (IMAGE_SHADOW): the machine's may be unreadable to the
  tests' root (root of a user namespace, tests/support/user_namespace.py), and glibc's systemd
  module then reports root's account locked, which sshd refuses;
- the top folder of every volume mount path (after symlinks: /var/run/... is under /run);
- the pod's own overlays (pod.overlays: what its image holds that the machine lacks).
A mount path under a top folder the machine lacks (e.g. /keys) gets a folder in the pod's root,
as a container runtime creates mount points in the image's root.

Each container mounts its own volumes (container_mount_lines) in a mount namespace of its own
(with readOnlyRootFilesystem, then every other mount of the pod's root made read-only),
made from the pod's: containers of one pod share /etc and their volumes' contents, but see only
the volumes they mount, as in Kubernetes.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from tests.support.e2e.errors import Unsupported
from tests.support.e2e.pods import Pod

# root's entry as Debian's base image has it: no password, and not locked (sshd lets root in
# with a key); the image's other users have none, as a user the image's root added without one.
IMAGE_SHADOW = "root:*:19000:0:99999:7:::\n"
READ_ONLY_KINDS = ("configMap", "secret", "projected", "downwardAPI")  # the kubelet mounts these read-only
# readOnlyRootFilesystem: every mount of the pod's root (its folders: binds of the machine's, the
# overlays) read-only in the container's mount namespace, once its volumes are bound (a bind
# takes its source's flags, and the volumes' folders are under the machine's); the volumes, and
# /proc, /dev and /sys (the runtime's own mounts, not the image's file system) stay as they are.
READ_ONLY_ROOT = ("for point in $(cut -d ' ' -f 5 /proc/self/mountinfo); do case $point in {kept}) ;; "
                  '*) mount -o remount,bind,ro "$point";; esac; done')


def rootfs(pod: Pod) -> Path:
    return pod.root / "rootfs"


def pod_containers(pod: Pod) -> list[dict]:
    return [*pod.spec.get("initContainers", []), *pod.spec["containers"]]


def _real(path: str) -> str:
    """The path as the kernel resolves it in the pod (the machine's symlinks, e.g. /var/run -> /run)."""
    return os.path.realpath(path)


def overlay_tops(pod: Pod) -> list[str]:
    tops = {"/etc", *pod.overlays}
    for container in pod_containers(pod):
        for mount in container.get("volumeMounts", []):
            tops.add("/" + Path(_real(mount["mountPath"])).parts[1])
    return sorted(tops)


def pod_root_lines(pod: Pod) -> list[str]:
    """The shell lines, run in the pod's new mount namespace, that build its root folder and
    the mount point of every container's volumes in it; then `chroot rootfs(pod)` enters it."""
    root = rootfs(pod)
    root.mkdir(parents=True)
    tops = overlay_tops(pod)
    lines = []
    for entry in sorted(os.listdir("/")):
        source, target = Path("/", entry), root / entry
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        elif str(source) not in tops:
            if source.is_dir():
                target.mkdir()
                lines.append(f"mount --rbind {shlex.quote(str(source))} {shlex.quote(str(target))}")
            else:
                target.touch()
                lines.append(f"mount --bind {shlex.quote(str(source))} {shlex.quote(str(target))}")
    for top in tops:
        target = root / top[1:]
        target.mkdir(exist_ok=True)
        if not Path(top).is_dir():
            continue  # not on the machine: a plain folder of the pod's root
        upper, work = pod.root / "upper" / top[1:], pod.root / "work" / top[1:]
        upper.mkdir(parents=True, exist_ok=True)
        work.mkdir(parents=True, exist_ok=True)
        if top == "/etc":
            (upper / "hosts").write_text(pod.hosts_file())
            (upper / "shadow").write_text(IMAGE_SHADOW)
            (upper / "shadow").chmod(0o640)
        lines.append(f"mount -t overlay overlay -o lowerdir={top},upperdir={upper},workdir={work} {target}")
    for container in pod_containers(pod):
        for mount in container.get("volumeMounts", []):
            lines.append(f"mkdir -p {shlex.quote(str(root) + _real(mount['mountPath']))}")
    return lines


def container_mount_lines(pod: Pod, container: dict) -> list[str]:
    """The shell lines, run in the container's own mount namespace inside the pod's root, that
    bind each volume the container mounts at its mountPath (read-only when asked, and always
    for configMap, secret, projected and downwardAPI volumes)."""
    volumes = {v["name"]: v for v in pod.spec.get("volumes", [])}
    lines = []
    for mount in container.get("volumeMounts", []):
        if set(mount) - {"name", "mountPath", "readOnly"}:
            raise Unsupported(f"{pod.name}: volumeMount {mount}: subPath and propagation are not modelled")
        volume = volumes[mount["name"]]
        path = shlex.quote(mount["mountPath"])
        lines.append(f"mount --bind {shlex.quote(str(pod.volume_dir(volume['name'])))} {path}")
        if mount.get("readOnly") or any(kind in volume for kind in READ_ONLY_KINDS):
            lines.append(f"mount -o remount,bind,ro {path}")
    if container.get("securityContext", {}).get("readOnlyRootFilesystem"):
        kept = "|".join(["/proc*", "/dev*", "/sys*", *(shlex.quote(m["mountPath"]) for m in container.get(
            "volumeMounts", []))])
        lines.append(READ_ONLY_ROOT.format(kept=kept))
    return lines
