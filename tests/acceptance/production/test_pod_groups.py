"""Rendered objects of every production feature validate against Kubernetes 1.30, and the
gang schedulers' PodGroups are the ones the operator writes.

How every test here proves its point: see this folder's __init__.py."""

from __future__ import annotations

import re

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.kubernetes_schema import validate
from tests.support.production import RENDERS, pod, static, template_meta
from tests.support.rendering import by_kind, render_text


# --- 4. rendered objects validate; PodGroups as the operator writes them -----------------------

EVERY_FEATURE = {
    "namespace": "ml-team", "framework": "pytorch", "workers": 3, "gpusPerWorker": 2,
    "env": {"NCCL_DEBUG": "INFO"}, "sharedMemory": "4Gi",
    "resources": {"worker": {"cpu": "8", "memory": "32Gi", "hugepages-2Mi": "1Gi"}, "launcher": {"cpu": "1", "memory": "1Gi"}},
    "launcher": {"waitForWorkers": True},
    "network": {"hostNetwork": True, "rdma": {"resource": "rdma/hca", "count": 2},
                "secondaryNetworks": ["sriov-ib0", "ml-team/sriov-ib1"]},
    "placement": {
        "worker": {"nodeSelector": {"pool": "gpu"}, "onePodPerNode": True, "priorityClassName": "training-high",
                   "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                   "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                       {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In",
                                              "values": ["us-east-1a"]}]}]}}}},
        "launcher": {"priorityClassName": "training-low", "affinity": {"podAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "podAffinityTerm": {
                "labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "kubernetes.io/hostname"}}]}}}},
    "scheduling": {"gang": {"scheduler": "volcano", "queue": "training"}, "queue": "team-a"},
    "security": {"runAsUser": 1000, "runAsGroup": 1000, "fsGroup": 1000, "runAsNonRoot": True,
                 "capabilities": ["SYS_NICE"], "sshAuthMountPath": "/home/mpiuser/.ssh"},
    "imagePullSecrets": ["registry-credentials"],
    "serviceAccount": {"annotations": {"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/training"}},
    "datasets": [
        {"name": "imagenet", "mountPath": "/data/imagenet", "pvc": "imagenet", "accessMode": "ReadOnlyMany"},
        {"name": "ckpt", "mountPath": "/ckpt", "readOnly": False, "pvc": "ckpt", "accessMode": "ReadWriteMany",
         "download": {"image": "amazon/aws-cli:2.17.0", "command": ["aws", "s3", "sync", "s3://b/c", "/ckpt"],
                      "env": {"AWS_REGION": "us-east-1"}}},
        {"name": "bucket", "mountPath": "/bucket", "csi": {"driver": "gcsfuse.csi.storage.gke.io",
                                                           "volumeAttributes": {"bucketName": "shards"},
                                                           "nodePublishSecret": "bucket-credentials"}},
        {"name": "conf", "mountPath": "/conf", "configMap": "train-config"},
        {"name": "key", "mountPath": "/key", "secret": "wandb-api-key"}],
    "runPolicy": {"cleanPodPolicy": "Running"},
}
RANK_LAUNCHER = {
    "framework": "deepspeed", "mpiImplementation": "MPICH", "workers": 2, "gpusPerWorker": 4, "gpuResource": "amd.com/gpu",
    "resources": {"worker": {"memory": "6Gi"}, "launcher": {"memory": "8Gi"}},
    "launcher": {"runAsWorker": True},
    "network": {"rdma": {"resource": "vpc.amazonaws.com/efa", "ipcLock": False}, "secondaryNetworks": ["efa"]},
    "scheduling": {"gang": {"scheduler": "scheduler-plugins", "scheduleTimeoutSeconds": 600, "minAvailable": 2}},
    "security": {"privileged": True, "capabilities": ["IPC_LOCK"]},
    "serviceAccount": {"name": "data-reader"},
    "datasets": [{"name": "out", "mountPath": "/out", "readOnly": False, "nfs": {"server": "fs", "path": "/out"},
                  "download": {"command": ["sh", "-c", "true"]}}],
}


def schema_checked(obj: dict) -> list[dict]:
    """The object itself, or for an MPIJob its replica templates as PodTemplates; nothing
    for a PodGroup (no Kubernetes schema)."""
    if obj["kind"] == "PodGroup":
        return []
    if obj["kind"] == "MPIJob":
        return [{"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": f"{obj['metadata']['name']}-{role}"},
                 "template": replica["template"]} for role, replica in obj["spec"]["mpiReplicaSpecs"].items()]
    return [obj]


