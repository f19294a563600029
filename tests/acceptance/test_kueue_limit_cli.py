"""A queued workload over the limit of the Kueue version it is rendered for is refused at the queue
line, through the command line (the limits themselves: tests/unit/render/test_kueue_limits.py)."""

from __future__ import annotations

from pathlib import Path

from mpigen.kube import kueue_limits
from tests.support.paths import ROOT

QUEUED = ROOT / "blueprints" / "kueue-queued.yaml"


def test_a_workload_over_the_version_s_limit_is_refused_at_the_queue_line(cli, monkeypatch):
    """The limit of v0.17 lowered to below a JobSet's three pod sets: the only way to see the
    refusal, since no target's job reaches 8."""
    monkeypatch.setitem(kueue_limits.MAX_POD_SETS, "v0.17", 2)
    Path("blueprints").mkdir()
    Path("blueprints/queued.yaml").write_text(QUEUED.read_text())
    Path("mpigen.yaml").write_text("apiVersion: mpigen.dev/v1alpha1\nkind: Config\ntarget: jobset\n"
                                   "versions: {kueue: v0.17}\n")
    run = cli("render", "--stdout", "--no-cache")
    assert run.returncode == 2 and run.stdout == b""
    (line,) = run.lines("error")
    queue_line = 1 + QUEUED.read_text().splitlines().index("    queue: team-a-gpus")
    assert line.startswith(f"blueprints/queued.yaml:{queue_line}:12: error: spec.scheduling.queue: ")
    assert "JobSet vit-sweep-7 one Workload of 3 pod sets, and Kueue v0.17 takes at most 2" in line
    Path("mpigen.yaml").write_text("apiVersion: mpigen.dev/v1alpha1\nkind: Config\ntarget: jobset\n")
    assert cli("render", "--stdout", "--no-cache").returncode == 0  # v0.19 by default
