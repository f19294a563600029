"""`mpigen import`: MPIJob manifests of the three generations -> blueprints. The proof is
in rendering: an imported blueprint renders what the original did, byte for byte."""

from __future__ import annotations

import random
import sys

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.support.properties import examples

from tests.support.command_line import run_mpigen
from tests.support.paths import BLUEPRINTS, ROOT
from tests.support.text import pos

FIXTURE = ROOT / "tests" / "support" / "fixtures" / "tensorflow-mnist-v1alpha2.yaml"


def without_source(text: bytes) -> bytes:
    return b"".join(line for line in text.splitlines(keepends=True) if not line.startswith(b"# Source:"))


def render(path, *args: str, cwd) -> bytes:
    done = run_mpigen("render", str(path), "--stdout", *args, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return without_source(done.stdout)


def imported(tmp_path, manifests: bytes, *args: str):
    (tmp_path / "mpijobs.yaml").write_bytes(manifests)
    return run_mpigen("import", "mpijobs.yaml", "--stdout", *args, cwd=tmp_path)


def test_the_operators_v1alpha2_tensorflow_mnist_imports_to_the_example(tmp_path):
    done = run_mpigen("import", str(FIXTURE), "--stdout", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""  # nothing lost
    spec = yaml.safe_load(done.stdout)["spec"]
    assert spec["framework"] == "horovod" and spec["command"] == ["python", "/examples/tensorflow_mnist.py"]
    # the operator's example names its image without a tag; the example writes out the :latest that means
    assert spec["image"] == "docker.io/kubeflow/mpi-horovod-mnist"
    (tmp_path / "bp.yaml").write_bytes(done.stdout.replace(b"mpi-horovod-mnist\n", b"mpi-horovod-mnist:latest\n"))
    # the old single-dash options come back in the two-dash spelling Open MPI 5 needs
    assert render(tmp_path / "bp.yaml", cwd=tmp_path) == render(BLUEPRINTS / "tensorflow-mnist.yaml", cwd=tmp_path)


sys.path.insert(0, str(ROOT / "bench"))


@settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=10**6))
def test_generated_blueprints_round_trip(tmp_path_factory, seed):
    from bench import blueprint, yaml_text

    tmp = tmp_path_factory.mktemp("rt")
    original = blueprint(seed % 1000, random.Random(seed))
    (tmp / "original.yaml").write_text(yaml_text(original))
    manifests = run_mpigen("render", "original.yaml", "--stdout", "--target", "mpijob", cwd=tmp)
    assert manifests.returncode == 0, manifests.stderr
    done = imported(tmp, manifests.stdout)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    (tmp / "imported.yaml").write_bytes(done.stdout)
    for args in ([], ["--target", "mpijob"]):
        assert render(tmp / "imported.yaml", *args, cwd=tmp) == render(tmp / "original.yaml", *args, cwd=tmp)


LOSSY = b"""apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: lossy
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - name: mpi-launcher
            image: example.com/train:1
            command: [mpirun, -np, "2", --allow-run-as-root, python, train.py]
    Worker:
      replicas: 2
      template:
        spec:
          serviceAccountName: trainer
          containers:
          - name: mpi-worker
            image: example.com/train:1
            securityContext: {runAsGroup: 1000}
          - name: sidecar
            image: example.com/proxy:1
"""


def test_pod_and_container_fields_go_to_the_pod_template_patch(tmp_path):
    """The escape hatch: nothing a blueprint can carry is lost, and rendering puts it back; the
    workers' account is the blueprint's own field for it (serviceAccount.name: the workers run as it)."""
    done = imported(tmp_path, LOSSY)
    spec = yaml.safe_load(done.stdout)["spec"]
    assert spec["podTemplatePatch"] == {"worker": {"container": {"securityContext": {"runAsGroup": 1000}}}}
    assert spec["serviceAccount"] == {"name": "trainer"}
    (tmp_path / "bp.yaml").write_bytes(done.stdout)
    for args in ([], ["--target", "mpijob"]):
        objects = [o for o in yaml.safe_load_all(render(tmp_path / "bp.yaml", *args, cwd=tmp_path)) if o]
        pods = [o["spec"]["template"]["spec"] for o in objects if o["kind"] == "StatefulSet"] or [
            o["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"] for o in objects if o["kind"] == "MPIJob"]
        assert pods[0]["serviceAccountName"] == "trainer"
        # merged into mpigen's least privilege (which adds what a root sshd needs on mpijob)
        context = pods[0]["containers"][0]["securityContext"]
        assert (context["runAsGroup"], context["allowPrivilegeEscalation"], context["capabilities"]["drop"]) == (
            1000, False, ["ALL"])


