"""The names of the trainjob target and of what the Kubeflow Trainer makes of a TrainJob
(shared/reference/targets.md 2.3-2.5; Trainer v2.3.0 pkg/constants/constants.go): the
JobSet `<trainjob>` with the replicated jobs `node` and `launcher`, whose pod P of child Job
J is `<trainjob>-<job>-<J>-<P>` in the subdomain `<trainjob>`; the Secret and hostfile the
MPI plugin writes; and the volumes and folders mpigen adds for SSH."""

from __future__ import annotations

import hashlib
import json

from mpigen.compile.mpijob import MPIJob
from mpigen.render.parts import replicated
from mpigen.render.parts.replicated import pod_dns_name

TRAINER_API = "trainer.kubeflow.org/v1alpha1"
TRAINER_GROUP = "trainer.kubeflow.org"
NODE_JOB = "node"  # the replicated jobs of an MPI runtime, in order
LAUNCHER_JOB = "launcher"
NODE_CONTAINER = "node"  # the only container the MPI plugin and the TrainJob's trainer fields touch
ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
ANCESTOR_TRAINER = "trainer"
FRAMEWORK_LABEL = "trainer.kubeflow.org/framework"
IMPLEMENTATION_ANNOTATION = "mpigen.dev/mpi-implementation"
PATCH_MANAGER = "mpigen.dev/blueprint"  # the runtimePatches entry of a TrainJob on a named runtime
KUEUE_PATCH_MANAGER = "kueue.x-k8s.io/manager"  # the entry Kueue writes on admission
# The TrainJob CRD's defaults (v2.3.0 manifests/base/crds/trainer.kubeflow.org_trainjobs.yaml), written out.
TRAINJOB_CONTROLLER = "trainer.kubeflow.org/trainjob-controller"  # spec.managedBy
DEFAULT_SUSPEND = False  # spec.suspend
DEFAULT_NAMED_KIND = "ClusterTrainingRuntime"  # runtimeRef.kind's default (TrainJob CRD)
DEFAULT_EMITTED_KIND = "TrainingRuntime"
RUNTIME_KINDS = ("TrainingRuntime", "ClusterTrainingRuntime")  # what a TrainJob's runtimeRef may name

# The plugin's key: volume mpi-ssh-auth (items id_rsa 0640, id_rsa.pub, authorized_keys), mounted at
# mlPolicy.mpi.sshAuthMountPath in container node; its hostfile: volume mpi-hostfile at /etc/mpi.
TRAINER_KEY_VOLUME = "mpi-ssh-auth"
TRAINER_KEY_MOUNT = "/etc/mpi-ssh-auth"
TRAINER_HOSTFILE_VOLUME = "mpi-hostfile"
TRAINER_HOSTFILE_DIR = "/etc/mpi"
TRAINER_HOSTFILE = f"{TRAINER_HOSTFILE_DIR}/hostfile"
SECRET_SUFFIX = "-mpi-ssh-auth"
HOSTFILE_SUFFIX = "-mpi-hostfile"
# mpigen's: the SSH files, written for the container's user by the init container ssh-setup.
SSH_SETUP_CONTAINER = "ssh-setup"
SSH_VOLUME = "mpigen-ssh"
SSH_DIR = "/etc/mpigen-ssh"
SSH_KEY = f"{SSH_DIR}/key"
SSH_AUTHORIZED_KEYS = f"{SSH_DIR}/authorized_keys"
SSH_CONFIG = f"{SSH_DIR}/ssh_config"
SSHD_CONFIG = f"{SSH_DIR}/sshd_config"
SSHD_SCRIPT = f"{SSH_DIR}/sshd.sh"
HYDRA_HOSTFILE = f"{SSH_DIR}/hostfile"  # the launcher's copy of the hostfile: Hydra's form, or its own line renamed
CLUSTER_RUNTIME_PREFIX = "mpigen-"
CLUSTER_RUNTIME_HASH = 10


def trainjob_name(job: MPIJob) -> str:
    return job.metadata.name


def dns_name(job: MPIJob, replicated_job: str, pod: int) -> str:
    """A pod's DNS name as the Trainer writes it into the hostfile: the JobSet is the TrainJob's name."""
    return pod_dns_name(trainjob_name(job), replicated_job, pod)


def node_count(job: MPIJob) -> int:
    """The TrainJob's numNodes: the rank hosts; with runLauncherAsNode the Trainer counts the
    launcher among them and makes numNodes - 1 node pods."""
    return job.rank_hosts


def first_rank_host(job: MPIJob) -> str:
    """The first line of the plugin's hostfile: the node pods come first (replicatedJobs order)."""
    return dns_name(job, NODE_JOB, 0)


def longest_pod_name(name: str, node_pods: int) -> int:
    """The longest pod name of the JobSet the Trainer makes, as the JobSet webhook counts it."""
    return max(replicated.longest_pod_name(name, NODE_JOB, node_pods),
               replicated.longest_pod_name(name, LAUNCHER_JOB, 1))


def cluster_runtime_name(spec: dict) -> str:
    """A shared ClusterTrainingRuntime's default name: a hash of what it holds, so that jobs
    whose runtimes are the same name the same one, and others another."""
    canonical = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    return CLUSTER_RUNTIME_PREFIX + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:CLUSTER_RUNTIME_HASH]
