"""A Python port of what the MPI Operator's v2beta1 controller makes of an MPIJob, for the
end-to-end test (kubeflow/mpi-operator@caa3c47, "Prepare v0.8.2",
pkg/controller/mpi_job_controller.go; reference mpi-operator.md section 4, MO@caa3c47):

- the headless Service `<job>` (newJobService, newService): selector operator-name and job-name,
  publishNotReadyAddresses only with runLauncherAsWorker;
- the ConfigMap `<job>-config` (newConfigMap, updateDiscoverHostsInConfigMap): `hostfile`, a line
  `<host>.<job>.<ns>.svc slots=S` (OpenMPI) or `<host>.<job>.<ns>.svc:S` (Intel, MPICH) for the
  launcher when runLauncherAsWorker, then for each worker; `discover_hosts.sh` echoing the
  launcher (runLauncherAsWorker) and the Running workers, sorted by name;
- the Secret `<job>-ssh` (newSSHAuthSecret): type kubernetes.io/ssh-auth, an ECDSA P-521 key
  (PEM "EC PRIVATE KEY") and its authorized_keys line (the Trainer's port makes the same key:
  trainer/mpi.py new_key);
- the worker pods `<job>-worker-i` (newWorker): the Worker template, labels defaultLabels +
  replica-index (i + 1 with runLauncherAsWorker: workerReplicaIndexLabel), hostname, subdomain
  `<job>`, dnsConfig.searches + `<job>.<ns>.svc.cluster.local`, ClusterFirstWithHostNet on the
  node's network, restartPolicy from the replica spec (setRestartPolicy; ExitCode is Never),
  containers[0]: `/usr/sbin/sshd -De` when it has neither command nor args, env +
  K_MPI_JOB_ROLE=worker; setupSSHOnPod;
- the launcher Job `<job>-launcher` (newLauncherJob, newLauncherPodTemplate): backoffLimit,
  activeDeadlineSeconds, ttlSecondsAfterFinished of runPolicy; the Launcher template with
  hostname `<job>-launcher`, subdomain `<job>`, containers[0].env + K_MPI_JOB_ROLE=launcher, the
  implementation's variables (ompiEnvVars + OMPI_MCA_orte_set_default_slots, intelEnvVars +
  I_MPI_PERHOST, mpichEnvVars), the NVIDIA_* variables emptied unless runLauncherAsWorker,
  setupSSHOnPod, then the volume mpi-job-config at /etc/mpi (configVolumeItems: hostfile 0444,
  discover_hosts.sh 0555);
- setupSSHOnPod: the volume ssh-auth of the Secret (items id_rsa, id_rsa.pub and authorized_keys:
  sshVolumeItems; defaultMode 0600 only when sshAuthMountPath is /root/.ssh), mounted at
  sshAuthMountPath in containers[0].
The operator's defaults (pkg/apis/kubeflow/v2beta1/default.go) are applied to the fields read
here: slotsPerWorker 1, sshAuthMountPath /root/.ssh, mpiImplementation OpenMPI,
launcherCreationPolicy AtStartup, restartPolicy Never (Worker) and OnFailure (Launcher); not
backoffLimit, which goes to the Job as given (the Job API defaults it to 6). Gang scheduling
(PodGroups) and ownerReferences are not modelled.
"""

from __future__ import annotations

import base64
import copy
from dataclasses import dataclass

from tests.support.e2e.errors import Unsupported
from tests.support.e2e.trainer.mpi import new_key

CONFIG_MOUNT_PATH, HOSTFILE, DISCOVER_HOSTS = "/etc/mpi", "hostfile", "discover_hosts.sh"
ROOT_SSH_PATH = "/root/.ssh"
SSH_AUTH_VOLUME, CONFIG_VOLUME = "ssh-auth", "mpi-job-config"
SSH_VOLUME_ITEMS = [{"key": "ssh-privatekey", "path": "id_rsa"}, {"key": "ssh-publickey", "path": "id_rsa.pub"},
                    {"key": "ssh-publickey", "path": "authorized_keys"}]
CONFIG_VOLUME_ITEMS = [{"key": HOSTFILE, "path": HOSTFILE, "mode": 0o444},
                       {"key": DISCOVER_HOSTS, "path": DISCOVER_HOSTS, "mode": 0o555}]
CONNECTION_ATTEMPTS = "-o ConnectionAttempts=10"
OPERATOR_LABELS = {"training.kubeflow.org/operator-name": "mpi-operator"}
REPLICA_INDEX = "training.kubeflow.org/replica-index"


@dataclass
class Made:
    """What the controller creates for one MPIJob, in syncHandler's order."""
    service: dict
    config_map: dict
    secret: dict
    workers: list[dict]  # Pods
    launcher: dict  # the Job


