"""A command run "in a container": it enters the pod's namespaces and takes the container's
rendered env (and nothing of the test's), working directory and securityContext: no_new_privs
for `allowPrivilegeEscalation: false`, and a capability bounding set of the container
runtime's default set, minus `drop`, plus `add` (all of them when privileged)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.support.e2e.errors import CommandFailed, Unsupported
from tests.support.e2e.pods import Pod

# The capabilities containerd and CRI-O give a container that asks for no change
# (containerd: pkg/oci/spec.go defaultUnixCaps).
RUNTIME_DEFAULT_CAPS = ("CHOWN", "DAC_OVERRIDE", "FSETID", "FOWNER", "MKNOD", "NET_RAW", "SETGID", "SETUID",
                        "SETFCAP", "SETPCAP", "NET_BIND_SERVICE", "SYS_CHROOT", "KILL", "AUDIT_WRITE")
SUPPORTED_SECURITY = {"allowPrivilegeEscalation", "capabilities", "privileged", "runAsUser", "runAsGroup",
                      "runAsNonRoot"}


def container_argv(pod: Pod, command: list[str], image_env: dict[str, str], env: dict[str, str] | None = None,
                   drop_env: tuple[str, ...] = ()) -> list[str]:
    """The argv that runs `command` in the pod's first container, with its env and restrictions."""
    container = pod.container
    security = {**pod.spec.get("securityContext", {}), **container.get("securityContext", {})}
    unknown = set(container.get("securityContext", {})) - SUPPORTED_SECURITY
    if unknown:
        raise Unsupported(f"{pod.name}: securityContext fields {sorted(unknown)} are not modelled")
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
        priv += ["--reuid", str(uid), "--regid", str(security.get("runAsGroup", uid)), "--clear-groups"]
    environment = {"PATH": f"{Path(sys.executable).parent}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                   "HOME": "/root", "HOSTNAME": pod.hostname, **image_env, **_env(pod, container),
                   **(env or {})}
    for name in drop_env:
        del environment[name]
    return ["nsenter", "-t", str(pod.holder.pid), "-m", "-u", "-n", "--", "setpriv", *priv, "--",
            "env", "-i", "--chdir", container.get("workingDir", "/"),
            *(f"{k}={v}" for k, v in environment.items()), *command]


def rendered_command(container: dict) -> list[str]:
    return [*container.get("command", []), *container.get("args", [])]


def _env(pod: Pod, container: dict) -> dict[str, str]:
    env = {}
    for item in container.get("env", []):
        if "valueFrom" in item:
            raise Unsupported(f"{pod.name}: env {item['name']} uses valueFrom, which is not modelled")
        env[item["name"]] = item.get("value", "")
    if container.get("envFrom"):
        raise Unsupported(f"{pod.name}: envFrom is not modelled")
    return env