@pytest.mark.parametrize("render", list(RENDERS))
@pytest.mark.parametrize("spec", [EVERY_FEATURE, RANK_LAUNCHER], ids=["every-feature", "launcher-as-worker"])
def test_every_feature_renders_objects_valid_for_kubernetes_1_30(spec, render):
    """Strict Kubernetes 1.30 schema validation of every rendered object (MPIJob pod
    templates as PodTemplates)."""
    objects = render_text(blueprint_text("prod", **spec), **RENDERS[render])
    kinds = {o["kind"] for o in objects}
    assert ("MPIJob" in kinds) == (render == "mpijob-v2beta1")
    assert "PodGroup" in kinds or render == "mpijob-v2beta1"
    checked = [item for obj in objects for item in schema_checked(obj)]
    assert len(checked) >= 3
    for obj in checked:
        validate(obj)


OWN_LABELS = {"app.kubernetes.io/managed-by": "mpigen", "mpigen.dev/job": "job"}
# 3 workers with cpu 2, memory 4Gi and 2 GPUs; a launcher with cpu 1 and memory 1Gi.
GANG_JOB = {"workers": 3, "gpusPerWorker": 2,
            "resources": {"worker": {"cpu": "2", "memory": "4Gi"}, "launcher": {"cpu": "1", "memory": "1Gi"}}}
ALL_PODS = {"cpu": "7", "memory": "13Gi", "nvidia.com/gpu": "6"}        # launcher + 3 workers
LAUNCHER_AND_TWO = {"cpu": "5", "memory": "9Gi", "nvidia.com/gpu": "4"}  # minMember 3: workers cut to 2
LAUNCHER_AND_ONE = {"cpu": "3", "memory": "5Gi", "nvidia.com/gpu": "2"}  # minMember 2: workers cut to 1


def pod_group(gang: dict, placement: dict | None = None, gitops: str = "none") -> dict:
    spec = {**GANG_JOB, "scheduling": {"gang": gang}, "placement": placement or {}}
    (group,) = [o for o in render_text(blueprint_text("job", **spec), gitops=gitops) if o["kind"] == "PodGroup"]
    return group


