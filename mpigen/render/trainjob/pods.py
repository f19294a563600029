"""The node and launcher pod templates of the runtime mpigen writes: the blueprint's pods
(compiled as for every target) with their main container named `node`, the only one the
Trainer's MPI plugin and the TrainJob's trainer fields touch, and the SSH bootstrap. The
plugin mounts the run's key (and the hostfile, on the launcher); the init container
ssh-setup turns them into files ssh and sshd accept as the container's user. Workers run
the image's sshd, ready once it listens; the launcher gets mpirun's ssh and hostfile
variables the Trainer version's MPI plugin does not set itself (mpigen.render.trainjob.versions).
Neither calls the API: no token (mpigen.compile.api_token)."""

from __future__ import annotations

from mpigen.compile.api_token import without_api_token
from mpigen.compile.launcher_env import OPENMPI5_AGENT, ssh_launcher_env
from mpigen.compile.mpijob import HYDRA, LAUNCHER, MPIJob, WORKER
from mpigen.formats.versions import DEFAULT_TRAINER_VERSION
from mpigen.kube.data import copy_data
from mpigen.render.parts import scripts
from mpigen.render.parts.replicated import sshd_ports_and_probe
from mpigen.render.parts.sshd import allow_root_sshd
from mpigen.render.trainjob.names import (HYDRA_HOSTFILE, NODE_CONTAINER, SSHD_CONFIG, SSHD_SCRIPT, SSH_AUTHORIZED_KEYS,
                                          SSH_CONFIG, SSH_DIR, SSH_KEY, SSH_SETUP_CONTAINER, SSH_VOLUME,
                                          TRAINER_HOSTFILE, TRAINER_HOSTFILE_DIR, TRAINER_HOSTFILE_VOLUME,
                                          TRAINER_KEY_MOUNT, TRAINER_KEY_VOLUME)
from mpigen.render.trainjob.versions import plugin_env, plugin_sets_prrte

OPENMPI4_AGENT = "OMPI_MCA_plm_rsh_agent"  # Open MPI 4 takes the agent's own arguments from it
SETUP_RESOURCES = {"limits": {"cpu": "100m", "memory": "64Mi"}}
SETUP_IDENTITY = ("runAsUser", "runAsGroup", "runAsNonRoot", "seLinuxOptions", "seccompProfile", "appArmorProfile")
SETUP_SECURITY = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}, "readOnlyRootFilesystem": True}


def worker_pod(job: MPIJob) -> dict:
    """The node job's pod template: sshd as the main container's command."""
    template = copy_data(job.spec.mpiReplicaSpecs[WORKER].template)
    pod = template.setdefault("spec", {})
    container = pod["containers"][0]
    container["name"] = NODE_CONTAINER
    if "command" not in container:  # a podTemplatePatch's own command stays (it must start sshd)
        container["command"] = ["/bin/sh", SSHD_SCRIPT]
    sshd_ports_and_probe(container, job.source.ssh.port)
    _ssh_setup(job, pod, launcher=False)
    allow_root_sshd(pod, job.source.ssh.port)
    without_api_token(pod)
    return template


def launcher_pod(job: MPIJob, version: str = DEFAULT_TRAINER_VERSION) -> dict:
    """The launcher job's pod template under that Trainer version. Its command is the TrainJob's
    (trainer.command)."""
    template = copy_data(job.spec.mpiReplicaSpecs[LAUNCHER].template)
    pod = template.setdefault("spec", {})
    container = pod["containers"][0]
    container["name"] = NODE_CONTAINER
    container.pop("command", None)
    container.pop("args", None)
    container["env"] = container.get("env", []) + launcher_env(job, version)
    _ssh_setup(job, pod, launcher=True, version=version)
    without_api_token(pod)
    return template


def launcher_env(job: MPIJob, version: str = DEFAULT_TRAINER_VERSION) -> list[dict]:
    """mpirun's variables: those of the jobset target less what the MPI plugin sets itself,
    and for Open MPI, where the ssh arguments are the plugin's (Open MPI 4's always, Open MPI
    5's from v2.4), the agent with mpigen's own."""
    hostfile = HYDRA_HOSTFILE if _rewrites_hostfile(job, version) else TRAINER_HOSTFILE
    env = [e for e in ssh_launcher_env(job, SSH_CONFIG, hostfile) if e["name"] not in plugin_env(version)]
    if job.distribution == "OpenMPI":
        env.insert(0, {"name": OPENMPI4_AGENT, "value": f"ssh -F {SSH_CONFIG}"})
        if plugin_sets_prrte(version):
            env.insert(1, {"name": OPENMPI5_AGENT, "value": f"ssh -F {SSH_CONFIG}"})
    return env


