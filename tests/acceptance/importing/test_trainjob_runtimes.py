"""`mpigen import` of TrainJobs, and the runtimes given beside them: a runtime that is not
MPI's is refused at its line, saying what mpigen renders; one runtime defined twice with
different content is refused naming both definitions, and one defined twice the same is
read once.

The Trainer's API (kubeflow/trainer v2.3.0, pkg/apis/trainer/v1alpha1/trainingruntime_types.go)
gives a runtime's mlPolicy one of torch, mpi, flux, jax, xgboost (MLPolicySource), or none;
its shipped torch-distributed runtime (tests/support/fixtures/torch-distributed-runtime.yaml)
says `torch: {}`."""

from __future__ import annotations

import pytest
import yaml

from tests.support.paths import ROOT
from tests.support.text import pos

FIXTURES = ROOT / "tests" / "support" / "fixtures"
TORCH = FIXTURES / "torch-distributed-runtime.yaml"
DEEPSPEED = FIXTURES / "deepspeed-distributed-runtime.yaml"


def trainjob(runtime: str, kind: str = "ClusterTrainingRuntime", name: str = "tuned") -> str:
    return f"""apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
spec:
  runtimeRef:
    name: {runtime}
    kind: {kind}
  trainer:
    image: registry.example.com/train:1
    command: [torchrun, /workspace/train.py]
    numNodes: 2
"""


def test_a_trainjob_on_the_trainers_torch_runtime_is_refused_at_the_runtimes_policy(cli, tmp_path):
    (tmp_path / "trainjob.yaml").write_text(trainjob("torch-distributed"))
    (tmp_path / "runtime.yaml").write_bytes(TORCH.read_bytes())
    done = cli("import", "trainjob.yaml", "runtime.yaml")
    line, column = pos(TORCH.read_text(), "torch: {}", "torch")
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.lines("error") == [
        f"runtime.yaml:{line}:{column}: error: ClusterTrainingRuntime spec.mlPolicy.torch: a torch runtime; mpigen "
        "renders MPI jobs only, on a runtime with mlPolicy.mpi (Open MPI, MPICH, Intel MPI): import a TrainJob of "
        "such a runtime, or keep this one as it is"]


@pytest.mark.parametrize("policy, needle, sub, where", [
    ("  mlPolicy:\n    numNodes: 2\n", "mlPolicy:", "mlPolicy", "spec.mlPolicy"),
    ("  mlPolicy:\n    jax: {}\n", "jax: {}", "jax", None),
    ("", "spec:", "spec", "spec"),
])
def test_a_runtime_without_mpis_policy_is_refused_at_its_line(cli, tmp_path, policy, needle, sub, where):
    runtime = ("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainingRuntime\nmetadata:\n  name: plain\n"
               f"spec:\n{policy}  template:\n    spec:\n      replicatedJobs: []\n")
    (tmp_path / "jobs.yaml").write_text(trainjob("plain", "TrainingRuntime") + "---\n" + runtime)
    done = cli("import", "jobs.yaml")
    text = (tmp_path / "jobs.yaml").read_text()
    line, column = pos(text, needle, sub) if needle != "spec:" else pos(text, "spec:\n  template", "spec")
    assert (done.returncode, done.stdout) == (2, b"")
    (message,) = done.lines("error")
    assert message.startswith(f"jobs.yaml:{line}:{column}: error: TrainingRuntime ")
    assert "mpigen renders MPI jobs only, on a runtime with mlPolicy.mpi (Open MPI, MPICH, Intel MPI)" in message
    assert (f"{where}: a runtime without mlPolicy.mpi" in message) if where else "a jax runtime" in message


def test_one_runtime_defined_twice_with_different_content_is_refused_naming_both(cli, tmp_path):
    (tmp_path / "trainjob.yaml").write_text(trainjob("deepspeed-distributed"))
    text = DEEPSPEED.read_text()
    (tmp_path / "a.yaml").write_text(text)
    (tmp_path / "b.yaml").write_text(text.replace("numProcPerNode: 1", "numProcPerNode: 2"))
    done = cli("import", "trainjob.yaml", "a.yaml", "b.yaml")
    line, column = pos(text, "name: deepspeed-distributed", "name")
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.lines("error") == [
        f"b.yaml:{line}:{column}: error: ClusterTrainingRuntime 'deepspeed-distributed' is defined twice, at "
        f"a.yaml:{line}:{column} and here, with different content: which one a job runs on depends on the order "
        "the files are given; keep one of them"]
    assert "references it" not in done.stderr


def test_a_namespaced_runtime_of_another_namespace_is_another_runtime(cli, tmp_path):
    runtime = DEEPSPEED.read_text().replace("ClusterTrainingRuntime", "TrainingRuntime")
    (tmp_path / "trainjob.yaml").write_text(trainjob("deepspeed-distributed", "TrainingRuntime"))
    (tmp_path / "a.yaml").write_text(runtime)
    (tmp_path / "b.yaml").write_text(runtime.replace("metadata:\n", "metadata:\n  namespace: other\n", 1)
                                     .replace("numProcPerNode: 1", "numProcPerNode: 2"))
    done = cli("import", "trainjob.yaml", "a.yaml", "b.yaml")
    assert done.returncode == 0, done.stderr
    assert [line for line in done.lines("warning") if "references it" in line] == [
        f"b.yaml:{pos(runtime, 'kind: TrainingRuntime')[0]}:1: warning: TrainingRuntime "
        "'deepspeed-distributed': no TrainJob given references it"]


def test_one_runtime_defined_twice_the_same_is_read_once(cli, tmp_path):
    (tmp_path / "trainjob.yaml").write_text(trainjob("deepspeed-distributed"))
    (tmp_path / "a.yaml").write_bytes(DEEPSPEED.read_bytes())
    (tmp_path / "b.yaml").write_bytes(DEEPSPEED.read_bytes())
    done = cli("import", "trainjob.yaml", "a.yaml", "b.yaml")
    alone = cli("import", "trainjob.yaml", "a.yaml")
    assert done.returncode == 0, done.stderr
    assert (done.stdout, done.stderr) == (alone.stdout, alone.stderr)
    assert "references it" not in done.stderr
    assert yaml.safe_load(done.stdout.decode().split("---\n", 1)[1])["spec"]["runtime"]["name"] == "deepspeed-distributed"
