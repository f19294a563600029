"""A small MPIJob, its fields filled in per test, imported by mpigen.decompile.mpijob: what the
decompile tests of mpigen's own objects (tests/unit/decompile) read."""

from __future__ import annotations

from mpigen.decompile.mpijob import import_document
from mpigen.decompile.port import Given
from mpigen.load.parser import parse
from mpigen.render.targets import RESERVED

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
    result = import_document(docs[0], given=Given(tuple(docs[1:]), RESERVED))
    return result.blueprint.get("spec"), [(d.severity, (d.mark.line, d.mark.column), d.message)
                                          for d in result.diagnostics]