@pytest.mark.parametrize("api", ["kubeflow.org/v1alpha2", "kubeflow.org/v1", "kubeflow.org/v2beta1"])
def test_what_a_blueprint_cannot_express_is_reported_at_its_position(tmp_path, api):
    manifest = LOSSY.replace(b"kubeflow.org/v2beta1", api.encode())
    done = imported(tmp_path, manifest)
    assert done.returncode == 0
    text = manifest.decode()
    lines = done.stderr.decode().splitlines()
    assert [tuple(map(int, line.split(":")[1:3])) for line in lines] == [pos(text, "- name: sidecar", "name")]
    assert all(": warning: " in line and "cannot express" in line for line in lines)
    assert yaml.safe_load(done.stdout)["spec"]["workers"] == 2
    strict = imported(tmp_path, manifest, "--strict")
    assert strict.returncode == 2 and strict.stdout == b"" and strict.stderr.count(b": error: ") == 1


@pytest.mark.parametrize("manifest, message", [
    (b"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n", "no MPIJob, TrainJob or Trainer runtime in this file"),
    (b"apiVersion: kubeflow.org/v9\nkind: MPIJob\nmetadata: {name: x}\nspec: {}\n", "not an MPIJob of"),
    (b"apiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nmetadata: {name: x}\nspec: {mpiReplicaSpecs: {}}\n",
     "needs mpiReplicaSpecs with a Launcher"),
    (b"apiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nmetadata: {name: x\n", "invalid YAML"),
])
def test_invalid_manifests(tmp_path, manifest, message):
    done = imported(tmp_path, manifest)
    assert done.returncode == 2 and done.stdout == b""
    line = done.stderr.decode().splitlines()[0]
    assert (line.startswith("mpijobs.yaml:") and ": error: " in line or line.startswith("error: mpijobs.yaml: ")) \
        and message in line, line


def test_output_folder_never_overwrites(tmp_path):
    done = run_mpigen("import", str(FIXTURE), "-o", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    target = tmp_path / "out" / "default" / "tensorflow-mnist.yaml"
    assert target.is_file()
    target.write_text("mine\n")
    again = run_mpigen("import", str(FIXTURE), "-o", "out", cwd=tmp_path)
    assert again.returncode == 2 and target.read_text() == "mine\n"


GPU_MPIJOB = """apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: gpus
spec:
  slotsPerWorker: 2
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - name: mpi-launcher
            image: img
            command: [mpirun, -np, "4", --allow-run-as-root, python, train.py]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: mpi-worker
            image: img
            resources: {limits: {nvidia.com/gpu: 2}}
            volumeMounts: [{name: scratch, mountPath: /scratch}{shm_mount}]
          volumes:
          - {name: scratch, emptyDir: {}}{shm_volume}
"""


@pytest.mark.parametrize("shm_volume, shm_mount, shared_memory", [
    ("", "", "0"),  # the MPIJob ran with the runtime's 64 MiB: the import keeps it so
    ("\n          - {name: shm, emptyDir: {medium: Memory, sizeLimit: 16Gi}}",
     ", {name: shm, mountPath: /dev/shm}", "16Gi"),
])
def test_shared_memory_and_worker_only_volumes_are_imported(tmp_path, shm_volume, shm_mount, shared_memory):
    """A sized memory emptyDir at /dev/shm is spec.sharedMemory; a GPU MPIJob without one
    gets sharedMemory: 0 (mpigen's default would add one); another volume only the workers
    mount cannot be a dataset and is reported, at its line, as lost."""
    text = GPU_MPIJOB.replace("{shm_volume}", shm_volume).replace("{shm_mount}", shm_mount)
    done = imported(tmp_path, text.encode())
    assert done.returncode == 0
    assert yaml.safe_load(done.stdout)["spec"]["sharedMemory"] == shared_memory
    line, column = pos(text, "{name: scratch, emptyDir")
    assert done.stderr.decode().startswith(f"mpijobs.yaml:{line}:{column}: warning: ")
    assert "'scratch'" in done.stderr.decode()
