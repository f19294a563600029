"""Where monitoring is switched on: mpigen.yaml for every environment, an overlay for its own
(`enabled: false` turning mpigen.yaml's off); a wrong value refused at its line with exit 2 and
nothing written; and an edit of a job that changes only what its alerts watch (its GPUs)
rewrites the rule on the next, incremental, render."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.monitored_repository import CONFIG, DIGEST, repository


def rule_files(repo: Path) -> list[str]:
    return sorted(p.relative_to(repo).as_posix() for p in (repo / "rendered").rglob("prometheusrule-*.yaml"))


def test_mpigen_yaml_monitors_every_environment_and_an_overlay_turns_it_off(tmp_path):
    repo = repository(tmp_path)
    assert run_mpigen("render", cwd=repo, timeout=120).returncode == 0
    assert rule_files(repo) == [f"rendered/dev/monitoring/prometheusrule-mpigen-dev-{DIGEST}.yaml",
                                f"rendered/prod/monitoring/prometheusrule-mpigen-prod-{DIGEST}.yaml"]
    dev = repo / "overlays" / "dev" / "overlay.yaml"
    dev.write_text(dev.read_text() + "monitoring: {enabled: false}\n")
    assert run_mpigen("render", cwd=repo, timeout=120).returncode == 0
    assert rule_files(repo) == [f"rendered/prod/monitoring/prometheusrule-mpigen-prod-{DIGEST}.yaml"]


@pytest.mark.parametrize("value, says", [
    ("30m1h", "string '30m1h' is not a Prometheus duration such as 30m, 2h or 1h30m"),
    ('""', "must not be empty"),
    ("300y", "'300y' is not a duration Prometheus takes (duration out of range)"),
])
def test_a_duration_prometheus_refuses_is_refused_at_its_line(tmp_path, value, says):
    """prometheus/common v0.70.1 model/time.go ParseDuration: units from the largest down, not
    empty, within an int64 of nanoseconds (the CRD's pattern takes all three)."""
    repo = repository(tmp_path, CONFIG + f"  notStartedFor: {value}\n")
    done = run_mpigen("render", cwd=repo, timeout=120)
    assert done.returncode == 2
    assert done.stderr.decode().startswith(f"mpigen.yaml:8:18: error: monitoring.notStartedFor: {says}"), done.stderr
    assert "Traceback" not in done.stderr.decode()
    assert not (repo / "rendered").exists()


@pytest.mark.parametrize("runbook, says", [
    (None, "mpigen.yaml:5:1: error: monitoring: runbookURL is required"),
    ("docs/monitoring.md", "mpigen.yaml:7:15: error: monitoring.runbookURL: string 'docs/monitoring.md' is not an absolute "
                             "URL starting with https:// or http://"),
])
def test_the_runbook_is_an_absolute_url_and_required(tmp_path, runbook, says):
    config = CONFIG.replace("  runbookURL: https://git.example.com/ml/training/-/blob/main/docs/monitoring.md\n",
                            f"  runbookURL: {runbook}\n" if runbook else "")
    done = run_mpigen("render", cwd=repository(tmp_path, config), timeout=120)
    assert done.returncode == 2
    assert done.stderr.decode().startswith(says), done.stderr


def test_an_edit_of_what_a_job_watches_rewrites_the_rule(tmp_path):
    repo = repository(tmp_path)
    assert run_mpigen("render", cwd=repo, timeout=120).returncode == 0
    blueprint = repo / "blueprints" / "kueue-queued.yaml"
    blueprint.write_text(blueprint.read_text().replace("gpusPerWorker: 8", "gpusPerWorker: 4"))
    assert run_mpigen("render", cwd=repo, timeout=120).returncode == 0
    rule = yaml.safe_load((repo / f"rendered/dev/monitoring/prometheusrule-mpigen-dev-{DIGEST}.yaml").read_text())
    (group,) = [g for g in rule["spec"]["groups"] if g["name"] == "mpigen/ml-dev/vit-sweep-7"]
    (held,) = [r for r in group["rules"] if r["alert"] == "MpigenFinishedJobHoldsGPUs"]
    assert held["annotations"]["description"].endswith("with 4 GPUs each.")
    assert run_mpigen("check", cwd=repo, timeout=120).returncode == 0
