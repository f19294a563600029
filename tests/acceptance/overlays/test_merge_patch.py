"""Overlays: the JSON merge patch (RFC 7386), and on a blueprint: maps merge, lists are
replaced, nulls remove.

Every test builds a small repository in its own tmp folder (the working folder of the
test) and runs either the pipeline or the real command line in-process; expected values
are derived by hand from the input written here; expected positions are computed from the
YAML text (`pos`), never typed in.
"""

from __future__ import annotations

import pytest

from tests.support.overlays import add_blueprint, objects_of, overlay, pod_spec, rendered


# --- 2. JSON merge patch (RFC 7386) on a blueprint (the RFC's own cases: tests/unit/overlay/) ---

def test_merge_patch_on_a_blueprint_merges_maps_replaces_lists_and_removes_nulls():
    add_blueprint("job", namespace="team", gpusPerWorker=2, slotsPerWorker=1,
                  command=["python", "train.py", "--epochs", "90"], env={"A": "1", "B": "2"},
                  resources={"worker": {"cpu": "4", "memory": "8Gi"}, "launcher": {"cpu": "1"}},
                  datasets=[{"name": "d1", "mountPath": "/d1", "pvc": "c1"},
                            {"name": "d2", "mountPath": "/d2", "pvc": "c2"}],
                  runPolicy={"backoffLimit": 3, "activeDeadlineSeconds": 100})
    overlay("dev", """\
        patches:
          - patch:
              spec:
                workers: 3
                slotsPerWorker: null
                command: [python, eval.py]
                env: {B: null, C: "3"}
                resources:
                  worker: {memory: 16Gi}
                datasets:
                  - {name: d3, mountPath: /d3, pvc: c3}
                runPolicy:
                  activeDeadlineSeconds: null
        """)
    objects = objects_of(rendered("dev"))
    workers, launcher = objects[("StatefulSet", "job-worker")], objects[("Job", "job-launcher")]
    assert workers["spec"]["replicas"] == 3
    # slotsPerWorker removed: the default (gpusPerWorker = 2) applies
    assert objects[("ConfigMap", "job-config")]["data"]["hostfile"] == (
        "job-worker-0 slots=2\njob-worker-1 slots=2\njob-worker-2 slots=2\n")
    command = pod_spec(launcher)["containers"][0]["command"]
    assert command[:3] == ["mpirun", "-np", "6"]
    assert command[-2:] == ["python", "eval.py"] and "train.py" not in command
    worker = pod_spec(workers)["containers"][0]
    assert [e["name"] for e in worker["env"]] == ["A", "C"]
    assert worker["resources"]["limits"] == {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "2"}
    assert pod_spec(launcher)["containers"][0]["resources"]["limits"] == {"cpu": "1"}
    # datasets replaced by the patch's list; the GPU job's /dev/shm (1Gi per GPU) stays
    assert [v["name"] for v in pod_spec(workers)["volumes"]] == ["d3", "dshm", "mpi-job-config"]
    assert [m["mountPath"] for m in worker["volumeMounts"]] == ["/d3", "/dev/shm", "/etc/mpi"]
    assert pod_spec(workers)["volumes"][1]["emptyDir"] == {"medium": "Memory", "sizeLimit": "2Gi"}
    assert launcher["spec"]["backoffLimit"] == 3 and "activeDeadlineSeconds" not in launcher["spec"]