@pytest.mark.parametrize("gang, placement, expected", [
    ({"scheduler": "volcano"}, None,
     {"apiVersion": "scheduling.volcano.sh/v1beta1", "spec": {"minMember": 4, "minResources": ALL_PODS}}),
    ({"scheduler": "volcano", "queue": "training"}, {"launcher": {"priorityClassName": "high"},
                                                     "worker": {"priorityClassName": "low"}},
     {"apiVersion": "scheduling.volcano.sh/v1beta1",
      "spec": {"minMember": 4, "queue": "training", "priorityClassName": "high", "minResources": ALL_PODS}}),
    ({"scheduler": "volcano", "minAvailable": 2}, {"worker": {"priorityClassName": "low"}},
     {"apiVersion": "scheduling.volcano.sh/v1beta1",
      "spec": {"minMember": 2, "priorityClassName": "low", "minResources": LAUNCHER_AND_ONE}}),
    ({"scheduler": "scheduler-plugins"}, {"launcher": {"priorityClassName": "high"}},
     {"apiVersion": "scheduling.x-k8s.io/v1alpha1",
      "spec": {"minMember": 4, "scheduleTimeoutSeconds": 0, "minResources": ALL_PODS}}),
    ({"scheduler": "scheduler-plugins", "scheduleTimeoutSeconds": 600, "minAvailable": 3}, None,
     {"apiVersion": "scheduling.x-k8s.io/v1alpha1",
      "spec": {"minMember": 3, "scheduleTimeoutSeconds": 600, "minResources": LAUNCHER_AND_TWO}}),
    ({"scheduler": "kube-batch"}, None, {"apiVersion": "scheduling.incubator.k8s.io/v1alpha1", "spec": {"minMember": 4}}),
    ({"scheduler": "kube-batch"}, {"worker": {"priorityClassName": "low"}},
     {"apiVersion": "scheduling.incubator.k8s.io/v1alpha1", "spec": {"minMember": 4, "priorityClassName": "low"}}),
], ids=["volcano", "volcano-queue-priority", "volcano-min-available", "scheduler-plugins",
        "scheduler-plugins-timeout", "kube-batch", "kube-batch-priority"])
def test_pod_group_has_exactly_the_operator_fields(gang, placement, expected):
    """Reference 2.7 (kube-batch) and 4.8 (Volcano, scheduler-plugins): minMember workers + 1
    or minAvailable; Volcano's queue and priority (the launcher's, else the workers');
    scheduler-plugins' timeout (default 0); minResources of the launcher plus the workers cut
    to minMember - 1; no labels but mpigen's own."""
    assert pod_group(gang, placement) == {**expected, "kind": "PodGroup", "metadata": {
        "name": "job", "namespace": "default", "labels": OWN_LABELS}}


@pytest.mark.parametrize("gitops", ["argocd", "flux"])
def test_pod_group_under_gitops_counts_the_workers(gitops):
    """Under a GitOps profile the launcher is applied after the workers are ready: minMember
    is the workers alone; minResources follows reference 4.8 for that minMember; the pods
    name the run's group."""
    objects = render_text(blueprint_text("job", **GANG_JOB, scheduling={"gang": {"scheduler": "volcano"}}),
                          gitops=gitops)
    kinds = by_kind(objects)
    group = kinds["PodGroup"]
    assert group["spec"] == {"minMember": 3, "minResources": LAUNCHER_AND_TWO}
    assert re.fullmatch(r"job-[0-9a-f]{6}", group["metadata"]["name"])
    for workload in (kinds["StatefulSet"], kinds["Job"]):
        assert template_meta(workload)["annotations"]["scheduling.k8s.io/group-name"] == group["metadata"]["name"]


@pytest.mark.parametrize("gang, scheduler_name, annotation, label", [
    ({"scheduler": "volcano"}, "volcano", "scheduling.k8s.io/group-name", None),
    ({"scheduler": "kube-batch"}, "kube-batch", "scheduling.k8s.io/group-name", None),
    ({"scheduler": "scheduler-plugins"}, "scheduler-plugins-scheduler", None, "scheduling.x-k8s.io/pod-group"),
    ({"scheduler": "volcano", "schedulerName": "volcano-gpu"}, "volcano-gpu", "scheduling.k8s.io/group-name", None),
])
def test_both_pod_templates_join_the_group(gang, scheduler_name, annotation, label):
    """Launcher and workers get the gang scheduler and name the group: an annotation for
    Volcano and kube-batch, a label for scheduler-plugins."""
    objects = static({**GANG_JOB, "scheduling": {"gang": gang}})
    for workload in (objects["StatefulSet"], objects["Job"]):
        assert pod(workload)["schedulerName"] == scheduler_name
        meta = template_meta(workload)
        assert meta.get("annotations", {}).get(annotation or "-") == ("job" if annotation else None)
        assert meta["labels"].get(label or "-") == ("job" if label else None)