def spec_of(mpijob: dict) -> dict:
    """The MPIJob's spec with the operator's defaults (v2beta1 default.go) for what is read here."""
    spec = copy.deepcopy(mpijob["spec"])
    if mpijob.get("apiVersion") != "kubeflow.org/v2beta1":
        raise Unsupported(f"MPIJob {mpijob.get('apiVersion')}: only kubeflow.org/v2beta1 is modelled")
    spec.setdefault("slotsPerWorker", 1)
    spec.setdefault("sshAuthMountPath", ROOT_SSH_PATH)
    spec.setdefault("mpiImplementation", "OpenMPI")
    spec.setdefault("launcherCreationPolicy", "AtStartup")
    spec.setdefault("runLauncherAsWorker", False)
    spec.setdefault("runPolicy", {})
    replicas = spec["mpiReplicaSpecs"]
    replicas["Launcher"].setdefault("restartPolicy", "OnFailure")
    if "Worker" in replicas:
        replicas["Worker"].setdefault("restartPolicy", "Never")
    return spec


def labels(job: str, role: str) -> dict[str, str]:
    """defaultLabels (mpi_job_controller.go; constants.go's label keys)."""
    return {**OPERATOR_LABELS, "training.kubeflow.org/job-name": job, "training.kubeflow.org/job-role": role}


def fqdn(host: str, job: str, namespace: str, cluster_domain: str = "") -> str:
    """newConfigMap's domainFormat `%s.%s.%s.svc`, `.<clusterDomain>` appended when set."""
    return f"{host}.{job}.{namespace}.svc" + (f".{cluster_domain}" if cluster_domain else "")


def hostfile(job: str, namespace: str, spec: dict, cluster_domain: str = "") -> str:
    hosts = [f"{job}-launcher"] if spec["runLauncherAsWorker"] else []
    hosts += [f"{job}-worker-{i}" for i in range(worker_replicas(spec))]
    slots = spec["slotsPerWorker"]
    separator = " slots=" if spec["mpiImplementation"] == "OpenMPI" else ":"
    return "".join(f"{fqdn(h, job, namespace, cluster_domain)}{separator}{slots}\n" for h in hosts)


def discover_hosts(job: str, namespace: str, spec: dict, running: list[str], cluster_domain: str = "") -> str:
    hosts = [f"{job}-launcher"] if spec["runLauncherAsWorker"] else []
    hosts += sorted(running)
    return "#!/bin/sh\n" + "".join(f"echo {fqdn(h, job, namespace, cluster_domain)}\n" for h in hosts)


def worker_replicas(spec: dict) -> int:
    return spec["mpiReplicaSpecs"].get("Worker", {}).get("replicas", 0)


def restart_policy(replica: dict) -> str:
    """setRestartPolicy: the replica's policy, ExitCode as Never."""
    return "Never" if replica["restartPolicy"] == "ExitCode" else replica["restartPolicy"]


def setup_ssh(pod_spec: dict, job: str, spec: dict) -> None:
    """setupSSHOnPod."""
    secret = {"secretName": f"{job}-ssh", "items": copy.deepcopy(SSH_VOLUME_ITEMS)}
    if spec["sshAuthMountPath"] == ROOT_SSH_PATH:
        secret["defaultMode"] = 0o600
    pod_spec.setdefault("volumes", []).append({"name": SSH_AUTH_VOLUME, "secret": secret})
    pod_spec["containers"][0].setdefault("volumeMounts", []).append(
        {"name": SSH_AUTH_VOLUME, "mountPath": spec["sshAuthMountPath"]})


def new_worker(job: str, namespace: str, spec: dict, index: int) -> dict:
    """newWorker."""
    template = copy.deepcopy(spec["mpiReplicaSpecs"]["Worker"]["template"])
    meta, pod = template.get("metadata", {}), template["spec"]
    pod_labels = {**meta.get("labels", {}), **labels(job, "worker"),
                  REPLICA_INDEX: str(index + 1 if spec["runLauncherAsWorker"] else index)}
    name = f"{job}-worker-{index}"
    pod["hostname"], pod["subdomain"] = name, job
    if pod.get("hostNetwork"):
        pod["dnsPolicy"] = "ClusterFirstWithHostNet"
    pod.setdefault("dnsConfig", {}).setdefault("searches", []).append(f"{job}.{namespace}.svc.cluster.local")
    pod["restartPolicy"] = restart_policy(spec["mpiReplicaSpecs"]["Worker"])
    container = pod["containers"][0]
    if not container.get("command") and not container.get("args"):
        container["command"] = ["/usr/sbin/sshd", "-De"]
    container.setdefault("env", []).append({"name": "K_MPI_JOB_ROLE", "value": "worker"})
    setup_ssh(pod, job, spec)
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "labels": pod_labels,
                         **({"annotations": meta["annotations"]} if meta.get("annotations") else {})},
            "spec": pod}


