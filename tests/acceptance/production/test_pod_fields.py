"""The pod fields of the production blueprint fields: host network, placement, RDMA,
secondary networks, shared memory, security, service accounts, downloads, Kueue, the
v2beta1 launcher.

How every test here proves its point: see this folder's __init__.py."""

from __future__ import annotations

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.kubernetes_schema import validate
from tests.support.production import RENDERS, pod, static, template_meta
from tests.support.rendering import by_kind, render_text


# --- 5. pod fields of the new blueprint fields ---------------------------------------------------

def selects(selector: dict, labels: dict) -> bool:
    """A Kubernetes label selector evaluated against labels."""
    ok = all(labels.get(key) == value for key, value in selector.get("matchLabels", {}).items())
    for expr in selector.get("matchExpressions", []):
        key, op, values = expr["key"], expr["operator"], expr.get("values", [])
        ok &= {"In": key in labels and labels[key] in values, "NotIn": labels.get(key) not in values,
               "Exists": key in labels, "DoesNotExist": key not in labels}[op]
    return ok and bool(selector)


def anti_affinity_terms(obj: dict) -> list[dict]:
    anti = pod(obj).get("affinity", {}).get("podAntiAffinity", {})
    return anti.get("requiredDuringSchedulingIgnoredDuringExecution", [])


def worker_template(objects: list[dict], role: str = "Worker") -> dict:
    """The worker (or launcher) pod template of the static StatefulSet/Job or of the MPIJob."""
    kinds = by_kind(objects)
    if "MPIJob" in kinds:
        return kinds["MPIJob"]["spec"]["mpiReplicaSpecs"][role]["template"]
    return kinds["StatefulSet" if role == "Worker" else "Job"]["spec"]["template"]


@pytest.mark.parametrize("render", list(RENDERS))
def test_host_network_repels_the_job_workers_from_each_other(render):
    """hostNetwork: dnsPolicy ClusterFirstWithHostNet and a required anti-affinity on
    kubernetes.io/hostname whose selector matches the worker pods and not the launcher;
    the launcher stays on the pod network."""
    objects = render_text(blueprint_text("job", network={"hostNetwork": True}), **RENDERS[render])
    worker, launcher = worker_template(objects), worker_template(objects, "Launcher")
    assert worker["spec"]["hostNetwork"] is True and worker["spec"]["dnsPolicy"] == "ClusterFirstWithHostNet"
    (term,) = anti_affinity_terms({"spec": {"template": worker}})
    assert term["topologyKey"] == "kubernetes.io/hostname"
    assert selects(term["labelSelector"], worker["metadata"]["labels"])
    assert not selects(term["labelSelector"], launcher.get("metadata", {}).get("labels", {}))
    assert "hostNetwork" not in launcher["spec"] and "dnsPolicy" not in launcher["spec"]
    assert "affinity" not in launcher["spec"]


