"""`mpigen diff`: objects matched by environment and key (not by file), field-level changes,
GPU and slot totals, run effects and the changes Kubernetes refuses to apply in place.

The base is the real golden output folder; every case edits a copy of it. Expected values
are worked out by hand from golden/static (resnet50-imagenet: 4 workers x 8 nvidia.com/gpu,
hostfile 4 x slots=8; tensorflow-mnist: 2 workers, no GPUs, hostfile 2 x slots=1).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mpigen.review.diff import compare, hostfile_slots
from mpigen.errors import InputError

GOLDEN = Path(__file__).resolve().parents[3] / "golden" / "static"
RESNET = "ml-team/"
STS = RESNET + "statefulset-resnet50-imagenet-worker.yaml"
JOB = RESNET + "job-resnet50-imagenet-launcher.yaml"
CM = RESNET + "configmap-resnet50-imagenet-config.yaml"
MNIST = "default/"


def golden() -> dict[str, str]:
    return {p.relative_to(GOLDEN).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(GOLDEN.rglob("*")) if p.is_file()}


def edit(files: dict[str, str], path: str, old: str, new: str) -> dict[str, str]:
    """A copy of files with one exact, unique piece of text replaced."""
    assert files[path].count(old) == 1, (path, old)
    return {**files, path: files[path].replace(old, new)}


def only_job(report):
    assert len(report.jobs) == 1
    return report.jobs[0]


def keys(manifests) -> list[str]:
    return [str(m.key) for m in manifests]


def test_identical_renders_have_no_changes():
    report = compare(golden(), golden())
    assert not report.differs() and not report.immutable()
    assert report.format("text") == "no changes\n"
    assert "No changes." in report.format("markdown")
    data = json.loads(report.format("json"))
    assert data["differs"] is False and data["jobs"] == []
    assert data["summary"] == {"jobs": 0, "added": 0, "removed": 0, "changed": 0, "immutable": 0}


def test_more_workers_changes_gpus_and_slots_but_nothing_immutable():
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
    assert "  GPUs 32 -> 64 (changed)\n" in text and "  slots 32 -> 64 (changed)\n" in text
    assert "      spec.replicas: 4 -> 8\n" in text
    # The hostfile is shown as a small line diff, indented under its field.
    assert "      data.hostfile:\n        @@ -4 +4,5 @@\n         resnet50-imagenet-worker-3 slots=8\n" \
           "        +resnet50-imagenet-worker-4 slots=8\n" in text
    assert "IMMUTABLE" not in text
    assert text.endswith("old -> new: 1 job changed; objects: 0 added, 0 removed, 2 changed; "
                         "0 immutable changes\n")


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
    assert "  GPUs 32 -> 32\n" in text  # shown (the job has GPUs) but not flagged
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


def without(files: dict[str, str], prefix: str) -> dict[str, str]:
    return {path: text for path, text in files.items() if not path.startswith(prefix)}


def test_added_job():
    report = compare(without(golden(), MNIST), golden())
    job = only_job(report)
    assert (job.namespace, job.job) == ("default", "tensorflow-mnist")
    assert keys(job.added) == [
        "ConfigMap default/tensorflow-mnist-config", "Job default/tensorflow-mnist-launcher",
        "Role default/tensorflow-mnist-launcher", "RoleBinding default/tensorflow-mnist-launcher",
        "ServiceAccount default/tensorflow-mnist-launcher", "StatefulSet default/tensorflow-mnist-worker"]
    assert job.new_run and not job.ends_run and job.removed == [] and job.changed == []
    assert job.gpus == (0, 0) and job.slots == (0, 2)
    text = report.format("text")
    assert "GPUs" not in text and "  slots 0 -> 2 (changed)\n" in text
    assert text.endswith("1 job changed; objects: 6 added, 0 removed, 0 changed; 0 immutable changes\n")


def test_removed_job():
    new = {path: text for path, text in golden().items() if not (path.startswith("hpc/") and "intel-pi" in path)}
    report = compare(golden(), new)
    job = only_job(report)
    assert (job.namespace, job.job) == ("hpc", "intel-pi")
    assert len(job.removed) == 6 and job.ends_run and not job.new_run
    assert job.slots == (4, 0)  # intel-pi-worker-0:2, intel-pi-worker-1:2


def test_matching_is_by_object_not_by_file():
    old = golden()
    resnet = [path for path in sorted(old) if path.startswith(RESNET)]
    new = without(old, RESNET)
    new["everything/in-one-file.yaml"] = "\n---\n".join(old[path] for path in resnet) + "\n---\n"
    assert not compare(old, new).differs()
    # A real change in the merged file is still found, under the same key. (Other ml-team
    # examples have 4 workers too: the edit is made inside resnet50-imagenet's StatefulSet.)
    changed = edit(new, "everything/in-one-file.yaml", old[STS],
                   edit(old, STS, "replicas: 4", "replicas: 5")[STS])
    job = only_job(compare(old, changed))
    assert job.changed[0].path == "everything/in-one-file.yaml" and job.gpus == (32, 40)


def test_multi_document_files_and_empty_documents():
    text = "---\n# nothing here\n---\n" + golden()[CM] + "---\n---\n" + golden()[STS]
    old = {"kustomization.yaml": "resources: []\n", "all.yaml": text}
    new = edit(old, "all.yaml", "replicas: 4", "replicas: 2")
    job = only_job(compare(old, new))
    assert job.gpus == (32, 16) and job.slots == (32, 32)


def resnet_files(files: dict[str, str]) -> dict[str, str]:
    """The files of the resnet50-imagenet job alone (ml-team/ holds other examples too)."""
    return {path: text for path, text in files.items()
            if path.startswith(RESNET) and "-resnet50-imagenet-" in path.removeprefix(RESNET)}


def environments(files: dict[str, str], *names: str) -> dict[str, str]:
    """An overlay render of the resnet50-imagenet job: env/kustomization.yaml and
    env/<ns>/... per environment."""
    out = {}
    for env in names:
        out[f"{env}/kustomization.yaml"] = "resources: []\n"
        out.update({f"{env}/{path}": text for path, text in resnet_files(files).items()})
    return out


def test_objects_are_matched_per_environment():
    old = environments(golden(), "dev", "prod")
    new = edit(old, "prod/" + STS, "replicas: 4", "replicas: 2")
    report = compare(old, new)
    job = only_job(report)
    assert (job.environment, job.namespace, job.job) == ("prod", "ml-team", "resnet50-imagenet")
    assert job.gpus == (32, 16)  # prod only: dev's 32 GPUs are not counted in
    assert report.format("text").startswith("job ml-team/resnet50-imagenet (env prod)\n")
    # The same object in two environments is no duplicate; dropping one environment removes its copies only.
    gone = compare(old, {p: t for p, t in old.items() if not p.startswith("dev/")})
    assert [(j.environment, len(j.removed), j.ends_run) for j in gone.jobs] == [("dev", 6, True)]


def test_nearest_kustomization_decides_the_environment():
    files = environments(golden(), "dev")
    files["kustomization.yaml"] = "resources: [dev]\n"
    new = edit(files, "dev/" + CM, "team: vision", "team: x")
    assert only_job(compare(files, new)).environment == "dev"


def test_files_that_are_not_manifests_are_ignored():
    old = golden()
    new = {**old, ".mpigen-index": "changed\n", "README.md": "# notes\n", "kustomization.yaml": "resources: []\n",
           "notes/.hidden.yaml": "not: [valid", "Kustomization": "{", "dev/kustomization.yml": "resources: []\n"}
    assert not compare(old, new).differs()


def test_same_object_twice_is_an_error_naming_both_places():
    old = golden()
    new = {**old, "copy/statefulset.yaml": old[STS]}
    with pytest.raises(InputError) as caught:
        compare(old, new)
    # Files are read in path order, so copy/ comes first; the document starts at line 3
    # (after `---` and the provenance comment).
    assert str(caught.value) == (
        f"new/{STS}:3:1: error: StatefulSet ml-team/resnet50-imagenet-worker is defined twice "
        "in new (first at new/copy/statefulset.yaml:3:1); keep one")


def test_invalid_yaml_is_an_input_error_with_position():
    bad = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x: y\n"
    with pytest.raises(InputError) as caught:
        compare({"a.yaml": bad}, golden(), "base", "head")
    assert str(caught.value).startswith("base/a.yaml:4:10: error: invalid YAML: mapping values are not allowed")


def test_document_that_is_no_object_is_an_input_error():
    files = {"x.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: a\n", "y.yaml": "- a\n"}
    with pytest.raises(InputError) as caught:
        compare({}, files)
    assert [str(d) for d in caught.value.diagnostics] == [
        "new/x.yaml:4:3: error: not a Kubernetes object: metadata.name is missing, empty or not a string",
        "new/y.yaml:1:1: error: expected a Kubernetes object: a mapping with apiVersion, kind and metadata.name"]


def test_json_structure():
    old = golden()
    new = edit(old, JOB, "image: horovod/horovod:0.28.1", "image: horovod/horovod:0.29.0")
    new = edit(new, STS, "replicas: 4", "replicas: 8")
    text = compare(old, new).format("json")
    assert text == compare(old, new).format("json")  # deterministic
    data = json.loads(text)
    assert data["differs"] is True and data["immutable"] is True
    assert data["summary"] == {"jobs": 1, "added": 0, "removed": 0, "changed": 2, "immutable": 1}
    job = data["jobs"][0]
    assert sorted(job) == ["added", "changed", "endsRun", "environment", "gpus", "immutable", "job", "namespace",
                           "newRun", "removed", "restartsWorkers", "slots"]
    assert job["gpus"] == {"old": 32, "new": 64} and job["slots"] == {"old": 32, "new": 32}
    assert job["newRun"] is False and job["restartsWorkers"] is False
    assert job["changed"][0]["kind"] == "Job" and job["changed"][0]["file"] == JOB
    assert job["changed"][1]["fields"] == [{"path": "spec.replicas", "op": "change", "old": 4, "new": 8}]
    assert job["immutable"][0]["object"] == "Job ml-team/resnet50-imagenet-launcher"
    assert job["immutable"][0]["path"] == "spec.template"
    assert job["immutable"][0]["message"].startswith("Kubernetes refuses to change spec.template of Job")


def test_markdown_puts_the_immutable_warning_first():
    old = golden()
    new = edit(old, JOB, "image: horovod/horovod:0.28.1", "image: horovod/horovod:0.29.0")
    new = edit(new, STS, "replicas: 4", "replicas: 8")
    text = compare(old, new).format("markdown")
    lines = text.splitlines()
    assert lines[0] == "### mpigen diff: `old` → `new`"
    assert lines[2] == "> [!WARNING]" and "⚠️" in lines[3]
    assert text.index("[!WARNING]") < text.index("| Job |") < text.index("<details>")
    assert "| ml-team/resnet50-imagenet |  | +0 −0 ~2 | **32 → 64** | 32 → 32 | ⚠️ immutable |" in lines
    assert "- spec.replicas: 4\n+ spec.replicas: 8\n" in text and "```diff\n" in text


def test_long_values_are_shortened_in_text_but_not_json():
    old = golden()
    long = "x" * 200
    new = edit(old, CM, "team: vision", f"team: {long}")
    report = compare(old, new)
    line = next(l for l in report.format("text").splitlines() if "metadata.labels.team" in l)
    assert line.endswith('-> "' + "x" * 76 + "...")
    assert json.loads(report.format("json"))["jobs"][0]["changed"][0]["fields"][0]["new"] == long


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


def test_hostfile_slots():
    assert hostfile_slots("a slots=4\nb:2\nc\n# comment\n\n  d slots=3 max_slots=8  # inline\n") == 10


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


def test_unknown_format_is_refused():
    with pytest.raises(ValueError):
        compare({}, {}).format("yaml")
