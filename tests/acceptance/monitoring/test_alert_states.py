"""Every alert on every target through the states a job goes through: `promtool test rules` on
the series the exporters' code would give (tests.support.alert_series, alert_states), scraped
with the labels Prometheus attaches through the ServiceMonitors of docs/monitoring.md section 3.
Each case asserts an alert fires no earlier than its `for` after its condition begins, stays
firing while the reason a job does not run changes, and resolves when the condition ends; the
table of docs/monitoring.md section 4 is made of these cases. One promtool run for them all."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from mpigen.formats.monitoring import Monitoring
from mpigen.monitoring.prometheus_rule import prometheus_rule
from mpigen.render.targets import TARGETS as TARGET_TABLE
from tests.support import alert_states as s
from tests.support.alert_minutes import overlay_renders, DOCS, minutes, service_monitors
from tests.support.alert_series import World, input_series
from tests.support.alert_watched import watched_of
from tests.support.promtool import promtool

ROOT = Path(__file__).resolve().parents[3]
OVERLAY, JOB = "monitored", ("team-a", "vit-sweep-7")
TARGETS = ("static", "jobset", "trainjob", "mpijob")
NOT_STARTED_FOR, IDLE_FOR = 120, 15  # overlays/monitored: notStartedFor 2h; idleFor's default
ALERTS = ("MpigenJobFailed", "MpigenJobNotStarted", "MpigenJobRestarting", "MpigenJobNearRestartBudget",
          "MpigenWorkersIdle", "MpigenFinishedJobHoldsGPUs")
EVALUATION = 5  # the rules are evaluated every 5 minutes (promtool's cost is in evaluations): a check at
#                 minute m sees the evaluation at the last multiple of 5 up to m


def _step(run: s.Run, name: str) -> int | None:
    return next((i for i, step in enumerate(run.steps) if step.name in name.split("|")), None)


def _pull(step: str):
    def world(run, t):
        return s.admitted(run, _step(run, step), "ImagePullBackOff") if t < 150 else s.running(run)
    return world


def _changing(run, t):
    last = len(run.steps) - 1
    if t < 30:
        return s.queued(run)
    if t < 60:
        return s.queued(run, inadmissible=True)
    if t < 100:
        return s.admitted(run, 0, "unschedulable")
    return s.admitted(run, last, "ImagePullBackOff") if t < 150 else s.running(run)


def _not_started(reason):
    """Not running from minute 0 to 150: pending until the `for`, firing after, resolved at 150."""
    return [(NOT_STARTED_FOR - 1, {}), (NOT_STARTED_FOR + 5, {"MpigenJobNotStarted": reason}),
            (145, {"MpigenJobNotStarted": reason}), (155, {})]


def _restart(counted, worker=False, near=False):
    def world(run, t):
        last = run.budget if run.jobset else run.budget - 1  # the last attempt (JobSet: maxRestarts counted)
        return s.restarted(run, 30, last if near else counted, t, worker_restart=worker)
    return world


def _near(run):
    return str(run.budget if run.jobset else run.budget - 1)


def _past(run, t):
    last = run.budget if run.jobset else run.budget - 1
    return s.failed(run) if t >= 60 else s.restarted(run, 30, last, t)


def _early(run, t):
    """The workers run, the launcher not yet (a JobSet has not created it: dependsOn worker Ready
    is not met for long; an operator's launcher pod waits on its workers), and at minute 30 the
    workers fail: JobSet recreates its child Jobs, a worker's container restarts in place."""
    workers = _step(run, "worker|node")
    if run.jobset is not None:
        return World(inadmissible=0) if t == 30 else s.admitted(run, workers, created=30 if t > 30 else 0)
    world = s.admitted(run, workers)
    if t >= 30:
        world.pods = [replace(p, restarts={"worker": 1}) if p.name in run.steps[workers].pods else p for p in world.pods]
    return world


def _kept(run, t):
    """Completed at 60 with its workers running on; they go at 120."""
    return s.running(run) if t < 60 else s.completed_workers_kept(run) if t < 120 else s.completed(run)


def _last(run):
    return run.steps[-1].name


# state -> (the minute's World, the checks: minute -> alert -> its reason/value (a callable of the run) or None,
#           the blueprint's state, whether it applies to the run)
CASES = {
    "queued": (lambda run, t: s.queued(run) if t < 150 else s.running(run), _not_started("queued"), "running", None),
    "inadmissible": (lambda run, t: s.queued(run, True) if t < 150 else s.running(run), _not_started("inadmissible"),
                     "running", None),
    "held": (lambda run, t: s.queued(run), [(NOT_STARTED_FOR + 5, {})], "held", None),
    "unschedulable": (lambda run, t: s.admitted(run, 0, "unschedulable") if t < 150 else s.running(run),
                      _not_started(lambda run: f"{run.steps[0].name}: unschedulable"), "running", None),
    "image pull: keygen": (_pull("keygen"), _not_started("keygen: ImagePullBackOff"), "running", "keygen"),
    "image pull: workers": (_pull("worker|node"), _not_started(lambda run: f"{run.steps[_step(run, 'worker|node')].name}:"
                                                                            " ImagePullBackOff"), "running", None),
    "image pull: launcher": (_pull("launcher"), _not_started("launcher: ImagePullBackOff"), "running", None),
    "not started, reason changing": (_changing, _not_started(lambda run: f"{_last(run)}: ImagePullBackOff"), "running",
                                     None),
    "running": (lambda run, t: s.running(run), [(60, {}), (150, {})], "running", None),
    "idle": (lambda run, t: s.running(run, gpu=0 if t < 60 else 90), [(IDLE_FOR - 1, {}),
             (IDLE_FOR + 2, {"MpigenWorkersIdle": "0"}), (59, {"MpigenWorkersIdle": "0"}), (62, {})], "running", None),
    "restarting, counted": (_restart(1), [(29, {}), (36, {"MpigenJobRestarting": None}),
                                          (85, {"MpigenJobRestarting": None}), (95, {})], "running", None),
    "restarting, not counted": (_restart(0, worker=True), [(29, {}), (36, {"MpigenJobRestarting": None}), (95, {})],
                                "running", None),
    "restarting before the launcher runs": (_early, [(29, {}), (36, {"MpigenJobRestarting": None}),
                                                     (85, {"MpigenJobRestarting": None}), (95, {})], "running", None),
    "near the budget": (_restart(0, near=True), [(29, {}), (36, {"MpigenJobRestarting": None,
                                                                 "MpigenJobNearRestartBudget": _near}),
                                                 (95, {"MpigenJobNearRestartBudget": _near})], "running", None),
    "past the budget": (_past, [(62, {"MpigenJobFailed": None}), (150, {"MpigenJobFailed": None})], "running", None),
    "completed": (lambda run, t: s.running(run) if t < 60 else s.completed(run), [(30, {}), (62, {}), (150, {})],
                  "running", None),
    "completed, workers kept": (_kept, [(62, {}), (76, {"MpigenFinishedJobHoldsGPUs": "2"}),
                                        (115, {"MpigenFinishedJobHoldsGPUs": "2"}), (126, {})], "running", None),
    "failed": (lambda run, t: s.running(run) if t < 60 else s.failed(run), [(59, {}), (61, {"MpigenJobFailed": None})],
               "running", None),
    "stopped": (lambda run, t: s.queued(run), [(NOT_STARTED_FOR + 5, {})], "completed", None),
}


def applies(run: s.Run, state: str) -> bool:
    only = CASES[state][3]
    return only is None or _step(run, only) is not None


@pytest.fixture(scope="module")
def renders() -> dict[str, list[dict]]:
    return overlay_renders(OVERLAY)


def group_of(objects: list[dict], state: str) -> dict:
    """The job's group of alerts, its blueprint at `state`: the rendered one for running, else the
    same job's Watched at that state (what the pipeline hands monitoring)."""
    (rule,) = [o for o in objects if o["kind"] == "PrometheusRule"]
    group = next(g for g in rule["spec"]["groups"] if g["name"] == f"mpigen/{JOB[0]}/{JOB[1]}")
    if state == "running":
        return group
    monitoring = Monitoring(not_started_for="2h", runbook="https://git.example.com/ml/training/-/blob/main/docs/"
                                                          "monitoring.md")
    made, _ = prometheus_rule(OVERLAY, [watched_of(objects, group, state)], monitoring, "none")
    return made["spec"]["groups"][0]


def expected(rule: dict, filled, run: s.Run) -> dict:
    labels = dict(rule["labels"])
    annotations = {}
    filled = filled(run) if callable(filled) else filled
    for key, text in rule["annotations"].items():
        if key == "reason":
            text = filled
        annotations[key] = text.replace("{{ $value }}", filled or "")
    return {"exp_labels": labels, "exp_annotations": annotations}


def table(results: dict[tuple[str, str], set[str] | None]) -> str:
    """docs/monitoring.md's table: per state and target, the alerts that fire (- none; n/a: the
    target's jobs have no such step)."""
    lines = ["| state | " + " | ".join(f"`{t}`" for t in TARGETS) + " |", "|---|" + "---|" * len(TARGETS)]
    for state in CASES:
        cells = []
        for target in TARGETS:
            fired = results[(target, state)]
            cells.append("n/a" if fired is None else ", ".join(a.removeprefix("Mpigen") for a in ALERTS if a in fired)
                         or "-")
        lines.append(f"| {state} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# The states whose alerts read the series a ServiceMonitor scrapes (JobSet's, Kueue's, DCGM's),
# run once more with honorLabels on.
HONOURED = ("inadmissible", "idle", "failed")


def write_case(tmp_path: Path, objects: list[dict], run: s.Run, state: str, honor: dict[str, bool]) -> str:
    """The case's rule file and promtool test file; the name of the test file."""
    world_of, checks, blueprint_state, _ = CASES[state]
    group = group_of(objects, blueprint_state)
    rules = {r["alert"]: r for r in group["rules"]}
    slug = re.sub(r"[^a-z]+", "-", f"{run.target}-{state}-{'on' if all(honor.values()) else 'off'}")
    (tmp_path / f"{slug}.rules.yaml").write_text(yaml.safe_dump({"groups": [group]}))
    tests = []
    for minute, firing in checks:
        for alert in ALERTS:
            exp = [expected(rules[alert], firing[alert], run)] if alert in firing else []
            assert alert in rules or not exp, (run.target, state, alert)
            tests.append({"eval_time": f"{minute}m", "alertname": alert, "exp_alerts": exp})
    test = {"rule_files": [f"{slug}.rules.yaml"], "evaluation_interval": f"{EVALUATION}m",
            "tests": [{"interval": "1m", "input_series": input_series(minutes(run, world_of, honor)),
                       "alert_rule_test": tests}]}
    (tmp_path / f"{slug}.test.yaml").write_text(yaml.safe_dump(test, width=10**6))
    return f"{slug}.test.yaml"


def test_every_alert_on_every_target_through_every_state(renders, tmp_path):
    shipped = service_monitors()
    assert set(shipped) == {"jobset-controller-manager-metrics-monitor", "kueue-controller-manager-metrics-monitor",
                            "dcgm-exporter"}
    assert not any(shipped.values())  # as the projects ship them
    cases = [(target, state, shipped) for target in TARGETS for state in CASES]
    cases += [(target, state, dict.fromkeys(shipped, True)) for target in TARGETS for state in HONOURED]
    files, results = [], {}
    for target, state, honor in cases:
        run = s.run_of(target, renders[target], *JOB)
        if not applies(run, state):
            results[(target, state)] = None
            continue
        files.append(write_case(tmp_path, renders[target], run, state, honor))
        results[(target, state)] = {a for _, firing in CASES[state][1] for a in firing}
    done = promtool("test", "rules", *files, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr[-5000:]
    assert table(results) in DOCS.read_text(encoding="utf-8"), table(results)


def test_a_job_without_objects_of_its_run_gets_no_alerts():
    """A render with no objects of the job's run (a queued job stopped before it ran): no
    target watches anything, and the environment's rule is written without its group."""
    assert [TARGET_TABLE[target].watched([]) for target in TARGETS] == [None] * len(TARGETS)
    rule, _ = prometheus_rule(OVERLAY, [], Monitoring(runbook="https://example.com/monitoring.md"), "none")
    assert rule["spec"]["groups"] == []
