"""`mpigen status`'s report (mpigen.status.report): the table, one line per job, its STATE
column painted alone; the JSON's fields, always all of them in one order and the ones
docs/cli.md documents; the summary line; and which verdicts make the exit code 1."""

from __future__ import annotations

import json

import pytest

from mpigen.render.watched import Watched
from mpigen.status.model import STATES, Verdict, Wanted
from mpigen.status.report import JSON_FIELDS, Row, as_git_says, counts, json_report, summary, text_report
from tests.support.paths import ROOT


def row(job: str, verdict: Verdict, environment: str = "", target: str = "jobset", state: str = "running",
        run: str | None = None) -> Row:
    watched = Watched("JobSet", run or f"{job}-89021a", f"{job}-launcher", f"{job}-worker", namespace="team-a",
                      job=job, state=state)
    return Row(Wanted(environment, target, watched), verdict)


ROWS = [
    row("resnet", Verdict("running", "8/8 ranks Ready, 1 of 6 restarts, 16 GPUs", run="resnet-89021a", ready=8,
                          expected=8, restarts=1, restart_budget=6, gpus=16)),
    row("bert-large", Verdict("queued", "in team-a-gpus, position 3", queue="team-a-gpus", position=3)),
    row("vit", Verdict("failed", "BackoffLimitExceeded; pod vit-launcher-x7k2p", run="vit-89021a",
                       stale_runs=("vit-4f00aa",), reason="BackoffLimitExceeded", failing_pod="vit-launcher-x7k2p")),
]


def test_one_line_per_job_in_columns_under_a_header():
    lines = text_report(ROWS).splitlines()
    assert lines[0].split() == ["JOB", "TARGET", "GIT", "STATE", "DETAIL"]
    assert lines[1].split()[:6] == ["team-a/resnet", "jobset", "running", "resnet-89021a", "running", "8/8"]
    assert len({line.index("STATE") if i == 0 else None for i, line in enumerate(lines)} - {None}) == 1
    state_at = lines[0].index("STATE")
    assert [line[state_at:].split()[0] for line in lines[1:]] == ["running", "queued", "failed"]


def test_an_older_run_still_present_is_named_at_the_end_of_its_line():
    assert text_report(ROWS).splitlines()[3].endswith(
        "BackoffLimitExceeded; pod vit-launcher-x7k2p; older run still present: vit-4f00aa")
    alone = text_report([row("a", Verdict("missing", "", stale_runs=("a-1", "a-2")))]).splitlines()[1]
    assert alone.endswith("missing  older runs still present: a-1, a-2")


def test_the_environment_column_only_when_the_run_has_more_than_one():
    one = text_report([row("a", Verdict("missing"), "prod")])
    two = text_report([row("a", Verdict("missing"), "dev"), row("a", Verdict("running"), "prod")])
    assert not one.startswith("ENVIRONMENT")
    assert two.splitlines()[0].split()[0] == "ENVIRONMENT" and two.splitlines()[2].startswith("prod ")


def test_only_the_state_is_painted_and_the_columns_stay_aligned():
    painted = text_report(ROWS, lambda state, as_git: f"<{state}>" if as_git else f"[{state}]")
    plain = text_report(ROWS)
    for painted_line, plain_line in zip(painted.splitlines()[1:], plain.splitlines()[1:]):
        assert painted_line.translate({ord(c): None for c in "<>[]"}) == plain_line
    assert "<queued>" in painted and "<team-a/bert-large>" not in painted
    assert "[failed]" in painted and "<running>" in painted  # painted by whether it is as Git says


def test_json_has_every_field_of_every_job_in_one_order():
    report = json.loads(json_report(ROWS))
    assert [list(job) for job in report["jobs"]] == [list(JSON_FIELDS)] * len(ROWS)
    vit = report["jobs"][2]
    assert vit["stale_runs"] == ["vit-4f00aa"] and vit["failing_pod"] == "vit-launcher-x7k2p"
    assert vit["git_state"] == "running" and vit["git_run"] == "vit-89021a" and vit["as_git_says"] is False
    assert report["jobs"][1]["position"] == 3 and report["jobs"][1]["run"] is None
    assert report["summary"] == {"jobs": 3, **{s: 0 for s in STATES}, "running": 1, "queued": 1, "failed": 1,
                                 "as_git_says": 2}


def test_docs_cli_documents_every_json_field():
    section = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split("## mpigen status", 1)[1]
    missing = [name for name in JSON_FIELDS if f"`{name}`" not in section]
    assert missing == []


def test_the_summary_line_counts_the_states_in_their_order():
    assert summary(ROWS) == "3 jobs: 1 queued, 1 running, 1 failed; 2 as Git says"
    two_envs = [row("a", Verdict("missing"), "dev"), row("a", Verdict("stopped"), "prod", state="completed")]
    assert summary(two_envs) == "2 jobs in 2 environments: 1 missing, 1 stopped; 1 as Git says"
    assert counts([])["jobs"] == 0


# What is not as Git says, for each of Git's states: a job that failed or is missing whatever
# Git says; a job stopped that Git runs; one that runs, or waits to, that Git stops or holds.
NOT_AS_GIT_SAYS = {"running": {"missing", "failed", "stopped"},
                   "completed": {"missing", "failed", "pending", "queued", "starting", "running"},
                   "held": {"missing", "failed", "pending", "queued", "starting", "running"}}


@pytest.mark.parametrize("git", sorted(NOT_AS_GIT_SAYS))
@pytest.mark.parametrize("state", STATES)
def test_exit_0_only_when_every_job_is_as_git_says(git, state):
    rows = [ROWS[0], row("x", Verdict(state), state=git)]
    assert as_git_says(rows) is (state not in NOT_AS_GIT_SAYS[git])
    assert json.loads(json_report(rows))["jobs"][1]["as_git_says"] is (state not in NOT_AS_GIT_SAYS[git])