def launcher_env(spec: dict) -> list[dict]:
    """launcherEnvVars, then the implementation's (ompiEnvVars, intelEnvVars, mpichEnvVars with
    their slots variable), then nvidiaDisableEnvVars unless runLauncherAsWorker."""
    hostfile_path = f"{CONFIG_MOUNT_PATH}/{HOSTFILE}"
    slots = str(spec["slotsPerWorker"])
    by_implementation = {
        "OpenMPI": [("OMPI_MCA_orte_keep_fqdn_hostnames", "true"), ("OMPI_MCA_orte_default_hostfile", hostfile_path),
                    ("OMPI_MCA_plm_rsh_args", CONNECTION_ATTEMPTS), ("OMPI_MCA_orte_set_default_slots", slots)],
        "Intel": [("I_MPI_HYDRA_HOST_FILE", hostfile_path), ("I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS",
                                                             CONNECTION_ATTEMPTS), ("I_MPI_PERHOST", slots)],
        "MPICH": [("HYDRA_HOST_FILE", hostfile_path), ("HYDRA_LAUNCH_EXTRA_ARGS", CONNECTION_ATTEMPTS)],
    }
    env = [{"name": "K_MPI_JOB_ROLE", "value": "launcher"}]
    env += [{"name": n, "value": v} for n, v in by_implementation[spec["mpiImplementation"]]]
    if not spec["runLauncherAsWorker"]:
        env += [{"name": "NVIDIA_VISIBLE_DEVICES"}, {"name": "NVIDIA_DRIVER_CAPABILITIES"}]
    return env


def new_launcher_job(job: str, namespace: str, spec: dict) -> dict:
    """newLauncherJob with newLauncherPodTemplate."""
    template = copy.deepcopy(spec["mpiReplicaSpecs"]["Launcher"]["template"])
    meta, pod = template.get("metadata", {}), template["spec"]
    pod_labels = {**meta.get("labels", {}), **labels(job, "launcher")}
    if spec["runLauncherAsWorker"]:
        pod_labels[REPLICA_INDEX] = "0"
    pod["hostname"], pod["subdomain"] = f"{job}-launcher", job
    if pod.get("hostNetwork"):
        pod["dnsPolicy"] = "ClusterFirstWithHostNet"
    container = pod["containers"][0]
    container.setdefault("env", []).extend(launcher_env(spec))
    setup_ssh(pod, job, spec)
    pod["restartPolicy"] = restart_policy(spec["mpiReplicaSpecs"]["Launcher"])
    pod["volumes"].append({"name": CONFIG_VOLUME, "configMap": {"name": f"{job}-config",
                                                                "items": copy.deepcopy(CONFIG_VOLUME_ITEMS)}})
    container["volumeMounts"].append({"name": CONFIG_VOLUME, "mountPath": CONFIG_MOUNT_PATH})
    run_policy = spec["runPolicy"]
    job_spec = {key: run_policy[key] for key in ("ttlSecondsAfterFinished", "activeDeadlineSeconds", "backoffLimit")
                if key in run_policy}
    job_spec["podReplacementPolicy"] = "Failed"
    if run_policy.get("suspend"):
        job_spec["suspend"] = True
    template_meta = {"labels": pod_labels, **({"annotations": meta["annotations"]} if meta.get("annotations") else {})}
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": f"{job}-launcher", "namespace": namespace, "labels": {"app": job}},
            "spec": {**job_spec, "template": {"metadata": template_meta, "spec": pod}}}


def expand(mpijob: dict, cluster_domain: str = "") -> Made:
    """Everything syncHandler creates for the MPIJob (discover_hosts.sh as first written: no
    worker Running yet)."""
    spec, meta = spec_of(mpijob), mpijob["metadata"]
    job, namespace = meta["name"], meta.get("namespace", "default")
    if spec.get("runPolicy", {}).get("schedulingPolicy"):
        raise Unsupported(f"MPIJob {job}: gang scheduling (schedulingPolicy) is not modelled")
    app = {"app": job}
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": job, "namespace": namespace, "labels": app},
               "spec": {"clusterIP": "None", "selector": {**OPERATOR_LABELS, "training.kubeflow.org/job-name": job},
                        **({"publishNotReadyAddresses": True} if spec["runLauncherAsWorker"] else {})}}
    config_map = {"apiVersion": "v1", "kind": "ConfigMap",
                  "metadata": {"name": f"{job}-config", "namespace": namespace, "labels": app},
                  "data": {HOSTFILE: hostfile(job, namespace, spec, cluster_domain),
                           DISCOVER_HOSTS: discover_hosts(job, namespace, spec, [], cluster_domain)}}
    private, public = new_key()
    secret = {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/ssh-auth",
              "metadata": {"name": f"{job}-ssh", "namespace": namespace, "labels": app},
              "data": {"ssh-privatekey": base64.b64encode(private).decode(),
                       "ssh-publickey": base64.b64encode(public).decode()}}
    workers = [new_worker(job, namespace, spec, i) for i in range(worker_replicas(spec))]
    return Made(service, config_map, secret, workers, new_launcher_job(job, namespace, spec))
