"""ConfigMap <jobset>-config: the hostfile of the rank hosts, and the SSH files of the
launcher (ssh_config) and the workers (sshd_config, and sshd.sh, their command)."""

from __future__ import annotations

from mpigen.compile.mpijob import MPIJob
from mpigen.render.parts import scripts
from mpigen.render.jobset.names import (AUTHORIZED_KEYS_PATH, KEY_PATH, LAUNCHER_JOB, SSH_CONFIG_KEY,
                                        SSHD_CONFIG_KEY, SSHD_CONFIG_PATH, SSHD_SCRIPT_KEY, config_name, pod_host,
                                        worker_hosts)
from mpigen.compile.names import HOSTFILE_KEY, object_meta

# Intel MPI and MPICH (Hydra) read "host:slots"; Open MPI reads "host slots=N".
_SLOT_SEPARATOR = {"OpenMPI": " slots=", "IntelMPI": ":", "MPICH": ":"}


def hostfile(job: MPIJob) -> str:
    """One line per rank host. A launcher that runs ranks comes first, under its own host
    name, so that every MPI starts those ranks locally rather than over SSH."""
    hosts = worker_hosts(job)
    if job.extensions.runLauncherAsWorker:
        hosts.insert(0, pod_host(job, LAUNCHER_JOB, 0))
    separator = _SLOT_SEPARATOR[job.distribution]
    return "".join(f"{host}{separator}{job.slots}\n" for host in hosts)


def new_config_map(job: MPIJob) -> dict:
    port = job.source.ssh.port
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": object_meta(job, config_name(job), {}),
        "data": {
            HOSTFILE_KEY: hostfile(job),
            # Jinja drops a template's last newline; these files keep theirs.
            SSH_CONFIG_KEY: scripts.render("ssh_config.j2", target="jobset", port=port, key=KEY_PATH) + "\n",
            SSHD_CONFIG_KEY: scripts.render("sshd_config.j2", target="jobset", port=port, key=KEY_PATH,
                                            authorized_keys=AUTHORIZED_KEYS_PATH) + "\n",
            SSHD_SCRIPT_KEY: scripts.render("sshd.sh.j2", target="jobset", sshd_config=SSHD_CONFIG_PATH) + "\n",
        },
    }
