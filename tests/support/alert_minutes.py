"""A job's series as Prometheus holds them, minute by minute (for the promtool tests of
tests/acceptance/monitoring/test_alert_states.py and the dashboard's Prometheus of
test_dashboard.py): each minute's World (tests.support.alert_states) turned into its exporters'
series (tests.support.alert_series) and scraped with the labels Prometheus attaches through the
ServiceMonitors docs/monitoring.md section 3 shows, honorLabels as each of them sets it."""

from __future__ import annotations

import re
from dataclasses import replace

import yaml

from mpigen.render.targets import TARGETS
from tests.support import alert_states as s
from tests.support.alert_series import World, controllers, crs, dcgm, ksm, kubelet, scraped
from tests.support.command_line import run_mpigen
from tests.support.golden import examples_for
from tests.support.paths import ROOT

DOCS = ROOT / "docs" / "monitoring.md"
MINUTES = 160  # the series of a job, a sample a minute


def overlay_renders(overlay: str) -> dict[str, list[dict]]:
    """The repository's blueprints rendered for `overlay` under each target: target -> objects."""
    out = {}
    for target in TARGETS:
        done = run_mpigen("render", *examples_for(target), "--stdout", "--overlay", overlay, "--target", target,
                          cwd=ROOT, timeout=120)
        assert done.returncode == 0, done.stderr.decode()
        out[target] = [d for d in yaml.safe_load_all(done.stdout) if d]
    return out


def service_monitors() -> dict[str, bool]:
    """The honorLabels of each ServiceMonitor docs/monitoring.md shows, by its name."""
    text = DOCS.read_text(encoding="utf-8")
    out = {}
    for block in re.findall(r"```yaml\n(.*?)```", text, re.S):
        for doc in yaml.safe_load_all(block):
            if doc and doc.get("kind") == "ServiceMonitor":
                out[doc["metadata"]["name"]] = all(e.get("honorLabels", False) for e in doc["spec"]["endpoints"])
    return out


def minutes(run: s.Run, world_of, honor: dict[str, bool]) -> list[dict]:
    """The scraped series of each of MINUTES minutes, the run's World at minute t being
    world_of(run, t); `honor`: the honorLabels of each ServiceMonitor, by its name."""
    out = []
    for t in range(MINUTES):
        world = world_of(run, t)
        ns = run.namespace
        series = {**scraped(ksm(world, ns), True, {"namespace": "monitoring", "job": "kube-state-metrics"}),
                  **scraped(crs(world, ns, run.jobset), True, {"namespace": "monitoring", "job": "kube-state-metrics"}),
                  **scraped(kubelet(world, ns), True, {"job": "kubelet", "namespace": "kube-system"})}
        jobset = controllers(_only(world, queue=False), ns, run.jobset, None)
        kueue = controllers(_only(world, queue=True), ns, None, run.queue)
        series.update(scraped(jobset, honor["jobset-controller-manager-metrics-monitor"],
                              {"namespace": "jobset-system", "pod": "jobset-controller-manager-5c9d", "job": "jobset"}))
        series.update(scraped(kueue, honor["kueue-controller-manager-metrics-monitor"],
                              {"namespace": "kueue-system", "pod": "kueue-controller-manager-7f6b", "job": "kueue"}))
        series.update(scraped(dcgm(world, ns), honor["dcgm-exporter"],
                              {"namespace": "gpu-operator", "pod": "dcgm-exporter-x2x9", "container": "exporter",
                               "job": "dcgm-exporter"}))
        out.append(series)
    return out


def _only(world: World, queue: bool) -> World:
    """The World with only the controller's own series (the JobSet controller's or Kueue's)."""
    return replace(world, jobset_failed=0, jobset_completed=0) if queue else replace(world, inadmissible=None)
