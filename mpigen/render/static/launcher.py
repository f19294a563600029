"""Job <job>-launcher (newLauncher, reference section 2.6).

The launcher runs mpirun. Its init container copies kubectl into /opt/kube, waits for
every worker in the hostfile to be Ready and writes /opt/kube/hosts, which kubexec.sh
copies into each worker before it execs the rank daemon there. A blueprint's failure policy
becomes the Job's podFailurePolicy, with restartPolicy Never, which the API server requires
with one: a restart is a new launcher pod, uncounted (Ignore) when the rule says so.
"""

from __future__ import annotations

from mpigen.compile.launcher_env import OPENMPI5_ENV, without_gpus
from mpigen.compile.mpijob import LAUNCHER, MPIJob
from mpigen.compile.names import (CONFIG_MOUNT, CONFIG_VOLUME, HOSTFILE_KEY, HOSTFILE_MODE, HOSTFILE_PATH,
                                  KUBECTL_MOUNT, KUBECTL_VOLUME, KUBEXEC_KEY, KUBEXEC_MODE, KUBEXEC_PATH, config_name,
                                  launcher_name, object_meta, pod_template, role_labels)
from mpigen.render.parts.failure_policy import LAUNCHER_ACTIONS, pod_failure_policy, written_policy
from mpigen.render.static.options import DEFAULT_KUBECTL_DELIVERY_IMAGE

# (rsh agent variable, hostfile variable) per mpiDistribution, as the v1alpha2 controller sets them.
OPERATOR_ENV_NAMES = {
    "OpenMPI": ("OMPI_MCA_plm_rsh_agent", "OMPI_MCA_orte_default_hostfile"),
    "IntelMPI": ("I_MPI_HYDRA_BOOTSTRAP_EXEC", "I_MPI_HYDRA_HOST_FILE"),
    "MPICH": ("HYDRA_LAUNCHER_EXEC", "HYDRA_HOST_FILE"),
}
# The init container's resources: cpu/memory since a4940bf, ephemeral-storage since b45d548.
_DELIVERY_RESOURCES = {"cpu": "100m", "memory": "512Mi", "ephemeral-storage": "5Gi"}


# The operator's init container of the launcher, which copies kubectl into it.
KUBECTL_DELIVERY_CONTAINER = "kubectl-delivery"


def kubectl_delivery(job: MPIJob, image: str) -> dict:
    return {
        "name": KUBECTL_DELIVERY_CONTAINER,
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "env": [
            {"name": "TARGET_DIR", "value": KUBECTL_MOUNT},
            {"name": "NAMESPACE", "value": job.metadata.namespace},
        ],
        "volumeMounts": [
            {"name": KUBECTL_VOLUME, "mountPath": KUBECTL_MOUNT},
            {"name": CONFIG_VOLUME, "mountPath": CONFIG_MOUNT},
        ],
        "resources": {"limits": dict(_DELIVERY_RESOURCES), "requests": dict(_DELIVERY_RESOURCES)},
    }


def new_launcher(job: MPIJob, kubectl_delivery_image: str = DEFAULT_KUBECTL_DELIVERY_IMAGE) -> dict:
    replica = job.spec.mpiReplicaSpecs[LAUNCHER]
    labels = role_labels(job, "launcher")
    template, pod = pod_template(replica.template, labels)
    pod["serviceAccountName"] = launcher_name(job)
    if job.extensions.runLauncherAsWorker:
        pod["hostname"] = launcher_name(job)  # the hostfile's name for it: mpirun starts its ranks locally
    pod.setdefault("initContainers", []).append(kubectl_delivery(job, kubectl_delivery_image))
    main = pod["containers"][0]
    main["env"] = main.get("env", []) + launcher_env(job)
    main.setdefault("volumeMounts", []).extend([
        {"name": KUBECTL_VOLUME, "mountPath": KUBECTL_MOUNT},
        {"name": CONFIG_VOLUME, "mountPath": CONFIG_MOUNT},
    ])
    pod["restartPolicy"] = replica.restartPolicy
    pod.setdefault("volumes", []).extend([
        {"name": KUBECTL_VOLUME, "emptyDir": {}},
        {
            "name": CONFIG_VOLUME,
            "configMap": {
                "name": config_name(job),
                "items": [
                    {"key": KUBEXEC_KEY, "path": KUBEXEC_KEY, "mode": KUBEXEC_MODE},
                    {"key": HOSTFILE_KEY, "path": HOSTFILE_KEY, "mode": HOSTFILE_MODE},
                ],
            },
        },
    ])
    spec: dict = {"backoffLimit": job.effective_backoff_limit(), "template": template}
    policy = written_policy(job)
    if policy is not None:  # the Job's pod failure policy, which only restartPolicy Never allows
        pod["restartPolicy"] = "Never"
        spec["podFailurePolicy"] = pod_failure_policy(policy, template, LAUNCHER_ACTIONS)
    deadline = job.effective_active_deadline()
    if deadline is not None:
        spec["activeDeadlineSeconds"] = deadline
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": object_meta(job, launcher_name(job), labels),
        "spec": spec,
    }


def launcher_env(job: MPIJob) -> list[dict]:
    """What the static target appends after the launcher's env, as newLauncher does (reference
    section 2.6): Open MPI 5's names, then the operator's rsh agent and hostfile variables of
    the MPI implementation. A launcher that runs ranks keeps its GPUs visible (as v2beta1 does)."""
    rsh_agent, hostfile = OPERATOR_ENV_NAMES[job.distribution]
    env = [dict(e) for e in OPENMPI5_ENV] if job.distribution == "OpenMPI" else []
    return without_gpus(job, env + [{"name": rsh_agent, "value": KUBEXEC_PATH},
                                    {"name": hostfile, "value": HOSTFILE_PATH}])
