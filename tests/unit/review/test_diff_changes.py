"""`mpigen diff`: field-level changes, GPU and slot totals, run effects and the changes
Kubernetes refuses to apply in place.

The base is the real golden output folder; every case edits a copy of it. Expected values
are worked out by hand from golden/static (resnet50-imagenet: 4 workers x 8 nvidia.com/gpu,
hostfile 4 x slots=8; tensorflow-mnist: 2 workers, no GPUs, hostfile 2 x slots=1).
"""

from __future__ import annotations

import json

import pytest

from mpigen.review.diff.compare import compare
from tests.support.golden_edits import CM, JOB, STS, edit, golden, keys, only_job


def test_identical_renders_have_no_changes():
    report = compare(golden(), golden())
    assert not report.differs() and not report.immutable()
    assert report.format("text") == "no changes\n"
    assert "No changes." in report.format("markdown")
    data = json.loads(report.format("json"))
    assert data["differs"] is False and data["jobs"] == []
    assert data["summary"] == {"jobs": 0, "added": 0, "removed": 0, "changed": 0, "immutable": 0}


def test_more_workers_says_workers_and_gpus_but_nothing_immutable():
    old = golden()
    extra = "".join(f"    resnet50-imagenet-worker-{i} slots=8\n" for i in range(4, 8))
    new = edit(old, STS, "replicas: 4", "replicas: 8")
    new = edit(new, CM, "    resnet50-imagenet-worker-3 slots=8\n", "    resnet50-imagenet-worker-3 slots=8\n" + extra)
    report = compare(old, new)
    job = only_job(report)
    assert (job.environment, job.namespace, job.job) == ("", "ml-team", "resnet50-imagenet")
    assert job.gpus == (32, 64) and job.slots == (32, 64)
    assert not report.immutable() and not job.restarts_workers and not job.new_run and not job.ends_run
    assert [str(c.key) for c in job.changed] == ["ConfigMap ml-team/resnet50-imagenet-config",
                                                 "StatefulSet ml-team/resnet50-imagenet-worker"]
    sts = job.changed[1].fields
    assert [(f.path, f.old, f.new, f.op) for f in sts] == [("spec.replicas", 4, 8, "change")]
    text = report.format("text")
    assert text.splitlines()[0] == "job ml-team/resnet50-imagenet"
    # What changed is the workers: said as such (the slots follow them, so no `slots 32 -> 64`).
    assert job.workers == (4, 8)
    assert "  workers 4 -> 8\n  GPUs 32 -> 64\n" in text and "slots" not in text.replace("slots=", "")
    assert "| ml-team/resnet50-imagenet |  | +0 −0 ~2 | **4 → 8** | **32 → 64** |  |  |" in report.format("markdown")
    assert json.loads(report.format("json"))["jobs"][0]["workers"] == {"old": 4, "new": 8}
    assert "      spec.replicas: 4 -> 8\n" in text
    # The hostfile is shown as a small line diff, indented under its field.
    assert "      data.hostfile:\n        @@ -4 +4,5 @@\n         resnet50-imagenet-worker-3 slots=8\n" \
           "        +resnet50-imagenet-worker-4 slots=8\n" in text
    assert "IMMUTABLE" not in text
    assert text.endswith("old -> new: 1 job changed; objects: 0 added, 0 removed, 2 changed; "
                         "0 immutable changes\n")


def test_fewer_gpus_per_worker_keeps_the_slots_and_says_no_workers():
    """gpusPerWorker 8 -> 4 changes each worker's slots: the slots are said, the workers are not."""
    new = edit(golden(), STS, 'nvidia.com/gpu: "8"', 'nvidia.com/gpu: "4"')
    for i in range(4):
        new = edit(new, CM, f"resnet50-imagenet-worker-{i} slots=8", f"resnet50-imagenet-worker-{i} slots=4")
    job = only_job(compare(golden(), new))
    assert (job.workers, job.gpus, job.slots) == ((4, 4), (32, 16), (32, 16))
    text = compare(golden(), new).format("text")
    assert "  GPUs 32 -> 16\n  slots 32 -> 16\n" in text and "  workers" not in text


