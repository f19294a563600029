"""The Pod Security check's two halves beside the controls: where the pod templates of each
kind are (the table of kinds' `pod_templates`), and which blueprint field set a refused pod
field (mpigen.check.pod_fields): a podTemplatePatch path holding the rendered value, else
the blueprint's own field, else none."""

from __future__ import annotations

import pytest

from mpigen.check.pod_fields import causes, parse_path
from mpigen.load.parser import parse
from mpigen.render.refusals import pod_templates

BLUEPRINT = """\
metadata:
  annotations: {container.apparmor.security.beta.kubernetes.io/worker: unconfined}
spec:
  network: {hostNetwork: true}
  datasets:
    - {name: data, mountPath: /data, pvc: data}
    - {name: scratch, mountPath: /scratch, hostPath: /mnt}
  security:
    capabilities: [SYS_PTRACE]
    privileged: false
  podTemplatePatch:
    worker:
      pod: {hostPID: true}
      container:
        ports: [{containerPort: 1, hostPort: 1}]
"""
TEMPLATE = {"metadata": {"annotations": {"container.apparmor.security.beta.kubernetes.io/worker": "unconfined"}},
            "spec": {"hostNetwork": True, "hostPID": True,
                     "containers": [{"name": "worker", "ports": [{"containerPort": 1, "hostPort": 1}],
                                     "securityContext": {"capabilities": {"add": ["SYS_PTRACE", "SYS_CHROOT"]}}}],
                     "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
                                 {"name": "scratch", "hostPath": {"path": "/mnt"}}]}}


@pytest.fixture
def doc():
    (document,) = parse(BLUEPRINT, "job.yaml")
    return document


def test_paths_parse_into_keys_and_indexes():
    assert parse_path("spec.containers[0].securityContext") == ("spec", "containers", 0, "securityContext")
    assert parse_path("metadata.annotations[a.b/c]") == ("metadata", "annotations", "a.b/c")


@pytest.mark.parametrize("path,bad,expected", [
    ("spec.hostNetwork", {"true"}, [("spec", "network", "hostNetwork")]),
    ("spec.hostPID", {"true"}, [("spec", "podTemplatePatch", "worker", "pod", "hostPID")]),
    ("spec.containers[0].ports[0].hostPort", {"1"},
     [("spec", "podTemplatePatch", "worker", "container", "ports", 0, "hostPort")]),
    ("spec.volumes[1].hostPath", {"scratch"}, [("spec", "datasets", 1, "hostPath")]),
    ("spec.containers[0].securityContext.capabilities.add", {"SYS_PTRACE", "SYS_CHROOT"},
     [("spec", "security", "capabilities")]),
    # a capability only the target adds (a root sshd's): no blueprint field set it
    ("spec.containers[0].securityContext.capabilities.add", {"SYS_CHROOT"}, []),
    # privileged: false is written, but is not what leaves allowPrivilegeEscalation unset
    ("spec.containers[0].securityContext.allowPrivilegeEscalation", {"unset"}, []),
    ("spec.securityContext.runAsNonRoot", {"unset"}, []),
    ("metadata.annotations[container.apparmor.security.beta.kubernetes.io/worker]", {"unconfined"},
     [("metadata", "annotations", "container.apparmor.security.beta.kubernetes.io/worker")]),
])
def test_the_blueprint_field_that_set_a_pod_field(doc, path, bad, expected):
    assert causes(doc, TEMPLATE, path, bad) == expected


@pytest.mark.parametrize("obj,expected", [
    ({"apiVersion": "batch/v1", "kind": "Job", "spec": {"template": {"spec": {}}}}, ["spec.template"]),
    ({"apiVersion": "apps/v1", "kind": "StatefulSet", "spec": {"template": {"spec": {}}}}, ["spec.template"]),
    ({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
      "spec": {"replicatedJobs": [{"template": {"spec": {"template": {"spec": {}}}}}] * 2}},
     ["spec.replicatedJobs[0].template.spec.template", "spec.replicatedJobs[1].template.spec.template"]),
    ({"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob",
      "spec": {"mpiReplicaSpecs": {"Launcher": {"template": {}}, "Worker": {"template": {}}}}},
     ["spec.mpiReplicaSpecs.Launcher.template", "spec.mpiReplicaSpecs.Worker.template"]),
    ({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
      "spec": {"template": {"spec": {"replicatedJobs": [{"template": {"spec": {"template": {}}}}]}}}},
     ["spec.template.spec.replicatedJobs[0].template.spec.template"]),
    # a TrainJob holds no pod template (its runtime does), nor does a ConfigMap
    ({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "spec": {"trainer": {}}}, []),
    ({"apiVersion": "v1", "kind": "ConfigMap", "data": {}}, []),
])
def test_each_kinds_pod_templates_are_where_the_table_says(obj, expected):
    assert [path for path, _ in pod_templates(obj)] == expected


def test_the_v1_launchers_pods_get_the_training_operators_init_container():
    """reference/mpi-operator.md, section 3.7: appended to the launcher's initContainers; the
    object itself is left as it is."""
    replicas = {"Launcher": {"template": {"spec": {"initContainers": [{"name": "mine"}]}}},
                "Worker": {"template": {"spec": {}}}}
    obj = {"apiVersion": "kubeflow.org/v1", "kind": "MPIJob", "spec": {"mpiReplicaSpecs": replicas}}
    found = dict(pod_templates(obj))
    assert [c["name"] for c in found["spec.mpiReplicaSpecs.Launcher.template"]["spec"]["initContainers"]] == [
        "mine", "kubectl-delivery"]
    assert "initContainers" not in found["spec.mpiReplicaSpecs.Worker.template"]["spec"]
    assert replicas["Launcher"]["template"]["spec"]["initContainers"] == [{"name": "mine"}]
    v2 = dict(pod_templates({**obj, "apiVersion": "kubeflow.org/v2beta1"}))
    assert v2["spec.mpiReplicaSpecs.Launcher.template"]["spec"]["initContainers"] == [{"name": "mine"}]
