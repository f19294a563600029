"""The workers' and the launcher's pod templates on the jobset target: the blueprint's
(compiled as for every target) plus the SSH bootstrap. Workers run the image's sshd, as
the container's user, with a readiness probe on its port (the launcher starts once every
worker is Ready); the launcher gets the hostfile and the variables that make mpirun start
the ranks over ssh. Both mount the key, and the hostfile and SSH files at /etc/mpi."""

from __future__ import annotations

from mpigen.compile.environment import CONFIG_MOUNT, ssh_launcher_env
from mpigen.compile.mpijob import LAUNCHER, WORKER, MPIJob
from mpigen.kube.data import copy_data
from mpigen.render.jobset.names import KEY_MOUNT, KEY_VOLUME, SSH_CONFIG_PATH, SSHD_SCRIPT_PATH, config_name, secret_name
from mpigen.render.names import CONFIG_VOLUME

PRIVATE_KEY_MODE = 0o400  # ssh and sshd refuse a key its owner's group may read (root's)
SHARED_KEY_MODE = 0o440  # a non-root user reads root's key through its group (fsGroup)
# What a root sshd needs of the capabilities every mpigen container drops (found by running
# OpenSSH's sshd with each one removed; mpigen.render.mpijob.resource has the same list for
# the operator's sshd): privilege separation, becoming the user, recording the login.
SSHD_ROOT_CAPABILITIES = ("AUDIT_WRITE", "SETGID", "SETUID", "SYS_CHROOT")
PROBE = {"periodSeconds": 2, "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3}


def runs_as_root(pod: dict) -> bool:
    """Whether the main container runs as root, as far as the pod spec says."""
    context = pod["containers"][0].get("securityContext", {})
    return context.get("runAsUser", pod.get("securityContext", {}).get("runAsUser", 0)) == 0


def mount_ssh(job: MPIJob, pod: dict) -> None:
    """The key (root's, readable by the container's user) and the ConfigMap (the hostfile and
    the SSH files), each mounted as it is."""
    mode = PRIVATE_KEY_MODE if runs_as_root(pod) else SHARED_KEY_MODE
    container = pod["containers"][0]
    container["volumeMounts"] = container.get("volumeMounts", []) + [
        {"name": CONFIG_VOLUME, "mountPath": CONFIG_MOUNT}, {"name": KEY_VOLUME, "mountPath": KEY_MOUNT, "readOnly": True}]
    pod["volumes"] = pod.get("volumes", []) + [
        {"name": CONFIG_VOLUME, "configMap": {"name": config_name(job)}},
        {"name": KEY_VOLUME, "secret": {"secretName": secret_name(job), "defaultMode": mode}}]


def worker_pod(job: MPIJob) -> dict:
    """The workers' pod template: sshd as the main container's command."""
    template = copy_data(job.spec.mpiReplicaSpecs[WORKER].template)
    pod = template.setdefault("spec", {})
    container = pod["containers"][0]
    port = job.extensions.ssh.port
    if "command" not in container:  # a podTemplatePatch's own command stays (it must start sshd)
        container["command"] = ["/bin/sh", SSHD_SCRIPT_PATH]
    container["ports"] = [*container.get("ports", []), {"name": "ssh", "containerPort": port, "protocol": "TCP"}]
    container["readinessProbe"] = {"tcpSocket": {"port": port}, **PROBE}
    mount_ssh(job, pod)
    if runs_as_root(pod):
        _allow_root_sshd(container, port)
    return template


def launcher_pod(job: MPIJob) -> dict:
    """The launcher's pod template: the hostfile and the key, and the variables."""
    template = copy_data(job.spec.mpiReplicaSpecs[LAUNCHER].template)
    pod = template.setdefault("spec", {})
    container = pod["containers"][0]
    container["env"] = container.get("env", []) + ssh_launcher_env(job, SSH_CONFIG_PATH)
    mount_ssh(job, pod)
    return template


def _allow_root_sshd(container: dict, port: int) -> None:
    """Add what a root sshd needs to a container that drops every capability."""
    context = container.get("securityContext", {})
    if context.get("privileged") or "ALL" not in context.get("capabilities", {}).get("drop", []):
        return
    needed = SSHD_ROOT_CAPABILITIES + (("NET_BIND_SERVICE",) if port < 1024 else ())
    added = context["capabilities"].get("add", [])
    context["capabilities"]["add"] = added + [c for c in sorted(needed) if c not in added]
