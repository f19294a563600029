"""Hand-written MPIJobs in the shapes people write (issue 49), each a file of
tests/support/fixtures/import_shapes/: imported, the blueprint rendered under every target, and every pod
template of each render compared, field by field, with the hand-written job's (volumes,
mounts, env: tests/support/effective_pods.py). The contract mounts every dataset and sets
every env variable on the launcher and every worker, so every template of a render must
carry what the hand-written worker carries.

How every test here proves its point: see this folder's __init__.py."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.support.effective_pods import hand_written, rendered_pods
from tests.support.import_targets import EVERY_TARGET
from tests.support.text import pos

CASES = Path(__file__).resolve().parents[2] / "support" / "fixtures" / "import_shapes"
# case -> (the volume and env names compared; the blueprint's datasets and env import must give;
#          the places, (needle, sub) in the case's text, of the warnings import must give).
SHAPES = {
    "scratch": ({"staging", "fast", "checkpoints"}, {
        "datasets": [
            {"name": "staging", "emptyDir": {}, "mountPath": "/staging"},
            {"name": "fast", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}, "mountPath": "/fast"},
            {"name": "checkpoints", "ephemeral": {"size": "100Gi", "storageClass": "local-nvme"},
             "mountPath": "/checkpoints"},
        ]}, []),
    "worker-only-env": ({"OMP_NUM_THREADS", "NCCL_DEBUG", "NCCL_SOCKET_IFNAME"}, {
        "env": {"OMP_NUM_THREADS": "4", "NCCL_DEBUG": "INFO", "NCCL_SOCKET_IFNAME": "eth0"}},
        [("{name: NCCL_DEBUG",), ("{name: NCCL_SOCKET_IFNAME",)]),
    "worker-only-data-and-env": ({"imagenet", "NCCL_DEBUG"}, {
        "command": ["python", "/workspace/train.py"], "launcherCommand": None, "env": {"NCCL_DEBUG": "INFO"},
        "datasets": [{"name": "imagenet", "mountPath": "/data/imagenet", "pvc": "imagenet"}]},
        [("{name: NCCL_DEBUG",), ("{name: imagenet, persistentVolumeClaim",)]),
    "worker-only-volumes": ({"imagenet", "results", "staging"}, {
        "datasets": [
            {"name": "imagenet", "mountPath": "/data/imagenet", "pvc": "imagenet"},
            {"name": "results", "mountPath": "/results", "readOnly": False,
             "nfs": {"server": "fs.example.com", "path": "/exports/results"}},
            {"name": "staging", "mountPath": "/staging", "emptyDir": {"sizeLimit": "50Gi"}},
        ]}, [("{name: imagenet, persistentVolumeClaim",), ("{name: results, nfs",), ("{name: staging, emptyDir",)]),
}


def _import(cli, tmp_path, name: str):
    text = (CASES / f"{name}.yaml").read_text()
    (tmp_path / "job.yaml").write_text(text)
    done = cli("import", "job.yaml", "--stdout")
    (tmp_path / "imported.yaml").write_bytes(done.stdout)
    return text, done


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_shape_imports_to_its_datasets_and_env_with_its_warnings(cli, tmp_path, name):
    names, expected, warnings = SHAPES[name]
    text, done = _import(cli, tmp_path, name)
    assert done.returncode == 0, done.stderr
    spec = yaml.safe_load((tmp_path / "imported.yaml").read_text())["spec"]
    assert {key: spec.get(key) for key in expected} == expected
    places = sorted(pos(text, *w) for w in warnings)
    found = sorted((int(line.split(":")[1]), int(line.split(":")[2])) for line in done.stderr.splitlines()
                   if ": warning: " in line and "launcherCommand" not in line and "process count" not in line)
    assert found == places, done.stderr


@pytest.mark.parametrize("target", sorted(EVERY_TARGET))
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_pod_of_every_target_carries_the_hand_written_workers_volumes_mounts_and_env(cli, tmp_path, name,
                                                                                             target):
    names = SHAPES[name][0]
    text, done = _import(cli, tmp_path, name)
    assert done.returncode == 0, done.stderr
    render = cli("render", "imported.yaml", "--stdout", *EVERY_TARGET[target])
    assert render.returncode == 0, render.stderr
    pods = rendered_pods(render.stdout, names)
    worker = hand_written(yaml.safe_load(text), "Worker", names)
    assert len(pods) == 2  # the launcher's template and the workers'
    for pod in pods:
        assert pod["volumes"] == worker["volumes"]
        assert pod["mounts"] == worker["mounts"]
        assert pod["env"] == worker["env"]


def test_a_worker_only_claim_says_what_the_launchers_mount_means_for_a_read_write_once_claim(cli, tmp_path):
    text, done = _import(cli, tmp_path, "worker-only-volumes")
    line, column = pos(text, "{name: imagenet, persistentVolumeClaim")
    (warning,) = [w for w in done.stderr.splitlines() if w.startswith(f"job.yaml:{line}:{column}: warning: ")]
    assert "ReadWriteOnce" in warning and "Multi-Attach" in warning and "launcher" in warning