def test_launcher_image_change_is_immutable():
    old = golden()
    new = edit(old, JOB, "image: horovod/horovod:0.28.1", "image: horovod/horovod:0.29.0")
    report = compare(old, new, "main", "pr")
    job = only_job(report)
    assert report.immutable()
    assert [(str(f.key), f.path) for f in job.immutable] == [("Job ml-team/resnet50-imagenet-launcher", "spec.template")]
    assert [(f.path, f.old, f.new) for f in job.changed[0].fields] == [
        ("spec.template.spec.containers[mpi-launcher].image", "horovod/horovod:0.28.1", "horovod/horovod:0.29.0")]
    assert not job.new_run and not job.restarts_workers
    assert job.gpus == (32, 32)
    text = report.format("text")
    assert ("IMMUTABLE: Kubernetes refuses to change spec.template of Job ml-team/resnet50-imagenet-launcher: "
            "Argo CD and Flux will fail to sync it; delete and recreate the object (give the run a new name) "
            "instead\n") in text
    assert '      spec.template.spec.containers[mpi-launcher].image: "horovod/horovod:0.28.1" -> ' \
           '"horovod/horovod:0.29.0"\n' in text
    # Totals that did not change are left out of the job's lines in text and markdown (`GPUs 32
    # -> 32` says nothing; the overview at the end says the GPUs are unchanged); the JSON keeps
    # them, for programs.
    job_lines = text.split("\n\n")[0]
    assert "GPUs" not in job_lines and "slots" not in job_lines
    assert "GPUs of these jobs: 32, unchanged\n" in text
    assert "| ml-team/resnet50-imagenet |  | +0 −0 ~1 |  |  |  | ⚠️ immutable |" in report.format("markdown")
    assert json.loads(report.format("json"))["jobs"][0]["gpus"] == {"old": 32, "new": 32}
    assert "main -> pr: 1 job changed" in text


def test_renamed_launcher_starts_a_new_run_and_is_not_immutable():
    old = golden()
    new = edit(old, JOB, "  name: resnet50-imagenet-launcher\n  namespace", "  name: resnet50-imagenet-run2\n  namespace")
    report = compare(old, new)
    job = only_job(report)
    assert keys(job.added) == ["Job ml-team/resnet50-imagenet-run2"]
    assert keys(job.removed) == ["Job ml-team/resnet50-imagenet-launcher"]
    assert job.changed == [] and not report.immutable()
    assert job.new_run and job.ends_run and not job.restarts_workers
    text = report.format("text")
    assert "  starts a new run: a launcher Job is created\n" in text
    assert "  ends the run: a launcher Job is deleted\n" in text
    assert "  + added Job ml-team/resnet50-imagenet-run2\n  - removed Job ml-team/resnet50-imagenet-launcher\n" in text


def test_statefulset_service_name_is_immutable():
    old = golden()
    new = edit(old, STS, "serviceName: resnet50-imagenet-worker", "serviceName: resnet50-headless")
    job = only_job(compare(old, new))
    assert [(str(f.key), f.path) for f in job.immutable] == [("StatefulSet ml-team/resnet50-imagenet-worker",
                                                             "spec.serviceName")]
    assert not job.restarts_workers  # the pod template is the same


def test_worker_template_change_restarts_the_workers():
    old = golden()
    new = edit(old, STS, "value: INFO", "value: WARN")
    report = compare(old, new)
    job = only_job(report)
    assert job.restarts_workers and not report.immutable()  # a StatefulSet template may change
    assert [f.path for f in job.changed[0].fields] == ["spec.template.spec.containers[mpi-worker].env[NCCL_DEBUG].value"]
    assert "  restarts the workers: a running launcher loses its ranks\n" in report.format("text")


def test_configmap_label_change_is_a_plain_change():
    old = golden()
    new = edit(old, CM, "team: vision", "team: perception")
    report = compare(old, new)
    job = only_job(report)
    assert [str(c.key) for c in job.changed] == ["ConfigMap ml-team/resnet50-imagenet-config"]
    assert [(f.path, f.old, f.new) for f in job.changed[0].fields] == [("metadata.labels.team", "vision", "perception")]
    assert not report.immutable() and not job.new_run and not job.ends_run and not job.restarts_workers
    assert job.gpus == (32, 32) and job.slots == (32, 32)


def test_label_keys_with_dots_are_quoted_in_paths():
    old = golden()
    new = edit(old, CM, "app.kubernetes.io/managed-by: mpigen", "app.kubernetes.io/managed-by: someone")
    fields = only_job(compare(old, new)).changed[0].fields
    assert [f.path for f in fields] == ['metadata.labels["app.kubernetes.io/managed-by"]']


def test_lists_by_name_and_by_index():
    old = golden()
    new = edit(old, STS, "        - name: NCCL_DEBUG\n          value: INFO\n",
               "        - name: NCCL_SOCKET_IFNAME\n          value: eth0\n        - name: NCCL_DEBUG\n          value: INFO\n")
    new = edit(new, STS, "        - 365d\n", "        - 365d\n        - --quiet\n")
    fields = only_job(compare(old, new)).changed[0].fields
    prefix = "spec.template.spec.containers[mpi-worker]."
    assert [(f.path, f.op, f.new) for f in fields] == [
        (prefix + "args[1]", "add", "--quiet"),
        (prefix + "env[NCCL_SOCKET_IFNAME]", "add", {"name": "NCCL_SOCKET_IFNAME", "value": "eth0"})]


