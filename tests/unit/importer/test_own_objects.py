"""What mpigen writes beside the operator's fields, read back (mpigen.importer.own_objects):
from mpigen's own render into the blueprint fields that wrote it; from a hand-written MPIJob
only where rendering gives it back, else reported at its line."""

from __future__ import annotations

from mpigen.load.parser import parse
from mpigen.importer.manifest import import_document
from tests.support.text import pos

JOB = """apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: train
  namespace: ml
  labels: {LABELS}
spec:
  slotsPerWorker: 1
  runLauncherAsWorker: {AS_WORKER}
  runPolicy: {POLICY}
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        metadata: {LAUNCHER_META}
        spec:
          serviceAccountName: {ACCOUNT}
          containers:
          - name: mpi-launcher
            image: example.com/train:1
            command: [mpirun, -np, "{NP}", --allow-run-as-root, python, train.py]
            securityContext: {LAUNCHER_CONTEXT}
    Worker:
      replicas: 2
      template:
        metadata: {WORKER_META}
        spec:
          serviceAccountName: {ACCOUNT}
          containers:
          - name: mpi-worker
            image: example.com/train:1
            securityContext: {WORKER_CONTEXT}
"""
DEFAULTS = {"LABELS": "{}", "AS_WORKER": "false", "POLICY": "{}", "LAUNCHER_META": "{}", "WORKER_META": "{}",
            "ACCOUNT": "", "NP": "2", "LAUNCHER_CONTEXT": "{}", "WORKER_CONTEXT": "{}"}
OURS = "{app.kubernetes.io/managed-by: mpigen, kueue.x-k8s.io/queue-name: q}"
IDENTITY = """---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: train-identity
  namespace: ml
  labels: {app.kubernetes.io/managed-by: mpigen}
  annotations: {eks.amazonaws.com/role-arn: "arn:aws:iam::1:role/x"}
"""


def job(**fields: str) -> str:
    text = JOB
    for key, value in {**DEFAULTS, **fields}.items():
        text = text.replace("{" + key + "}", value)
    return text.replace("          serviceAccountName: \n", "")  # no account


def imported(text: str):
    docs = parse(text, "job.yaml")
    result = import_document(docs[0], accounts=tuple(docs[1:]))
    return result.blueprint.get("spec"), [(d.severity, (d.mark.line, d.mark.column), d.message)
                                          for d in result.diagnostics]


def test_mpigens_topology_request_and_multikueue_are_scheduling_fields():
    annotation = "{annotations: {kueue.x-k8s.io/podset-required-topology: rack}}"
    spec, reported = imported(job(LABELS=OURS, WORKER_META=annotation, POLICY="{managedBy: kueue.x-k8s.io/multikueue}"))
    assert reported == []
    assert spec["scheduling"] == {"queue": "q", "topology": {"required": "rack"}, "multiKueue": True}


def test_without_a_queue_multikueue_is_reported_at_its_line():
    text = job(POLICY="{managedBy: kueue.x-k8s.io/multikueue}")
    spec, reported = imported(text)
    assert "scheduling" not in spec
    assert [(where, "leaves it out" in message) for _, where, message in reported] == [
        (pos(text, "managedBy"), True)]


def test_a_launcher_that_is_a_worker_comes_back_only_from_mpigens_own_mpijob():
    spec, reported = imported(job(LABELS=OURS, AS_WORKER="true", NP="3"))
    assert (spec["launcher"], reported) == ({"runAsWorker": True}, [])
    text = job(AS_WORKER="true", NP="3")
    _, reported = imported(text)
    # (and its -np 3, which now oversubscribes the 2 workers, at the launch line)
    assert [where for _, where, _ in reported][:1] == [pos(text, "runLauncherAsWorker")]


def test_the_identity_mpigen_made_is_read_from_its_serviceaccount_when_given():
    spec, reported = imported(job(ACCOUNT="train-identity") + IDENTITY)
    assert reported == []
    assert spec["serviceAccount"] == {"annotations": {"eks.amazonaws.com/role-arn": "arn:aws:iam::1:role/x"}}
    assert "podTemplatePatch" not in spec
    text = job(ACCOUNT="train-identity")  # its ServiceAccount not given: the launcher's account is reported
    spec, reported = imported(text)
    assert spec["podTemplatePatch"]["worker"]["pod"] == {"serviceAccountName": "train-identity"}
    assert [where for _, where, _ in reported] == [pos(text, "serviceAccountName: train-identity\n          containers:\n          - name: mpi-launcher",
                                                    "serviceAccountName")]


def test_privileged_ranks_are_security_privileged_and_a_privileged_launcher_alone_is_reported():
    spec, reported = imported(job(WORKER_CONTEXT="{privileged: true, capabilities: {add: [IPC_LOCK]}}"))
    assert (spec["security"], reported) == ({"privileged": True, "capabilities": ["IPC_LOCK"]}, [])
    text = job(LAUNCHER_CONTEXT="{privileged: true}")
    spec, reported = imported(text)
    assert "security" not in spec
    assert [where for _, where, _ in reported] == [pos(text, "privileged")]
