"""The Trainer's MPI plugin (pkg/runtime/framework/plugins/mpi/mpi.go at v2.3.0): EnforceMLPolicy
sizes the node PodSet and numProcPerNode from the TrainJob, adds the key's Secret volume to the
node and launcher PodSets (the hostfile's ConfigMap volume to the launcher's), mounts them into
containers named `node` and, on the launcher, sets Open MPI's variables; Build makes the Secret
`<trainjob>-mpi-ssh-auth` (an ECDSA P-521 key, PEM "EC PRIVATE KEY", and its authorized_keys
line; unless it exists: it is immutable) and the ConfigMap `<trainjob>-mpi-hostfile`, one line
`<endpoint> slots=<numProcPerNode>` per pod of the PodSets that are nodes, in PodSet order.
The constants are pkg/constants/constants.go's.

Trainer v2.4 (not mirrored: kubeflow/trainer#4029, fixing #4028, as its description lists them)
also sets Open MPI 5's PRRTE twins of the four variables, keep_fqdn_hostnames false on purpose,
after them (their order among the launcher's env is not confirmed: the pull request's output is
sorted)."""

from __future__ import annotations

import base64
import subprocess
import tempfile
from pathlib import Path

from tests.support.e2e.trainer.apply import upsert_env, upsert_volume_mounts, upsert_volumes
from tests.support.e2e.trainer.info import LAUNCHER, NODE, Info

TRAINER_API = "trainer.kubeflow.org/v1alpha1"
SECRET_SUFFIX, HOSTFILE_SUFFIX = "-mpi-ssh-auth", "-mpi-hostfile"
SSH_AUTH_VOLUME, HOSTFILE_VOLUME = "mpi-ssh-auth", "mpi-hostfile"
HOSTFILE_DIR, HOSTFILE = "/etc/mpi", "hostfile"
SSH_AUTH_DEFAULT_MODE, PRIVATE_KEY_MODE, PUBLIC_KEY_MODE = 0o400, 0o640, 0o644
PUBLIC_KEY = "ssh-publickey"
RSH_ARGS = "-o ConnectionAttempts=10"
VERSIONS = ("v2.3", "v2.4")  # the Trainer versions the port follows (mpigen.formats.versions)


class MPIError(Exception):
    """What EnforceMLPolicy returns as an error."""


def _gpus(resources: dict) -> int:
    """GetNumGPUPerNode: a resource whose name contains "gpu", from requests, else limits."""
    def count(resource_list: dict) -> int:
        return next((int(v) for k, v in resource_list.items() if "gpu" in k.lower()), 0)
    return count(resources.get("requests", {})) or count(resources.get("limits", {}))


def _runtime_resources(info: Info) -> dict:
    """ExtractResourcePerNodeFromRuntime: the resources of container `node` of the first job
    named `node` or of the trainer ancestor."""
    for rjob in info.spec["replicatedJobs"]:
        labels = rjob["template"].get("metadata", {}).get("labels", {})
        if rjob["name"] == NODE or labels.get("trainer.kubeflow.org/trainjob-ancestor-step") == "trainer":
            for container in rjob["template"]["spec"]["template"]["spec"].get("containers", []):
                if container.get("name") == NODE and "resources" in container:
                    return container["resources"]
    return {}


def secret_volume(trainjob_name: str) -> dict:
    items = [{"key": "ssh-privatekey", "path": "id_rsa", "mode": PRIVATE_KEY_MODE},
             {"key": PUBLIC_KEY, "path": "id_rsa.pub", "mode": PUBLIC_KEY_MODE},
             {"key": PUBLIC_KEY, "path": "authorized_keys", "mode": PUBLIC_KEY_MODE}]
    return {"name": SSH_AUTH_VOLUME, "secret": {"secretName": trainjob_name + SECRET_SUFFIX,
                                                "defaultMode": SSH_AUTH_DEFAULT_MODE, "items": items}}


def hostfile_volume(trainjob_name: str) -> dict:
    return {"name": HOSTFILE_VOLUME, "configMap": {"name": trainjob_name + HOSTFILE_SUFFIX,
                                                   "items": [{"key": HOSTFILE, "path": HOSTFILE, "mode": 0o444}]}}


