"""The names the jobset target gives its objects, replicated jobs, volumes and files, and the
host names JobSet gives the pods (shared/reference/targets.md 1.4): the pod of index P of
child Job J of replicated job R is `<jobset>-<R>-<J>-<P>`, in the subdomain `<jobset>`,
the JobSet's headless Service."""

from __future__ import annotations

from mpigen.compile.mpijob import MPIJob
from mpigen.compile.names import CONFIG_MOUNT, CONFIG_SUFFIX
from mpigen.render.parts import replicated
from mpigen.render.parts.replicated import pod_dns_name

JOBSET_API = "jobset.x-k8s.io/v1alpha2"
KEYGEN_JOB = "keygen"  # the replicated jobs, in the order JobSet starts them
WORKER_JOB = "worker"
LAUNCHER_JOB = "launcher"
KEYGEN_SUFFIX = "-ssh-keygen"  # its ServiceAccount, Role and RoleBinding
SECRET_SUFFIX = "-ssh"  # the Secret it creates at run time
JOBSET_UID_LABEL = "jobset.sigs.k8s.io/jobset-uid"  # JobSet labels every pod with its UID

# On workers and launcher: the key (the Secret as it is) and the ConfigMap (the hostfile
# and the SSH files, beside it at /etc/mpi as on the other targets).
KEY_VOLUME = "mpigen-ssh-key"
KEY_MOUNT = "/etc/mpigen-ssh"
KEY_PATH = f"{KEY_MOUNT}/ssh-privatekey"
AUTHORIZED_KEYS_PATH = f"{KEY_MOUNT}/ssh-publickey"
SSH_CONFIG_KEY = "ssh_config"
SSHD_CONFIG_KEY = "sshd_config"
SSHD_SCRIPT_KEY = "sshd.sh"
SSH_CONFIG_PATH = f"{CONFIG_MOUNT}/{SSH_CONFIG_KEY}"
SSHD_CONFIG_PATH = f"{CONFIG_MOUNT}/{SSHD_CONFIG_KEY}"
SSHD_SCRIPT_PATH = f"{CONFIG_MOUNT}/{SSHD_SCRIPT_KEY}"


def jobset_name(job: MPIJob) -> str:
    return job.metadata.name


def config_name(job: MPIJob) -> str:
    return job.metadata.name + CONFIG_SUFFIX


def keygen_name(job: MPIJob) -> str:
    return job.metadata.name + KEYGEN_SUFFIX


def secret_name(job: MPIJob) -> str:
    """The Secret the workers and the launcher mount: the platform's, or the run's own."""
    return job.source.ssh.keySecret or job.metadata.name + SECRET_SUFFIX


def pod_host(job: MPIJob, replicated_job: str, pod: int) -> str:
    return replicated.pod_host(jobset_name(job), replicated_job, pod)


def dns_name(job: MPIJob, replicated_job: str, pod: int) -> str:
    return pod_dns_name(jobset_name(job), replicated_job, pod)


def worker_hosts(job: MPIJob) -> list[str]:
    return [dns_name(job, WORKER_JOB, i) for i in range(job.workers)]


def launcher_host(job: MPIJob) -> str:
    return dns_name(job, LAUNCHER_JOB, 0)


def first_rank_host(job: MPIJob) -> str:
    """Rank 0's pod (the first line of the hostfile)."""
    return dns_name(job, LAUNCHER_JOB if job.extensions.runLauncherAsWorker else WORKER_JOB, 0)
