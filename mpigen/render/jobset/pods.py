"""The workers' and the launcher's pod templates on the jobset target: the blueprint's
(compiled as for every target) plus the SSH bootstrap. Workers run the image's sshd, as
the container's user, with a readiness probe on its port (the launcher starts once every
worker is Ready); the launcher gets the hostfile and the variables that make mpirun start
the ranks over ssh. Both mount the key, and the hostfile and SSH files at /etc/mpi, and
neither calls the API: no token (mpigen.compile.api_token)."""

from __future__ import annotations

from mpigen.compile.api_token import without_api_token
from mpigen.compile.launch import with_launcher_host
from mpigen.compile.launcher_env import ssh_launcher_env
from mpigen.compile.mpijob import LAUNCHER, MPIJob, WORKER
from mpigen.compile.names import CONFIG_MOUNT, CONFIG_VOLUME
from mpigen.kube.data import copy_data
from mpigen.render.jobset.names import (KEY_MOUNT, KEY_VOLUME, SSHD_SCRIPT_PATH, SSH_CONFIG_PATH, config_name,
                                        launcher_host, secret_name)
from mpigen.render.parts.replicated import sshd_ports_and_probe
from mpigen.render.parts.sshd import allow_root_sshd, runs_as_root

PRIVATE_KEY_MODE = 0o400  # ssh and sshd refuse a key its owner's group may read (root's)
SHARED_KEY_MODE = 0o440  # a non-root user reads root's key through its group (fsGroup)


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
    port = job.source.ssh.port
    if "command" not in container:  # a podTemplatePatch's own command stays (it must start sshd)
        container["command"] = ["/bin/sh", SSHD_SCRIPT_PATH]
    sshd_ports_and_probe(container, port)
    mount_ssh(job, pod)
    allow_root_sshd(pod, port)
    without_api_token(pod)
    return template


def launcher_pod(job: MPIJob) -> dict:
    """The launcher's pod template: the hostfile and the key, and the variables."""
    template = copy_data(job.spec.mpiReplicaSpecs[LAUNCHER].template)
    pod = template.setdefault("spec", {})
    container = pod["containers"][0]
    container["env"] = container.get("env", []) + ssh_launcher_env(job, SSH_CONFIG_PATH)
    container["command"] = with_launcher_host(job, container["command"], launcher_host(job))
    mount_ssh(job, pod)
    without_api_token(pod)
    return template
