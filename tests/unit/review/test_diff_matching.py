"""`mpigen diff`: objects matched by environment and key (not by file), added and removed
jobs, and the inputs that are no manifests or break the matching (errors with positions).

The base is the real golden output folder (golden/static); every case edits a copy of it.
"""

from __future__ import annotations

import pytest

from mpigen.errors import InputError
from mpigen.review.diff.compare import compare
from tests.support.golden_edits import CM, MNIST, RESNET, STS, edit, golden, keys, only_job


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
    assert "GPUs" not in text and "  slots 0 -> 2\n" in text
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
    # Files are read in path order, so copy/ comes first; the document starts at line 4
    # (after `---`, the `# Source:` line and the "do not edit" line).
    assert str(caught.value) == (
        f"new/{STS}:4:1: error: StatefulSet ml-team/resnet50-imagenet-worker is defined twice "
        "in new (first at new/copy/statefulset.yaml:4:1); keep one")


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
