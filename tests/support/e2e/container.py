"""A command run "in a container": it enters the pod's namespaces (network, mount, UTS, IPC) and
root, mounts the container's volumes in a mount namespace of its own (filesystem.py), and takes
the container's rendered env (literals and downward API fields, and nothing of the test's),
working directory and securityContext: the user and group, the pod's fsGroup and
supplementalGroups as supplementary groups, no_new_privs for `allowPrivilegeEscalation: false`,
and a capability bounding set of the container runtime's default set, minus `drop`, plus `add`
(all of them when privileged). The image is the machine with the copy of this venv every user may
run (image.pod_image; its env: `image_env`), except where an image is modelled by name (`images`:
env and entrypoint, e.g. kubectl's, jobset_cluster.py)."""

from __future__ import annotations

from tests.support.e2e.downward import env_value
from tests.support.e2e.errors import CommandFailed, Unsupported
from tests.support.e2e.filesystem import container_mount_lines
from tests.support.e2e.image import pod_image
from tests.support.e2e.pods import Pod

# The capabilities containerd and CRI-O give a container that asks for no change
# (containerd: pkg/oci/spec.go defaultUnixCaps).
RUNTIME_DEFAULT_CAPS = ("CHOWN", "DAC_OVERRIDE", "FSETID", "FOWNER", "MKNOD", "NET_RAW", "SETGID", "SETUID",
                        "SETFCAP", "SETPCAP", "NET_BIND_SERVICE", "SYS_CHROOT", "KILL", "AUDIT_WRITE")
SUPPORTED_SECURITY = {"allowPrivilegeEscalation", "capabilities", "privileged", "runAsUser", "runAsGroup",
                      "runAsNonRoot", "readOnlyRootFilesystem"}  # the last: filesystem.py


def container_argv(pod: Pod, command: list[str], image_env: dict[str, str], env: dict[str, str] | None = None,
                   drop_env: tuple[str, ...] = (), container: dict | None = None) -> list[str]:
    """The argv that runs `command` in a container of the pod (default: the first), with its
    env, volumes and restrictions."""
    container = container or pod.container
    security = {**pod.spec.get("securityContext", {}), **container.get("securityContext", {})}
    unknown = set(container.get("securityContext", {})) - SUPPORTED_SECURITY
    if unknown:
        raise Unsupported(f"{pod.name}: securityContext fields {sorted(unknown)} are not modelled")
    environment = {"PATH": f"{pod_image().bin}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                   "HOME": "/root", "HOSTNAME": pod.uts_name, **image_env,
                   **{item["name"]: env_value(pod, item) for item in container.get("env", [])}, **(env or {})}
    if container.get("envFrom"):
        raise Unsupported(f"{pod.name}: envFrom is not modelled")
    for name in drop_env:
        del environment[name]
    mounts = "\n".join(["set -e", *container_mount_lines(pod, container), 'exec "$@"'])
    return ["nsenter", "-t", str(pod.holder.pid), "-m", "-u", "-i", "-n", "-r", "-w", "--",
            "unshare", "--mount", "--propagation", "unchanged", "--", "/bin/sh", "-c", mounts, "mount",
            "setpriv", *_privileges(pod, security), "--",
            "env", "-i", "--chdir", container.get("workingDir", "/"),
            *(f"{k}={v}" for k, v in environment.items()), *command]


def _privileges(pod: Pod, security: dict) -> list[str]:
    caps = set(RUNTIME_DEFAULT_CAPS)
    if security.get("privileged"):
        caps = {"ALL"}
    else:
        drop = set(security.get("capabilities", {}).get("drop", []))
        caps = set() if "ALL" in drop else caps - drop
        caps |= set(security.get("capabilities", {}).get("add", []))
    priv = ["--bounding-set", "+all" if caps == {"ALL"} else ",".join(["-all", *(f"+{c.lower()}" for c in sorted(caps))])]
    if security.get("allowPrivilegeEscalation") is False:
        priv.append("--no-new-privs")
    uid = security.get("runAsUser")
    if security.get("runAsNonRoot") and not uid:
        raise CommandFailed(f"{pod.name}: container has runAsNonRoot and would run as root")
    if uid is not None:
        priv += ["--reuid", str(uid), "--regid", str(security.get("runAsGroup", uid))]
    groups = [g for g in (security.get("fsGroup"), *security.get("supplementalGroups", [])) if g is not None]
    if groups:
        priv += ["--groups", ",".join(str(g) for g in groups)]
    elif uid is not None:
        priv.append("--clear-groups")
    return priv


def as_pod_user(uid: int) -> list[str]:
    """The prefix that runs a process of a pretend pod as its user `uid` (its group `uid`, no
    other groups), for a test that starts the machine's own programs (sshd, ssh) as a pod would."""
    return ["setpriv", "--reuid", str(uid), "--regid", str(uid), "--clear-groups"]


def rendered_command(container: dict) -> list[str]:
    return [*container.get("command", []), *container.get("args", [])]
