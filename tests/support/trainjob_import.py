"""The round trip of `mpigen import` for TrainJobs: a blueprint rendered with --target
trainjob, its output imported, and the imported blueprint rendered again; and the blueprint on
a runtime of the cluster's that the import tests share."""

from __future__ import annotations

# A blueprint a runtime of the cluster's can run (runtimePatches carry its pods' fields).
NAMED = """apiVersion: mpigen.dev/v1alpha1
kind: MPIJobBlueprint
metadata:
  name: bert-large
  namespace: nlp
  labels: {team: nlp}
spec:
  framework: horovod
  image: registry.example.com/nlp/bert:2.1
  workers: 3
  gpusPerWorker: 2
  command: [python, /workspace/pretrain.py]
  env: {NCCL_DEBUG: INFO}
  runtime: {name: mpi-openmpi-cuda, kind: ClusterTrainingRuntime}
  datasets:
    - {name: corpus, pvc: wiki-corpus, mountPath: /data}
  placement:
    worker: {nodeSelector: {gpu: a100}}
  scheduling: {queue: nlp-queue, priorityClass: high, multiKueue: true}
"""


def without_source(text: bytes) -> bytes:
    return b"".join(line for line in text.splitlines(keepends=True) if not line.startswith(b"# Source:"))


def rendered(cli, path: str) -> bytes:
    done = cli("render", path, "--stdout", "--target", "trainjob")
    assert done.returncode == 0, done.stderr
    return without_source(done.stdout)


def round_trip(cli, tmp_path, blueprint: str, *files: str) -> tuple[bytes, bytes, str]:
    """(first render, render of the imported blueprint, what import reported)."""
    (tmp_path / "bp.yaml").write_text(blueprint)
    first = rendered(cli, "bp.yaml")
    (tmp_path / "trainjob.yaml").write_bytes(first)
    done = cli("import", "trainjob.yaml", *files)
    assert done.returncode == 0, done.stderr
    (tmp_path / "imported.yaml").write_bytes(done.stdout)
    return first, rendered(cli, "imported.yaml"), done.stderr
