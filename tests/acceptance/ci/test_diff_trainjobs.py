"""`mpigen diff OLD_DIR NEW_DIR` of TrainJob folders, through the command line: totals from
the TrainJob and its runtime, a change the TrainJob's CEL rules refuse, a new run under
Argo CD, `state: completed`, and a TrainJob whose runtime is named, not rendered.

The folders hold YAML written by hand in the shape /work/notes/trainjob-design.md gives the
`trainjob` target's output (a TrainingRuntime named as the TrainJob, with replicated jobs
`node` and `launcher`; a TrainJob referencing it): 4 nodes x 8 GPUs, numProcPerNode 8.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.ci_repository import mpigen, no_git

RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: {name}
  namespace: ml-team
  labels: {{app.kubernetes.io/managed-by: mpigen, mpigen.dev/job: resnet50}}
spec:
  mlPolicy:
    numNodes: 1
    mpi: {{numProcPerNode: 1, mpiImplementation: OpenMPI, sshAuthMountPath: /etc/mpi-ssh-auth,
           runLauncherAsNode: false}}
  template:
    spec:
      network: {{enableDNSHostnames: true, publishNotReadyAddresses: true}}
      successPolicy: {{operator: All, targetReplicatedJobs: [launcher]}}
      failurePolicy: {{maxRestarts: 0, restartStrategy: Recreate}}
      replicatedJobs:
        - name: node
          replicas: 1
          template:
            spec:
              parallelism: 1
              completions: 1
              completionMode: Indexed
              backoffLimit: 0
              template:
                spec:
                  containers:
                    - name: node
                      image: ghcr.io/acme/resnet:1
                      command: [/bin/sh, /etc/mpigen-ssh/sshd.sh]
                      resources:
                        limits: {{nvidia.com/gpu: 8, cpu: "32"}}
        - name: launcher
          replicas: 1
          dependsOn: [{{name: node, status: Ready}}]
          template:
            metadata:
              labels: {{trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
            spec:
              parallelism: 1
              completions: 1
              backoffLimit: 0
              template:
                spec:
                  containers:
                    - name: node
                      image: ghcr.io/acme/resnet:1
"""

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
  namespace: ml-team
  labels: {{app.kubernetes.io/managed-by: mpigen, mpigen.dev/job: resnet50}}
spec:
  runtimeRef: {{name: {runtime}, apiGroup: trainer.kubeflow.org, kind: {kind}}}
  trainer:
    image: ghcr.io/acme/resnet:1
    command: [mpirun, -np, "{np}", python, train.py]
    numNodes: {nodes}
    numProcPerNode: 8
{extra}"""


def write(folder: Path, name: str = "resnet50", nodes: int = 4, runtime: str | None = None,
          extra: str = "") -> None:
    """One job: the TrainJob `name` and, unless runtime names another, its TrainingRuntime."""
    (folder / "ml-team").mkdir(parents=True)
    if runtime is None:
        (folder / "ml-team" / f"trainingruntime-{name}.yaml").write_text(RUNTIME.format(name=name))
    kind = "TrainingRuntime" if runtime is None else "ClusterTrainingRuntime"
    (folder / "ml-team" / f"trainjob-{name}.yaml").write_text(TRAINJOB.format(
        name=name, runtime=runtime or name, kind=kind, nodes=nodes, np=nodes * 8, extra=extra))


def diff(where: Path, *options: str) -> tuple[int, dict]:
    run = mpigen(where, "diff", "old", "new", "--format", "json", *options, env=no_git(where))
    assert run.code in (0, 1), run.err
    return run.code, json.loads(run.out)


def text(where: Path) -> str:
    return mpigen(where, "diff", "old", "new", env=no_git(where)).out


def test_first_render_counts_the_runtimes_gpus_and_the_trainers_slots(tmp_path):
    (tmp_path / "old").mkdir()
    write(tmp_path / "new")
    code, data = diff(tmp_path)
    assert code == 1
    job, = data["jobs"]
    assert job["gpus"] == {"old": 0, "new": 32}  # 4 node pods x 8; the launcher has none
    assert job["slots"] == {"old": 0, "new": 32}  # 4 hostfile lines of slots=8
    assert job["newRun"] and {o["kind"] for o in job["added"]} == {"TrainJob", "TrainingRuntime"}
    assert "  GPUs 0 -> 32\n  slots 0 -> 32\n  starts a new run: a launcher Job is created\n" in text(tmp_path)


def test_more_nodes_in_place_is_refused(tmp_path):
    write(tmp_path / "old", nodes=4)
    write(tmp_path / "new", nodes=8)
    code, data = diff(tmp_path, "--fail-on", "immutable")
    assert code == 1
    job, = data["jobs"]
    assert job["gpus"] == {"old": 32, "new": 64} and job["slots"] == {"old": 32, "new": 64}
    assert [(f["object"], f["path"]) for f in job["immutable"]] == [("TrainJob ml-team/resnet50", "spec.trainer")]
    assert ("IMMUTABLE: Kubernetes refuses to change spec.trainer of TrainJob ml-team/resnet50: Argo CD and "
            "Flux will fail to sync it; delete and recreate the object (give the run a new name) instead") in text(
        tmp_path)


def test_more_nodes_under_a_new_run_name_is_a_new_run(tmp_path):
    write(tmp_path / "old", name="resnet50-3f2a1c", nodes=4)
    write(tmp_path / "new", name="resnet50-9b0e47", nodes=8)
    code, data = diff(tmp_path, "--fail-on", "immutable")
    assert code == 0 and data["summary"] == {"jobs": 1, "added": 2, "removed": 2, "changed": 0, "immutable": 0}
    job, = data["jobs"]
    assert job["newRun"] and job["endsRun"]
    assert job["gpus"] == {"old": 32, "new": 64} and job["slots"] == {"old": 32, "new": 64}


def test_completed_suspends_the_trainjob_in_place(tmp_path):
    write(tmp_path / "old")
    write(tmp_path / "new", extra="  suspend: true\n")
    code, data = diff(tmp_path, "--fail-on", "immutable")
    assert code == 0 and data["summary"]["immutable"] == 0
    job, = data["jobs"]
    assert job["gpus"] == {"old": 32, "new": 0} and job["slots"] == {"old": 32, "new": 0}
    assert [(c["kind"], c["fields"]) for c in job["changed"]] == [
        ("TrainJob", [{"path": "spec.suspend", "op": "add", "old": None, "new": True}])]


def test_named_runtime_counts_num_nodes_times_resources_per_node(tmp_path):
    """The runtime exists on the cluster, not in the folders: resourcesPerNode tells the GPUs."""
    per_node = "    resourcesPerNode:\n      limits: {nvidia.com/gpu: 4}\n"
    (tmp_path / "old").mkdir()
    write(tmp_path / "new", runtime="openmpi-cuda")
    path = tmp_path / "new" / "ml-team" / "trainjob-resnet50.yaml"
    path.write_text(path.read_text().replace("    numProcPerNode: 8\n", "    numProcPerNode: 8\n" + per_node))
    code, data = diff(tmp_path)
    job, = data["jobs"]
    assert job["gpus"] == {"old": 0, "new": 16} and job["slots"] == {"old": 0, "new": 32}
    assert [o["kind"] for o in job["added"]] == ["TrainJob"]