def test_reordered_named_list_is_reported():
    old = golden()
    mounts = ("        - name: dshm\n          mountPath: /dev/shm\n"
              "        - name: mpi-job-config\n          mountPath: /etc/mpi\n")
    swapped = ("        - name: mpi-job-config\n          mountPath: /etc/mpi\n"
               "        - name: dshm\n          mountPath: /dev/shm\n")
    fields = only_job(compare(old, edit(old, STS, mounts, swapped))).changed[0].fields
    assert [(f.path, f.op, f.old, f.new) for f in fields] == [
        ("spec.template.spec.containers[mpi-worker].volumeMounts", "reorder", ["imagenet", "dshm", "mpi-job-config"],
         ["imagenet", "mpi-job-config", "dshm"])]


def test_script_change_is_a_line_diff():
    old = golden()
    new = edit(old, CM, "    set -x\n", "    set -ex\n")
    text = compare(old, new).format("text")
    assert '      data["kubexec.sh"]:\n        @@ -1,3 +1,3 @@\n         #!/bin/sh\n        -set -x\n' \
           "        +set -ex\n         POD_NAME=$1\n" in text


def pod_owner(kind: str, api: str, count: dict, resources: dict) -> str:
    return json.dumps({"apiVersion": api, "kind": kind, "metadata": {"name": "w", "labels": {"app": "j"}},
                       "spec": {**count, "template": {"spec": {"containers": [
                           {"name": "a", "resources": resources}, {"name": "b", "resources": resources}]}}}})


@pytest.mark.parametrize("kind, api, count, resources, gpus", [
    ("StatefulSet", "apps/v1", {}, {"limits": {"nvidia.com/gpu": 8}}, 16),  # replicas default 1, 2 containers
    ("StatefulSet", "apps/v1", {"replicas": 3}, {"requests": {"amd.com/gpu": "2"}}, 12),
    ("Deployment", "apps/v1", {"replicas": 2}, {"limits": {"habana.ai/gaudi": 1}, "requests": {"habana.ai/gaudi": 4}}, 4),
    ("Job", "batch/v1", {"parallelism": 4}, {"limits": {"aws.amazon.com/neuroncore": "1", "cpu": "8"}}, 8),
    ("Job", "batch/v1", {}, {"limits": {"example.com/my-gpu": 1, "google.com/tpu": 4}}, 10),
    ("ConfigMap", "v1", {"replicas": 2}, {"limits": {"nvidia.com/gpu": 8}}, 0),
])
def test_gpu_totals(kind, api, count, resources, gpus):
    report = compare({}, {"w.yaml": pod_owner(kind, api, count, resources)})
    job = only_job(report)
    assert job.job == "j" and job.gpus == (0, gpus)


@pytest.mark.parametrize("api, kind, before, after, immutable", [
    ("apps/v1", "StatefulSet", {"spec": {"revisionHistoryLimit": 1}}, {"spec": {"revisionHistoryLimit": 2}}, []),
    ("apps/v1", "StatefulSet", {"spec": {"volumeClaimTemplates": []}}, {"spec": {}}, ["spec.volumeClaimTemplates"]),
    ("apps/v1", "Deployment", {"spec": {"selector": {"a": "1"}, "replicas": 1}},
     {"spec": {"selector": {"a": "2"}, "replicas": 2}}, ["spec.selector"]),
    ("batch/v1", "Job", {"spec": {"backoffLimit": 1, "completions": 1}},
     {"spec": {"backoffLimit": 2, "completions": 2}}, ["spec.completions"]),
    ("v1", "Service", {"spec": {"clusterIP": ""}}, {"spec": {"clusterIP": "10.0.0.1"}}, []),
    ("v1", "Service", {"spec": {"clusterIP": "None"}}, {"spec": {"clusterIP": "10.0.0.1"}}, ["spec.clusterIP"]),
    ("rbac.authorization.k8s.io/v1", "RoleBinding", {"roleRef": {"name": "a"}}, {"roleRef": {"name": "b"}}, ["roleRef"]),
    ("v1", "ConfigMap", {"data": {"a": "1"}}, {"data": {"a": "2"}}, []),
    ("v1", "ConfigMap", {"immutable": True, "data": {"a": "1"}}, {"immutable": True, "data": {"a": "2"}}, ["data"]),
    ("v1", "Secret", {"immutable": True, "stringData": {"a": "1"}}, {"stringData": {"a": "2"}},
     ["immutable", "stringData"]),
    ("v1", "PersistentVolumeClaim", {"spec": {"resources": {"requests": {"storage": "1Gi"}}, "storageClassName": "a"}},
     {"spec": {"resources": {"requests": {"storage": "2Gi"}}, "storageClassName": "b"}}, ["spec.storageClassName"]),
])
def test_immutable_rules(api, kind, before, after, immutable):
    def render(body: dict) -> dict[str, str]:
        return {"o.yaml": json.dumps({"apiVersion": api, "kind": kind, "metadata": {"name": "o"}, **body})}

    report = compare(render(before), render(after))
    assert [f.path for f in only_job(report).immutable] == immutable
    assert report.immutable() == bool(immutable)
    assert only_job(report).title() == "other objects"
