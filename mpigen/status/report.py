"""`mpigen status`'s report: one line per job, or JSON, and the summary line.

The text is a table, one line per job: the environment (only when the run has more than one),
namespace/name, target, what Git says (spec.state and the name of its run), and the cluster's
answer (one of mpigen.status.model.STATES) with its detail; an older run's objects still in the
cluster are named at the end of the line. The JSON (docs/cli.md, "status") is an object whose
`jobs` list holds one object per job with the fields of JSON_FIELDS, always all of them, in
that order (null where a field does not apply), and whose `summary` counts the jobs per state.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, fields

from mpigen.status.model import STATES, Verdict, Wanted, as_git_says as state_as_git_says

Paint = Callable[[str, bool], str]  # (state, as Git says) -> the state as the terminal shows it
# A job's own fields, then the verdict's: the JSON's fields, in order (docs/cli.md).
JOB_FIELDS = ("environment", "namespace", "job", "target", "git_state", "git_run")
VERDICT_FIELDS = tuple(f.name for f in fields(Verdict))
JSON_FIELDS = JOB_FIELDS + VERDICT_FIELDS + ("as_git_says",)
HEADER = ("ENVIRONMENT", "JOB", "TARGET", "GIT", "STATE", "DETAIL")


@dataclass(frozen=True)
class Row:
    """One job: what Git says of it, and the cluster's answer."""

    wanted: Wanted
    verdict: Verdict

    @property
    def as_git_says(self) -> bool:
        """The cluster's answer is what Git's spec.state asks (mpigen.status.model.as_git_says)."""
        return state_as_git_says(self.wanted.watched.state, self.verdict.state)


def plain(state: str, as_git_says: bool) -> str:
    return state


def text_report(rows: list[Row], paint: Paint = plain) -> str:
    """The table, its STATE column painted by `paint` (the command line's colours on a terminal:
    a state not as Git says is painted as such, a running job that Git stops too)."""
    environments = len({row.wanted.environment for row in rows}) > 1
    table = [HEADER if environments else HEADER[1:]]
    for row in rows:
        cells = _cells(row)
        table.append(cells if environments else cells[1:])
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]) - 1)]
    state_column = len(table[0]) - 2
    out = []
    for number, line in enumerate(table):
        cells = [cell.ljust(width) for cell, width in zip(line, widths)] + [line[-1]]
        if number:
            state = line[state_column]
            painted = paint(state, rows[number - 1].as_git_says)
            cells[state_column] = painted + " " * (widths[state_column] - len(state))
        out.append("  ".join(cells).rstrip() + "\n")
    return "".join(out)


def _cells(row: Row) -> tuple[str, ...]:
    wanted, verdict = row.wanted, row.verdict
    detail = verdict.detail
    if verdict.stale_runs:
        older = ", ".join(verdict.stale_runs)
        detail = f"{detail}; " if detail else ""
        detail += f"older run{'s' if len(verdict.stale_runs) > 1 else ''} still present: {older}"
    return (wanted.environment or "-", f"{wanted.namespace}/{wanted.job}", wanted.target,
            f"{wanted.watched.state} {wanted.watched.name}", verdict.state, detail)


def json_report(rows: list[Row]) -> str:
    """The JSON report: {"jobs": [...], "summary": {...}} (docs/cli.md), keys in a fixed order."""
    jobs = [_job_fields(row) for row in rows]
    return json.dumps({"jobs": jobs, "summary": counts(rows)}, indent=2) + "\n"


def _job_fields(row: Row) -> dict:
    wanted, verdict = row.wanted, row.verdict
    out = {"environment": wanted.environment, "namespace": wanted.namespace, "job": wanted.job,
           "target": wanted.target, "git_state": wanted.watched.state, "git_run": wanted.watched.name}
    for name in VERDICT_FIELDS:
        value = getattr(verdict, name)
        out[name] = list(value) if isinstance(value, tuple) else value
    out["as_git_says"] = row.as_git_says
    return out


def counts(rows: list[Row]) -> dict[str, int]:
    """Jobs per state, in the order of STATES, every state present (0 for none), and in all."""
    by_state = Counter(row.verdict.state for row in rows)
    return {"jobs": len(rows), **{state: by_state[state] for state in STATES},
            "as_git_says": sum(row.as_git_says for row in rows)}


def summary(rows: list[Row]) -> str:
    """The summary line: `N jobs [in E environments]: 2 running, 1 failed; 2 as Git says`
    (the states no job is in left out)."""
    total = counts(rows)
    environments = len({row.wanted.environment for row in rows})
    where = f" in {environments} environments" if environments > 1 else ""
    states = ", ".join(f"{total[state]} {state}" for state in STATES if total[state])
    jobs = f"{total['jobs']} job{'s' if total['jobs'] != 1 else ''}"
    return f"{jobs}{where}: {states}; {total['as_git_says']} as Git says"


def as_git_says(rows: list[Row]) -> bool:
    """Every job as Git says (the exit code's 0)."""
    return all(row.as_git_says for row in rows)
