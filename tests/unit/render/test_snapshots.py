"""Whole renders of blueprints that are not among the examples, as syrupy snapshots
(tests/unit/render/__snapshots__/). On an intended change: review the diff, then
`pytest tests/unit/render/test_snapshots.py --snapshot-update`."""

from __future__ import annotations

import pytest

from mpigen.emit.install_order import sort_objects
from mpigen.emit.yaml import dump_stream
from tests.support.blueprints import blueprint_text
from tests.support.rendering import render_text

CASES = {
    "main-container-and-datasets": dict(
        framework="pytorch", workers=3, gpusPerWorker=2, mainContainer="trainer",
        env={"NCCL_DEBUG": "WARN", "OMP_NUM_THREADS": "1"},
        datasets=[{"name": "coco", "mountPath": "/data/coco", "pvc": "coco"},
                  {"name": "ckpt", "mountPath": "/ckpt", "readOnly": False, "nfs": {"server": "nfs", "path": "/ckpt"}}],
        runPolicy={"activeDeadlineSeconds": 3600}),
    "intel-mpi-launcher-command": dict(
        mpiImplementation="IntelMPI", workers=1, slotsPerWorker=4, command=None,
        launcherCommand=["bash", "-c", "source /opt/intel/oneapi/setvars.sh && mpirun -n 4 ./app"]),
    "deepspeed-amd": dict(
        framework="deepspeed", workers=2, gpusPerWorker=8, gpuResource="amd.com/gpu",
        mpirunArgs=["--mca", "btl_tcp_if_include", "eth0"], command=["python", "train.py", "--deepspeed"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_render_snapshot(case, snapshot):
    objects = sort_objects(render_text(blueprint_text("snap", namespace="team", **CASES[case])))
    assert dump_stream((o, None) for o in objects) == snapshot