def setup_script(job: MPIJob, launcher: bool, version: str = DEFAULT_TRAINER_VERSION) -> str:
    port = job.source.ssh.port
    return scripts.render(
        "trainjob-ssh-setup.sh.j2", trainer_key=f"{TRAINER_KEY_MOUNT}/id_rsa", key=SSH_KEY,
        trainer_authorized_keys=f"{TRAINER_KEY_MOUNT}/authorized_keys", authorized_keys=SSH_AUTHORIZED_KEYS,
        ssh_config_path=SSH_CONFIG, sshd_config_path=SSHD_CONFIG, sshd_script_path=SSHD_SCRIPT,
        ssh_config=scripts.render("ssh_config.j2", target="trainjob", port=port, key=SSH_KEY),
        sshd_config=scripts.render("sshd_config.j2", target="trainjob", port=port, key=SSH_KEY,
                                   authorized_keys=SSH_AUTHORIZED_KEYS),
        sshd_script=scripts.render("sshd.sh.j2", target="trainjob", sshd_config=SSHD_CONFIG),
        trainer_hostfile=TRAINER_HOSTFILE,
        hydra_hostfile=HYDRA_HOSTFILE if launcher and job.distribution in HYDRA else "",
        local_hostfile=HYDRA_HOSTFILE if launcher and _rewrites_hostfile(job, version) else "",
        wait_for_nodes=launcher and starts_with_nodes(job)) + "\n"


def starts_with_nodes(job: MPIJob) -> bool:
    """Whether the launcher's Job starts with the nodes' rather than once they are Ready: under
    a gang scheduler, whose PodGroup the Trainer makes counting every pod of the TrainJob,
    the launcher too (Trainer v2.3.0 pkg/runtime/framework/plugins/{coscheduling,volcano}
    Build: minMember is the sum of the pod sets' counts). A launcher that waited for Ready
    nodes would never exist, and the scheduler would bind no node until it does. Its
    ssh-setup waits for the nodes' sshd instead."""
    return job.extensions.gang is not None


def _rewrites_hostfile(job: MPIJob, version: str) -> bool:
    """Whether the launcher reads its own copy of the Trainer's hostfile: Hydra's form, or for
    Open MPI with the launcher among the rank hosts, the launcher's line under its host name.
    The Trainer writes the launcher's DNS name there; Open MPI 5 (PRRTE, keeping FQDNs) does
    not take it for the local host and starts its daemon over ssh, where no sshd listens.
    From v2.4 the plugin's own PRRTE variables settle that (keep_fqdn_hostnames false) and
    name the hostfile, so that Open MPI reads the Trainer's."""
    if job.distribution in HYDRA:
        return True
    return job.extensions.runLauncherAsWorker and not plugin_sets_prrte(version)


def _ssh_setup(job: MPIJob, pod: dict, launcher: bool, version: str = DEFAULT_TRAINER_VERSION) -> None:
    """The init container that writes the SSH files, and the folder it writes them into."""
    main = pod["containers"][0]
    mounts = [{"name": TRAINER_KEY_VOLUME, "mountPath": TRAINER_KEY_MOUNT, "readOnly": True},
              {"name": SSH_VOLUME, "mountPath": SSH_DIR}]
    if launcher and (_rewrites_hostfile(job, version) or starts_with_nodes(job)):
        mounts.append({"name": TRAINER_HOSTFILE_VOLUME, "mountPath": TRAINER_HOSTFILE_DIR, "readOnly": True})
    setup = {"name": SSH_SETUP_CONTAINER, "image": main["image"],
             "command": ["/bin/sh", "-c", setup_script(job, launcher, version)],
             "resources": copy_data(SETUP_RESOURCES), "volumeMounts": mounts}
    if "imagePullPolicy" in main:
        setup["imagePullPolicy"] = main["imagePullPolicy"]
    # The main container's user (the files are its own), and no privilege: it only copies files.
    identity = {k: v for k, v in main.get("securityContext", {}).items() if k in SETUP_IDENTITY}
    setup["securityContext"] = {**identity, **copy_data(SETUP_SECURITY)}
    pod["initContainers"] = [setup, *pod.get("initContainers", [])]
    main["volumeMounts"] = main.get("volumeMounts", []) + [{"name": SSH_VOLUME, "mountPath": SSH_DIR, "readOnly": True}]
    pod["volumes"] = pod.get("volumes", []) + [{"name": SSH_VOLUME, "emptyDir": {"medium": "Memory"}}]
