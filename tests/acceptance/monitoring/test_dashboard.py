"""The Grafana dashboard of overlays/monitored: its JSON is Grafana's dashboard model as the
SDK (grafana-foundation-sdk) reads it, it has a row per job of the environment, and every query
of every panel, as rendered for each target, is evaluated by a real Prometheus (Debian's) on the
series the exporters give while the job goes through its states (tests.support.alert_series and
alert_states, as the alert tests build them): each returns data for its job, and none for
another job's series in the same namespace. One Prometheus for the module."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models.dashboard import Dashboard

from tests.support import alert_states as s
from tests.support import prometheus_server
from tests.support.alert_minutes import overlay_renders, MINUTES, minutes, service_monitors
from tests.support.alert_series import EPOCH

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "golden" / "monitored" / "monitored" / "monitoring" / "configmap-mpigen-monitored-bae1f5-dashboard.yaml"
OVERLAY, JOB = "monitored", ("team-a", "vit-sweep-7")
OTHER = ("ml-team", "resnet50-imagenet")  # another job with GPUs; its series are put in JOB's namespace
TARGETS = ("static", "jobset", "trainjob", "mpijob")
GAP = 200 * 60  # the seconds between the starts of two windows (a job's series last MINUTES minutes)
QUEUED, RUNNING, RESTARTED, FAILED = 0, 30, 60, 120  # the minute each state of the job begins


def journey(run: s.Run, t: int) -> s.World:
    """Queued, running, restarted once (counted) and running, failed."""
    if t < RUNNING:
        return s.queued(run)
    if t < RESTARTED:
        return s.running(run)
    return s.restarted(run, RESTARTED, 1, t) if t < FAILED else s.failed(run)


def other_journey(run: s.Run, t: int) -> s.World:
    """The other job (not in a Kueue queue): running, restarted, failed."""
    return s.running(run) if t < RESTARTED else journey(run, t)


def dated(series: list[dict], start: int) -> tuple[int, list[dict]]:
    """The series of a window beginning at `start`: kube-state-metrics' creation times (Unix
    seconds, from EPOCH in tests.support.alert_series) moved with it."""
    moved = start - EPOCH
    return start, [{key: value + moved if key[0].endswith("_created") else value for key, value in minute.items()}
                   for minute in series]


def dashboard_of(objects: list[dict]) -> dict:
    (config_map,) = [o for o in objects if o["metadata"].get("labels", {}).get("grafana_dashboard") == "1"]
    (text,) = config_map["data"].values()
    return json.loads(text)


def row_of(dashboard: dict, job: tuple[str, str]) -> dict:
    (row,) = [p for p in dashboard["panels"] if p["type"] == "row" and p["title"] == "/".join(job)]
    return row


def window(index: int) -> tuple[int, int]:
    start = EPOCH + index * GAP
    return start, start + 60 * (MINUTES - 1)


@pytest.fixture(scope="module")
def renders() -> dict[str, list[dict]]:
    return overlay_renders(OVERLAY)


@pytest.fixture(scope="module")
def prometheus(renders, tmp_path_factory):
    """One Prometheus holding, per target, the job's journey in one window and the other job's
    (in the job's namespace) in the next."""
    honor = service_monitors()
    windows = []
    for i, target in enumerate(TARGETS):
        run = s.run_of(target, renders[target], *JOB)
        other = replace(s.run_of(target, renders[target], *OTHER), namespace=JOB[0])
        assert run.gpus and other.gpus
        windows.append(dated(minutes(run, journey, honor), window(2 * i)[0]))
        windows.append(dated(minutes(other, other_journey, honor), window(2 * i + 1)[0]))
    server = prometheus_server.start(tmp_path_factory.mktemp("prometheus"), windows)
    yield server
    server.stop()


def test_the_golden_dashboard_is_grafanas_model_with_a_row_per_job():
    config_map = next(d for d in yaml.safe_load_all(GOLDEN.read_text(encoding="utf-8")) if d)
    assert config_map["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert config_map["metadata"]["namespace"] == "monitoring"  # the PrometheusRule's
    dashboard = dashboard_of([config_map])
    model = Dashboard.from_json(dashboard)
    assert json.loads(json.dumps(model, cls=JSONEncoder)) == dashboard  # nothing the model does not know
    assert 8 <= len(model.uid) <= 40 and model.uid.startswith("mpigen-")
    rule = next(d for d in yaml.safe_load_all(GOLDEN.with_name("prometheusrule-mpigen-monitored-bae1f5.yaml")
                                              .read_text(encoding="utf-8")) if d)
    jobs = [group["name"].removeprefix("mpigen/") for group in rule["spec"]["groups"]]
    assert [row.title for row in model.panels] == jobs
    assert all(row.collapsed and row.panels for row in model.panels)


def test_the_dashboard_does_not_change_the_jobs_uid_with_the_jobs(renders):
    """The uid is the environment's: every target's jobs, one dashboard uid."""
    assert len({dashboard_of(objects)["uid"] for objects in renders.values()}) == 1


@pytest.mark.parametrize("target", TARGETS)
def test_every_panel_query_returns_data_for_its_job_and_none_for_another(renders, prometheus, target):
    index = TARGETS.index(target)
    mine, others = window(2 * index), window(2 * index + 1)
    row = row_of(dashboard_of(renders[target]), JOB)
    assert [panel["title"] for panel in row["panels"]] == ["State", "GPUs", "Restarts", "Time queued"]
    assert prometheus_server.has_data(prometheus.query_range(f'group by (namespace) ({{namespace="{JOB[0]}"}})',
                                                             *others))  # the other job's series are there
    for panel in row["panels"]:
        for query in panel["targets"]:
            what = f"{target} {panel['title']} {query['legendFormat']}"
            assert prometheus_server.has_data(prometheus.query_range(query["expr"], *mine)), what
            assert prometheus.query_range(query["expr"], *others) == [], what


def _at(result: list[dict], start: int, minute: int) -> float | None:
    (series,) = result
    values = {int(at): float(value) for at, value in series["values"]}
    return values.get(start + 60 * minute)


@pytest.mark.parametrize("target", TARGETS)
def test_the_panels_show_the_journey(renders, prometheus, target):
    """The state through the journey, the GPUs requested (2 workers of 8) and used (DCGM's 90%
    on each), the restart, and the time queued."""
    start, end = window(2 * TARGETS.index(target))
    panels = {panel["title"]: panel for panel in row_of(dashboard_of(renders[target]), JOB)["panels"]}

    def query(title: str, legend: str) -> list[dict]:
        (expr,) = [q["expr"] for q in panels[title]["targets"] if q["legendFormat"] == legend]
        return prometheus.query_range(expr, start, end)

    state = query("State", "state")
    names = {m["value"]: m["text"] for m in [{"value": k, **v} for k, v in
                                              panels["State"]["fieldConfig"]["defaults"]["mappings"][0]["options"]
                                              .items()]}
    shown = [names[str(int(_at(state, start, minute)))] for minute in (QUEUED + 10, RUNNING + 10, FAILED + 10)]
    assert shown == ["queued", "running", "failed"]
    assert _at(query("GPUs", "requested"), start, RUNNING + 10) == 16
    assert _at(query("GPUs", "used"), start, RUNNING + 10) == pytest.approx(16 * 0.9)
    restarts = [prometheus.query_range(q["expr"], start, end) for q in panels["Restarts"]["targets"]]
    assert max(_at(result, start, RUNNING + 10) or 0 for result in restarts) == 0
    assert max(_at(result, start, RESTARTED + 10) or 0 for result in restarts) == 1
    assert panels["Restarts"]["fieldConfig"]["defaults"]["thresholds"]["steps"][1]["value"] == s.run_of(
        target, renders[target], *JOB).budget
    assert _at(query("Time queued", "queued"), start, QUEUED + 10) == 600
    assert _at(query("Time queued", "queued"), start, RUNNING + 10) is None