def enforce_ml_policy(info: Info, trainjob: dict, version: str = "v2.3") -> None:
    mpi = info.mpi
    if mpi is None:
        return
    trainer = trainjob["spec"].get("trainer") or {}
    node = info.pod_set(NODE)
    if trainer.get("numNodes") is not None and node is not None:
        node.count = max(trainer["numNodes"] - 1, 1) if mpi.get("runLauncherAsNode") else trainer["numNodes"]
    if trainer.get("numProcPerNode") is not None:
        mpi["numProcPerNode"] = trainer["numProcPerNode"]
    elif mpi["numProcPerNode"] == 1:
        gpus = _gpus(trainer.get("resourcesPerNode") or _runtime_resources(info))
        if gpus > 1:
            mpi["numProcPerNode"] = gpus
    name = trainjob["metadata"]["name"]
    for ps in info.pod_sets:
        if ps.name not in (NODE, LAUNCHER):
            continue
        upsert_volumes(ps.volumes, secret_volume(name))
        if ps.name == LAUNCHER:
            upsert_volumes(ps.volumes, hostfile_volume(name))
        for container in ps.containers:
            if container.get("name") != NODE:
                continue
            upsert_volume_mounts(container.setdefault("volumeMounts", []),
                                 {"name": SSH_AUTH_VOLUME, "mountPath": mpi["sshAuthMountPath"]})
            if ps.name != LAUNCHER:
                continue
            upsert_volume_mounts(container["volumeMounts"], {"name": HOSTFILE_VOLUME, "mountPath": HOSTFILE_DIR})
            if mpi["mpiImplementation"] != "OpenMPI":
                raise MPIError(f"MPI implementation for {mpi['mpiImplementation']} doesn't supported")
            upsert_env(container.setdefault("env", []), *launcher_env(mpi["numProcPerNode"], version))


def launcher_env(slots: int, version: str) -> list[dict]:
    """The Open MPI variables the plugin of that version sets on the launcher's container node."""
    env = [{"name": "OMPI_MCA_orte_default_hostfile", "value": f"{HOSTFILE_DIR}/{HOSTFILE}"},
           {"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "true"},
           {"name": "OMPI_MCA_orte_set_default_slots", "value": str(slots)},
           {"name": "OMPI_MCA_plm_rsh_args", "value": RSH_ARGS}]
    if version == "v2.4":  # #4029
        env += [{"name": "PRTE_MCA_prte_default_hostfile", "value": f"{HOSTFILE_DIR}/{HOSTFILE}"},
                {"name": "PRTE_MCA_prte_keep_fqdn_hostnames", "value": "false"},
                {"name": "PRTE_MCA_prte_set_default_slots", "value": str(slots)},
                {"name": "PRTE_MCA_plm_ssh_args", "value": RSH_ARGS}]
    return env


def _owner(trainjob: dict) -> list[dict]:
    meta = trainjob["metadata"]
    return [{"apiVersion": TRAINER_API, "kind": "TrainJob", "name": meta["name"], "uid": meta["uid"],
             "controller": True, "blockOwnerDeletion": True}]


def hostfile_config_map(info: Info, trainjob: dict) -> dict:
    """buildHostFileConfigMap."""
    mpi = info.mpi
    slots = mpi.get("numProcPerNode", 1)
    lines = [f"{endpoint} slots={slots}\n" for ps in info.pod_sets
             if ps.name == NODE or (mpi.get("runLauncherAsNode") and ps.name == LAUNCHER) for endpoint in ps.endpoints]
    meta = trainjob["metadata"]
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": meta["name"] + HOSTFILE_SUFFIX, "namespace": meta.get("namespace", "default"),
                         "ownerReferences": _owner(trainjob)},
            "data": {HOSTFILE: "".join(lines)}}


def new_key() -> tuple[bytes, bytes]:
    """An ECDSA P-521 key as buildSSHAuthSecret makes it: the SEC1 PEM (x509.MarshalECPrivateKey,
    block "EC PRIVATE KEY") and ssh.MarshalAuthorizedKey of its public key (type, base64, newline)."""
    with tempfile.TemporaryDirectory() as folder:
        key = Path(folder) / "key"
        subprocess.run(["ssh-keygen", "-q", "-t", "ecdsa", "-b", "521", "-m", "PEM", "-N", "", "-C", "", "-f",
                        str(key)], check=True)
        private = key.read_bytes()
        public = " ".join(key.with_suffix(".pub").read_text().split()[:2]) + "\n"
    return private, public.encode()


def ssh_auth_secret(trainjob: dict) -> dict:
    """buildSSHAuthSecret."""
    private, public = new_key()
    meta = trainjob["metadata"]
    return {"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": meta["name"] + SECRET_SUFFIX, "namespace": meta.get("namespace", "default"),
                         "ownerReferences": _owner(trainjob)},
            "type": "kubernetes.io/ssh-auth", "immutable": True,
            "data": {"ssh-privatekey": base64.b64encode(private).decode(),
                     PUBLIC_KEY: base64.b64encode(public).decode()}}


def build(info: Info, trainjob: dict, secret_exists: bool) -> list[dict]:
    """Build: the Secret unless one of its name exists, then the hostfile."""
    if info.mpi is None:
        return []
    return ([] if secret_exists else [ssh_auth_secret(trainjob)]) + [hostfile_config_map(info, trainjob)]
