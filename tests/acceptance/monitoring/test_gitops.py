"""The PrometheusRule (and the Grafana dashboard) under Argo CD and Flux: the environment's objects,
never part of a job's run (turning monitoring on renames and changes no job's object), synced with the configuration
under Argo CD (wave -1), applied by a Kustomization of the environment under Flux (its own
folder beside a target's steps, never waited on), and shown by `mpigen diff` like any object."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.golden import examples_for

ROOT = Path(__file__).resolve().parents[3]
RULE = "PrometheusRule"


def environments(obj: dict) -> bool:
    """The environment's monitoring objects: its PrometheusRule and its dashboard's ConfigMap."""
    return obj["kind"] == RULE or "grafana_dashboard" in obj["metadata"].get("labels", {})


def objects(*args: str, cwd: Path = ROOT) -> list[dict]:
    done = run_mpigen("render", "--stdout", *args, cwd=cwd, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


def repository(tmp_path: Path, config: str) -> Path:
    for folder in ("blueprints", "overlays"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    (tmp_path / "mpigen.yaml").write_text(config, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("target", ["static", "jobset", "trainjob", "mpijob"])
@pytest.mark.parametrize("gitops", ["none", "argocd", "flux"])
def test_monitoring_changes_no_job_object(target, gitops):
    """overlays/monitored is prod with monitoring: the same objects, the rule and the dashboard."""
    examples = examples_for(target)  # under mpijob, less the examples it refuses
    plain = objects(*examples, "--overlay", "prod", "--target", target, "--gitops", gitops)
    watched = objects(*examples, "--overlay", "monitored", "--target", target, "--gitops", gitops)
    assert [o for o in watched if not environments(o)] == plain
    (rule,) = [o for o in watched if o["kind"] == RULE]
    (board,) = [o for o in watched if environments(o) and o["kind"] != RULE]
    assert rule["metadata"]["labels"]["release"] == "prometheus"
    wave = {"argocd.argoproj.io/sync-wave": "-1"} if gitops == "argocd" else {}
    assert rule["metadata"].get("annotations", {}) == wave
    # ${datasource} is Grafana's variable, which Flux's substitution must leave alone
    applied = {"argocd.argoproj.io/sync-options": "ServerSideApply=true"} if gitops == "argocd" else {}
    assert board["metadata"]["annotations"] == {**wave, **applied, "kustomize.toolkit.fluxcd.io/substitute": "disabled"}


def test_without_monitoring_there_is_no_rule():
    assert not [o for o in objects("--overlay", "prod") if o["kind"] == RULE]


@pytest.mark.parametrize("target, alerts_folder", [("static", True), ("trainjob", True), ("jobset", False)])
def test_flux_applies_the_rule_with_its_environment(tmp_path, target, alerts_folder):
    """A target that applies in steps: the rule in <env>/alerts/, applied by the environment's
    Kustomization mpigen-monitored-alerts (pruned, not waited on); one that does not: in the
    environment's folder, which one Kustomization applies."""
    repo = repository(tmp_path, "apiVersion: mpigen.dev/v1alpha1\nkind: Config\noverlays: [monitored]\n"
                                f"output: rendered\ntarget: {target}\nflux: {{kustomizations: flux}}\n")
    done = run_mpigen("render", "--gitops", "flux", cwd=repo, timeout=120)  # the flag wins over prod's argocd
    assert done.returncode == 0, done.stderr.decode()
    kustomizations = [d for d in yaml.safe_load_all((repo / "flux" / "kustomizations-monitored.yaml").read_text()) if d]
    by_path = {k["spec"]["path"]: k for k in kustomizations}
    if alerts_folder:
        assert (repo / "rendered/monitored/alerts/monitoring/prometheusrule-mpigen-monitored-bae1f5.yaml").is_file()
        assert (repo / "rendered/monitored/alerts/monitoring/configmap-mpigen-monitored-bae1f5-dashboard.yaml").is_file()
        alerts = by_path["./rendered/monitored/alerts"]
        assert alerts["metadata"]["name"] == "mpigen-monitored-alerts"
        assert alerts["spec"]["prune"] is True and alerts["spec"]["wait"] is False
    else:
        assert (repo / "rendered/monitored/monitoring/prometheusrule-mpigen-monitored-bae1f5.yaml").is_file()
        assert (repo / "rendered/monitored/monitoring/configmap-mpigen-monitored-bae1f5-dashboard.yaml").is_file()
        assert list(by_path) == ["./rendered/monitored"]


def test_diff_shows_a_change_of_the_rule(tmp_path):
    repo = repository(tmp_path, "apiVersion: mpigen.dev/v1alpha1\nkind: Config\n")
    assert run_mpigen("render", "--overlay", "monitored", "-o", "old", cwd=repo, timeout=120).returncode == 0
    overlay = repo / "overlays" / "monitored" / "overlay.yaml"
    overlay.write_text(overlay.read_text().replace("notStartedFor: 2h", "notStartedFor: 3h"))
    assert run_mpigen("render", "--overlay", "monitored", "-o", "new", cwd=repo, timeout=120).returncode == 0
    done = run_mpigen("diff", "old", "new", cwd=repo, timeout=120)
    assert done.returncode == 1
    report = done.stdout.decode()
    assert "~ changed PrometheusRule monitoring/mpigen-monitored" in report
    assert 'spec.groups[mpigen/team-a/vit-sweep-7].rules[1].for: "2h" -> "3h"' in report
