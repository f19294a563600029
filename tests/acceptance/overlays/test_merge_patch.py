"""Overlays: the JSON merge patch (RFC 7386), and on a blueprint: maps merge, lists are
replaced, nulls remove.

Every test builds a small repository in its own tmp folder (the working folder of the
test) and runs either the pipeline or the real command line in-process; expected values
are derived by hand from the input written here; expected positions are computed from the
YAML text (`pos`), never typed in.
"""

from __future__ import annotations

import json

import pytest

from tests.support.overlays import add_blueprint, objects_of, overlay, pod_spec, rendered


# --- 2. JSON merge patch (RFC 7386) -------------------------------------------------------------

def merge(original: dict, patch: dict) -> dict:
    from mpigen.errors import Mark
    from mpigen.load.document import Document
    from mpigen.overlay.patched import Patched

    target = Document("target.yaml", original, Mark("target.yaml"))
    source = Document("overlay.yaml", {"patch": patch}, Mark("overlay.yaml"))
    out = Patched(target)
    out.merge(patch, source, ("patch",))
    return out.data


# RFC 7386, appendix A: the examples whose original and patch are objects.
@pytest.mark.parametrize("original, patch, result", [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
    # and on a blueprint's shape
    ({"spec": {"resources": {"worker": {"cpu": "4", "memory": "8Gi"}}}},
     {"spec": {"resources": {"worker": {"memory": "16Gi"}, "launcher": {"cpu": "1"}}}},
     {"spec": {"resources": {"worker": {"cpu": "4", "memory": "16Gi"}, "launcher": {"cpu": "1"}}}}),
    ({"spec": {"command": ["python", "a.py", "--x"], "slotsPerWorker": 2}},
     {"spec": {"command": ["b"], "slotsPerWorker": None, "missing": None}},
     {"spec": {"command": ["b"]}}),
    ({"spec": {"runPolicy": 3}}, {"spec": {"runPolicy": {"backoffLimit": 1, "x": None}}},
     {"spec": {"runPolicy": {"backoffLimit": 1}}}),
], ids=lambda v: json.dumps(v, separators=(",", ":")))
def test_merge_patch_follows_rfc7386(original, patch, result):
    before = json.dumps(original)
    assert merge(original, patch) == result
    assert json.dumps(original) == before  # the blueprint's own data is not changed


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
