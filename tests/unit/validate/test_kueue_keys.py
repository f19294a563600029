"""Kueue's keys a blueprint cannot give (mpigen.validate.kueue) and Kueue Workloads among
mpigen's input (mpigen.load.workloads), each refused at its line on every target.

What Kueue v0.19.2 does with them: `kueue.x-k8s.io/elastic-job: "true"` sends any kind down
the reconciler's workload-slice path (pkg/controller/jobframework/reconciler.go
WorkloadSliceEnabled -> pkg/workloadslicing/workloadslicing.go Enabled, the annotation's value
compared to "true"), which only the batch Job and Ray integrations can scale;
`kueue.x-k8s.io/prebuilt-workload-name`, a label or an annotation
(pkg/controller/constants/constants.go PrebuiltWorkloadLabel, PrebuiltWorkloadAnnotation),
makes ensureOneWorkload wait for that Workload and ignore it once another object (an earlier
run) controls it."""

from __future__ import annotations

from pathlib import Path

import pytest

from mpigen.load.parser import parse
from mpigen.validate.document import validate_document
from mpigen.validate.reserved import Reserved
from tests.support.blueprints import blueprint_text
from tests.support.text import pos

ELASTIC, PREBUILT = "kueue.x-k8s.io/elastic-job", "kueue.x-k8s.io/prebuilt-workload-name"
WORKLOAD = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: wl, namespace: team-a}\n"


def _errors(text: str) -> list[tuple[tuple[int, int], str]]:
    (doc,) = parse(text, "job.yaml")
    blueprint, diagnostics = validate_document(doc, Reserved())
    return [((d.mark.line, d.mark.column), d.message) for d in diagnostics if d.severity == "error"]


@pytest.mark.parametrize("where", ["labels", "annotations"])
@pytest.mark.parametrize("key, reason", [(ELASTIC, "only for a batch Job and Ray's kinds"),
                                         (PREBUILT, "waits for a Workload of that name")])
def test_kueue_s_elastic_and_prebuilt_keys_are_refused_at_their_key_on_the_objects(where, key, reason):
    text = blueprint_text("job", **{where: {key: "true" if key == ELASTIC else "wl"}})
    ((mark, message),) = _errors(text)
    assert mark == pos(text, f'"{key}"')
    assert message.startswith(f"metadata.{where}: {key}: ") and reason in message


def test_they_are_refused_on_a_role_s_pods_too():
    text = blueprint_text("job", podTemplatePatch={"worker": {"metadata": {"annotations": {PREBUILT: "wl"}}}})
    ((mark, message),) = _errors(text)
    assert mark == pos(text, f'"{PREBUILT}"')
    assert message.startswith(f"spec.podTemplatePatch.worker.metadata.annotations: {PREBUILT}: ")


def test_kueue_s_other_keys_are_kept():
    assert _errors(blueprint_text("job", annotations={"kueue.x-k8s.io/elastic": "true"},
                                  labels={"kueue.x-k8s.io/max-exec-time-seconds": "3600"})) == []


REFUSED = ("a Kueue Workload: Kueue makes each queued job's Workload itself, named after the job's UID, so one "
           "kept in Git is never the job's (and one a prebuilt-workload-name names is claimed by the first run "
           "alone); mpigen writes and reads none: remove it, and give the blueprint spec.scheduling.queue (the "
           "LocalQueue)")


@pytest.mark.parametrize("command", [("validate",), ("render", "--stdout")])
def test_a_workload_beside_a_blueprint_is_refused_at_its_kind(cli, command):
    blueprint = blueprint_text("job", scheduling={"queue": "team-a-gpus"})
    Path("job.yaml").write_text(blueprint + "---\n" + WORKLOAD)
    run = cli(*command, "job.yaml", "--target", "jobset", "--no-cache")
    assert run.returncode == 2 and run.stdout == b""
    assert run.lines("error") == [f"job.yaml:{blueprint.count(chr(10)) + 3}:7: error: {REFUSED}"]


def test_a_workload_in_an_overlay_s_file_is_refused_at_its_kind(cli):
    Path("job.yaml").write_text(blueprint_text("job", scheduling={"queue": "team-a-gpus"}))
    Path("overlays/prod").mkdir(parents=True)
    Path("overlays/prod/overlay.yaml").write_text("apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n---\n" + WORKLOAD)
    run = cli("render", "--stdout", "job.yaml", "--overlay", "prod", "--no-cache")
    assert run.returncode == 2 and run.stdout == b""
    assert run.lines("error") == [f"overlays/prod/overlay.yaml:5:7: error: {REFUSED}"]


def test_a_workload_among_the_manifests_import_reads_is_refused_at_its_kind(cli):
    Path("wl.yaml").write_text(WORKLOAD)
    run = cli("import", "wl.yaml", "-o", "imported")
    assert run.returncode == 2 and not Path("imported").exists()
    (line,) = run.lines("error")
    assert line.startswith("wl.yaml:2:7: error: a Kueue Workload: ")
