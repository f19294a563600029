"""blueprints/ rendered now must equal the committed, reviewed output under golden/.
On a difference: review it, then `make golden`."""

from __future__ import annotations

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.golden import (CASES, GOLDEN, OVERLAY_CASES, ROOT, folder_bytes, render_folder, render_overlays,
                          render_stream)


@pytest.mark.parametrize("case", sorted(CASES))
def test_stream_matches_golden(case):
    assert render_stream(case) == (GOLDEN / f"{case}.yaml").read_bytes(), "stale golden output: review, then make golden"


@pytest.mark.parametrize("case", sorted(CASES))
def test_folder_matches_golden(case, tmp_path):
    render_folder(case, tmp_path / "out")
    assert folder_bytes(tmp_path / "out") == folder_bytes(GOLDEN / case), "stale golden output: review, then make golden"


def test_every_example_is_in_the_golden_output():
    from tests.support.paths import BLUEPRINTS

    stream = (GOLDEN / "static.yaml").read_text()
    for path in sorted(BLUEPRINTS.glob("*.yaml")):
        assert f"# Source: blueprints/{path.name}\n" in stream


def test_repository_output_is_up_to_date():
    """`mpigen check` over this repository, as a user's CI runs it."""
    done = run_mpigen("check", cwd=ROOT, timeout=None)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()


def test_every_blueprint_is_rendered_for_every_overlay():
    from tests.support.paths import BLUEPRINTS

    from mpigen.load.parser import load_file

    config = load_file(ROOT / "mpigen.yaml")[0].data
    jobs = {load_file(p)[0].data["metadata"]["name"] for p in BLUEPRINTS.glob("*.yaml")}
    assert config["overlays"] and jobs
    for overlay in config["overlays"]:
        root = ROOT / config["output"] / overlay
        # a job's workload: the static launcher's Job, or the JobSet of a job mpigen.yaml's targets
        # rule renders with jobset (the Kueue example)
        workloads = [yaml.safe_load(p.read_text()) for pattern in ("*/job-*.yaml", "*/jobset-*.yaml")
                     for p in root.glob(pattern)]
        rendered = {job["metadata"]["labels"]["mpigen.dev/job"] for job in workloads}
        assert rendered == jobs, overlay
        assert (root / "kustomization.yaml").is_file()


@pytest.mark.parametrize("profile", sorted(OVERLAY_CASES))
def test_overlays_in_each_profile_match_golden(profile, tmp_path):
    render_overlays(profile, tmp_path / "out")
    assert folder_bytes(tmp_path / "out") == folder_bytes(GOLDEN / f"overlays-{profile}"), \
        "stale golden output: review, then make golden"
