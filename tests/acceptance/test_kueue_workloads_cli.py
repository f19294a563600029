"""Kueue Workloads among mpigen's input (mpigen.load.workloads) are refused at their kind through
the command line: beside a blueprint, in an overlay's file, and among the manifests import reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.blueprints import blueprint_text

WORKLOAD = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: wl, namespace: team-a}\n"
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
