"""Blueprint fields that Kubernetes' own validation judges where mpigen writes them, refused by
validate_document at their field (docs/validation.md names each rule): a volume's name is a
DNS-1123 label, an NFS export's path absolute, a CSI driver's name and a ConfigMap's or
Secret's DNS-1123 subdomains, and so are a priorityClassName and a serviceAccountName
(kubernetes v1.30 pkg/apis/core/validation/validation.go validateVolumes, validateVolumeSource,
ValidatePodSpec, ValidateServiceAccountName); user and group ids from 0 to 2147483647 (validatePodSecurityContext);
a Job's activeDeadlineSeconds not negative and an Indexed Job's parallelism (the workers of
the jobset and trainjob targets) at most 100000 (pkg/apis/batch/validation/validation.go
validateJobSpec); a pod condition of a failure rule a qualified name with status True, False or
Unknown (validatePodFailurePolicyRuleOnPodConditions); the Trainer's numProcPerNode at least 1
(kubeflow/trainer trainingruntime_types.go CEL) and the MPI Operator's slotsPerWorker
and cleanPodPolicy (kubeflow/mpi-operator pkg/apis/kubeflow/validation/validation.go
validateMPIJobSpec, validateRunPolicy); Kueue's queue-name a DNS-1123 subdomain
(kubernetes-sigs/kueue pkg/controller/jobframework/validation.go ValidateQueueName); a path
without NUL (runc cannot mount one); and restartPolicy, which each target writes as its kind
requires (OnFailure or Never for a Job, Always for a StatefulSet), never from a patch. The
nearest value each rule takes passes, so that a check too strict fails here too."""

from __future__ import annotations

import pytest

from mpigen.load.parser import parse
from mpigen.validate.document import validate_document
from mpigen.validate.reserved import Reserved
from tests.support.blueprints import blueprint_text


def errors(**spec) -> list[str]:
    (doc,) = parse(blueprint_text("job", **spec), "job.yaml")
    _, diagnostics = validate_document(doc, Reserved())
    return [d.message for d in diagnostics if d.severity == "error"]


def dataset(name: str = "data", mount: str = "/data", **source) -> dict:
    return {"datasets": [{"name": name, "mountPath": mount, **(source or {"pvc": "claim"})}]}


def condition(type_: str = "DisruptionTarget", status: str = "True") -> dict:
    rule = {"action": "FailJob", "onPodConditions": [{"type": type_, "status": status}]}
    return {"runPolicy": {"failurePolicy": {"rules": [rule]}}}


# (the spec a rule refuses, the field the error names, the nearest spec it takes)
CASES = {
    "volume name": (dataset(name="Data_1"), "spec.datasets[0].name", dataset(name="data-1")),
    "NFS path": (dataset(nfs={"server": "fs.example.com", "path": "imagenet"}), "spec.datasets[0].nfs.path",
                 dataset(nfs={"server": "fs.example.com", "path": "/imagenet"})),
    "CSI driver": (dataset(csi={"driver": "Bucket_Driver"}), "spec.datasets[0].csi.driver",
                   dataset(csi={"driver": "bucket.csi.example.com"})),
    "ConfigMap name": (dataset(configMap="Train_Config"), "spec.datasets[0].configMap",
                       dataset(configMap="train.config")),
    "Secret name": (dataset(secret="Api_Key"), "spec.datasets[0].secret", dataset(secret="api-key")),
    "priorityClassName": ({"placement": {"worker": {"priorityClassName": "High_Prio"}}},
                          "spec.placement.worker.priorityClassName",
                          {"placement": {"worker": {"priorityClassName": "high-prio"}}}),
    "serviceAccountName": ({"serviceAccount": {"name": "Bad_SA"}}, "spec.serviceAccount.name",
                           {"serviceAccount": {"name": "bad-sa"}}),
    "runAsUser below 0": ({"security": {"runAsUser": -1}}, "spec.security.runAsUser", {"security": {"runAsUser": 0}}),
    "runAsGroup beyond int32": ({"security": {"runAsGroup": 2**31}}, "spec.security.runAsGroup",
                                {"security": {"runAsGroup": 2**31 - 1}}),
    "fsGroup below 0": ({"security": {"fsGroup": -1}}, "spec.security.fsGroup", {"security": {"fsGroup": 0}}),
    "activeDeadlineSeconds": ({"runPolicy": {"activeDeadlineSeconds": -1}}, "spec.runPolicy.activeDeadlineSeconds",
                              {"runPolicy": {"activeDeadlineSeconds": 1}}),
    "pod condition type": (condition(type_="Disruption Target"), "onPodConditions[0].type",
                           condition(type_="example.com/Preempted")),
    "pod condition status": (condition(status="Maybe"), "onPodConditions[0].status", condition(status="Unknown")),
    "Indexed parallelism": ({"workers": 100_001}, "spec.workers", {"workers": 100_000}),
    "numProcPerNode": ({"slotsPerWorker": 0}, "spec.slotsPerWorker", {"slotsPerWorker": 1}),
    "cleanPodPolicy": ({"runPolicy": {"cleanPodPolicy": "Sometimes"}}, "spec.runPolicy.cleanPodPolicy",
                       {"runPolicy": {"cleanPodPolicy": "All"}}),
    "queue name": ({"scheduling": {"queue": "Team_A"}}, "spec.scheduling.queue", {"scheduling": {"queue": "team-a"}}),
    "NUL in a mount path": (dataset(mount="/data\0x"), "spec.datasets[0].mountPath", dataset(mount="/data-x")),
}


@pytest.mark.parametrize("refused, field", [case[:2] for case in CASES.values()], ids=list(CASES))
def test_a_value_kubernetes_refuses_is_refused(refused, field):
    found = errors(**refused)
    assert any(field in message for message in found), found


@pytest.mark.parametrize("taken", [case[2] for case in CASES.values()], ids=list(CASES))
def test_the_nearest_value_kubernetes_takes_passes(taken):
    assert errors(**taken) == []


@pytest.mark.parametrize("role", ["launcher", "worker"])
@pytest.mark.parametrize("policy", ["Always", "OnFailure", "Never"])
def test_a_pod_field_the_targets_write_cannot_be_patched(role, policy):
    found = errors(podTemplatePatch={role: {"pod": {"restartPolicy": policy}}})
    assert any(f"spec.podTemplatePatch.{role}.pod: 'restartPolicy' cannot be patched" in m for m in found), found