def test_one_pod_per_node_keeps_the_users_affinity():
    """onePodPerNode adds its term to the user's affinity: node affinity and the user's own
    anti-affinity terms stay, and the pod network is kept without hostNetwork."""
    user_term = {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "kubernetes.io/hostname"}
    node = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}
    objects = static({"placement": {"worker": {"onePodPerNode": True, "affinity": {
        "nodeAffinity": node, "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [user_term]}}}}})
    worker = objects["StatefulSet"]
    assert pod(worker)["affinity"]["nodeAffinity"] == node
    terms = anti_affinity_terms(worker)
    assert terms[0] == user_term and len(terms) == 2
    assert selects(terms[1]["labelSelector"], template_meta(worker)["labels"])
    assert "hostNetwork" not in pod(worker) and "dnsPolicy" not in pod(worker)


@pytest.mark.parametrize("rdma, capabilities", [
    ({"resource": "rdma/hca", "count": 2}, ["IPC_LOCK", "SYS_NICE"]),
    ({"resource": "rdma/hca", "count": 2, "ipcLock": False}, ["SYS_NICE"]),
])
def test_rdma_devices_and_ipc_lock_on_rank_pods_only(rdma, capabilities):
    """RDMA: the device resource in the worker limits and IPC_LOCK (unless ipcLock: false)
    next to the blueprint's capabilities; the launcher gets neither."""
    objects = static({"gpusPerWorker": 1, "network": {"rdma": rdma}, "security": {"capabilities": ["SYS_NICE"]}})
    worker, launcher = pod(objects["StatefulSet"])["containers"][0], pod(objects["Job"])["containers"][0]
    assert worker["resources"]["limits"] == {"nvidia.com/gpu": "1", "rdma/hca": "2"}
    assert worker["securityContext"] == {"allowPrivilegeEscalation": False,
                                         "capabilities": {"drop": ["ALL"], "add": capabilities}}
    assert "resources" not in launcher
    assert launcher["securityContext"] == {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}


@pytest.mark.parametrize("run_as_worker", [False, True])
def test_secondary_networks_annotate_rank_pods_only(run_as_worker):
    """The Multus annotation lists the networks on rank pods: the workers, and the launcher
    only when it runs ranks."""
    objects = static({"network": {"secondaryNetworks": ["sriov-ib0", "ml-team/sriov-ib1"]},
                      "launcher": {"runAsWorker": run_as_worker}})
    networks = "k8s.v1.cni.cncf.io/networks"
    assert template_meta(objects["StatefulSet"])["annotations"][networks] == "sriov-ib0,ml-team/sriov-ib1"
    assert template_meta(objects["Job"]).get("annotations", {}).get(networks) == \
        ("sriov-ib0,ml-team/sriov-ib1" if run_as_worker else None)
    assert networks not in objects["StatefulSet"]["metadata"].get("annotations", {})


def shm_size(obj: dict) -> str | None:
    """sizeLimit of the memory-backed volume mounted at /dev/shm, or None without one."""
    mounts = [m["name"] for m in pod(obj)["containers"][0].get("volumeMounts", []) if m["mountPath"] == "/dev/shm"]
    volumes = [v for v in pod(obj).get("volumes", []) if v.get("emptyDir", {}).get("medium") == "Memory"]
    assert len(mounts) == len(volumes) <= 1
    if not volumes:
        return None
    assert volumes[0]["name"] == mounts[0]
    return volumes[0]["emptyDir"]["sizeLimit"]


@pytest.mark.parametrize("gpus, memory, shared_memory, expected", [
    (8, None, None, "8Gi"),          # 1Gi per GPU
    (8, "64Gi", None, "8Gi"),
    (8, "10Gi", None, "5Gi"),        # at most half the memory limit
    (8, "3Gi", None, "1536Mi"),
    (0, "8Gi", None, None),          # CPU jobs: the runtime's 64 MiB
    (2, "64Gi", "0", None),          # 0 turns it off
    (2, "64Gi", "16Gi", "16Gi"),     # an explicit size wins
    (0, None, "2Gi", "2Gi"),
])
def test_shared_memory_default_and_override(gpus, memory, shared_memory, expected):
    """/dev/shm on the workers: 1Gi per GPU capped at half the worker memory limit, none for
    CPU jobs, "0" disables, a given size wins; never on a launcher that runs no ranks."""
    spec = {"gpusPerWorker": gpus, "sharedMemory": shared_memory,
            "resources": {"worker": {"memory": memory}} if memory else None}
    objects = static(spec)
    assert shm_size(objects["StatefulSet"]) == expected
    assert shm_size(objects["Job"]) is None


def test_shared_memory_on_a_launcher_that_runs_ranks():
    objects = static({"gpusPerWorker": 2, "launcher": {"runAsWorker": True}})
    assert shm_size(objects["Job"]) == shm_size(objects["StatefulSet"]) == "2Gi"


def test_security_on_both_pod_templates_privileges_on_rank_containers():
    """runAsUser, runAsGroup, fsGroup, runAsNonRoot on both pods; capabilities and
    privileged only on the rank containers; image pull secrets and priority per role."""
    objects = static({"security": {"runAsUser": 1000, "runAsGroup": 2000, "fsGroup": 3000, "runAsNonRoot": True,
                                   "privileged": True, "capabilities": ["SYS_PTRACE"]},
                      "imagePullSecrets": ["registry-a", "registry-b"],
                      "placement": {"worker": {"priorityClassName": "high"}, "launcher": {"priorityClassName": "low"}}})
    for workload, priority in ((objects["StatefulSet"], "high"), (objects["Job"], "low")):
        assert pod(workload)["securityContext"] == {"runAsUser": 1000, "runAsGroup": 2000, "fsGroup": 3000,
                                                    "runAsNonRoot": True}
        assert pod(workload)["imagePullSecrets"] == [{"name": "registry-a"}, {"name": "registry-b"}]
        assert pod(workload)["priorityClassName"] == priority
    assert pod(objects["StatefulSet"])["containers"][0]["securityContext"] == {
        "capabilities": {"add": ["SYS_PTRACE"]}, "privileged": True}
    assert pod(objects["Job"])["containers"][0]["securityContext"] == {
        "allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}


ROLE_ARN = {"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/training"}


def test_service_account_annotations_create_the_identity():
    """serviceAccount.annotations: ServiceAccount <name>-identity with them, run by the
    workers; the launcher keeps <name>-launcher (its Role's), which gets them too."""
    objects = static({"serviceAccount": {"annotations": ROLE_ARN}})
    identity = objects["name/job-identity/ServiceAccount"]
    assert identity["metadata"]["annotations"] == ROLE_ARN and identity["metadata"]["namespace"] == "default"
    assert pod(objects["StatefulSet"])["serviceAccountName"] == "job-identity"
    assert pod(objects["Job"])["serviceAccountName"] == "job-launcher"
    assert objects["name/job-launcher/ServiceAccount"]["metadata"]["annotations"] == ROLE_ARN
    for obj in (identity, objects["name/job-launcher/ServiceAccount"]):
        validate(obj)


def test_service_account_annotations_in_the_mpijob_target():
    """Target mpijob: the identity is emitted beside the MPIJob and both pods run as it."""
    objects = render_text(blueprint_text("job", serviceAccount={"annotations": ROLE_ARN}), target="mpijob")
    kinds = by_kind(objects)
    assert kinds["ServiceAccount"]["metadata"]["name"] == "job-identity"
    for role in ("Launcher", "Worker"):
        assert worker_template(objects, role)["spec"]["serviceAccountName"] == "job-identity"


def test_service_account_name_is_for_the_workers():
    objects = static({"serviceAccount": {"name": "data-reader"}})
    assert pod(objects["StatefulSet"])["serviceAccountName"] == "data-reader"
    assert pod(objects["Job"])["serviceAccountName"] == "job-launcher"
    assert "name/job-identity/ServiceAccount" not in objects


def test_download_runs_before_kubectl_delivery_on_the_launcher():
    """A dataset's download step is an init container of the launcher, before
    kubectl-delivery, with its image (default spec.image), env and the dataset mounted."""
    objects = static({"datasets": [
        {"name": "ckpt", "mountPath": "/ckpt", "readOnly": False, "pvc": "ckpt",
         "download": {"image": "amazon/aws-cli:2.17.0", "command": ["aws", "s3", "sync", "s3://b", "/ckpt"],
                      "env": {"AWS_REGION": "us-east-1"}}},
        {"name": "data", "mountPath": "/data", "nfs": {"server": "fs", "path": "/data"},
         "download": {"command": ["sh", "-c", "echo > /data/x"]}}]})
    init = pod(objects["Job"])["initContainers"]
    assert [c["name"] for c in init] == ["download-ckpt", "download-data", "kubectl-delivery"]
    assert init[0] == {"name": "download-ckpt", "image": "amazon/aws-cli:2.17.0",
                       "command": ["aws", "s3", "sync", "s3://b", "/ckpt"],
                       "env": [{"name": "AWS_REGION", "value": "us-east-1"}],
                       "volumeMounts": [{"name": "ckpt", "mountPath": "/ckpt"}],
                       "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}}
    assert init[1]["image"] == "example.com/train:1"
    assert "initContainers" not in pod(objects["StatefulSet"])


@pytest.mark.parametrize("gitops", ["none", "argocd"])
def test_kueue_queue_labels_the_workloads_not_the_pods(gitops):
    """Static target: kueue.x-k8s.io/queue-name on the StatefulSet and the Job, not on their
    pod templates."""
    objects = by_kind(render_text(blueprint_text("job", scheduling={"queue": "team-a"}), gitops=gitops))
    for workload in (objects["StatefulSet"], objects["Job"]):
        assert workload["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a"
        assert "kueue.x-k8s.io/queue-name" not in template_meta(workload).get("labels", {})


@pytest.mark.parametrize("queue", [None, "team-a"])
def test_kueue_queue_on_the_mpijob_leaves_suspend_to_kueue(queue):
    """Target mpijob: the label on the MPIJob and no runPolicy.suspend (Kueue's to set);
    without a queue, suspend: false is written out."""
    mpijob = by_kind(render_text(blueprint_text("job", scheduling={"queue": queue} if queue else None),
                                 target="mpijob"))["MPIJob"]
    assert mpijob["metadata"].get("labels", {}).get("kueue.x-k8s.io/queue-name") == queue
    assert mpijob["spec"]["runPolicy"].get("suspend") == (None if queue else False)
    for replica in mpijob["spec"]["mpiReplicaSpecs"].values():
        assert "kueue.x-k8s.io/queue-name" not in replica["template"].get("metadata", {}).get("labels", {})


@pytest.mark.parametrize("spec, policy, run_as_worker", [
    ({}, "AtStartup", False),
    ({"mpiImplementation": "IntelMPI"}, "WaitForWorkersReady", False),
    ({"mpiImplementation": "MPICH", "launcher": {"waitForWorkers": False}}, "AtStartup", False),
    ({"launcher": {"waitForWorkers": True, "runAsWorker": True}}, "WaitForWorkersReady", True),
])
def test_launcher_fields_in_the_v2beta1_mpijob(spec, policy, run_as_worker):
    """waitForWorkers (default: true for Hydra) is launcherCreationPolicy; runAsWorker is
    runLauncherAsWorker."""
    body = by_kind(render_text(blueprint_text("job", **spec), target="mpijob"))["MPIJob"]["spec"]
    assert body["launcherCreationPolicy"] == policy and body["runLauncherAsWorker"] is run_as_worker
