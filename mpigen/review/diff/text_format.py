"""The text report of `mpigen diff` (the default, for a terminal): per job, the immutable
changes first, then its GPUs, slots and run, then each object added, removed or changed
with its fields (what only follows a run rename collapsed to one line: mpigen.review.diff.renames);
then the overview, last, where a terminal leaves it in view (mpigen.review.diff.overview); cut
to a budget of characters when one is given (mpigen.review.diff.budget). A Style marks its
lines (the command line's colours on a terminal); the plain style leaves every line as it is."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mpigen.review.diff.budget import Budget, Piece, fitted
from mpigen.review.diff.model import FieldChange, JobDiff
from mpigen.review.diff.overview import overview
from mpigen.review.diff.renames import Renames, renames
from mpigen.review.diff.wording import facts, line_diff, moot, multiline, show, summary


def _plain(text: str) -> str:
    return text


@dataclass(frozen=True)
class Style:
    """How each kind of line is marked: a function of the line's text, without its indent."""

    title: Callable[[str], str] = _plain      # `job NAMESPACE/NAME (env ENV)`
    immutable: Callable[[str], str] = _plain  # `IMMUTABLE: ...`
    added: Callable[[str], str] = _plain      # `+ added ...`, and the added lines of a line diff
    removed: Callable[[str], str] = _plain    # `- removed ...`, and the removed lines of a line diff
    changed: Callable[[str], str] = _plain    # `~ changed ...`
    hunk: Callable[[str], str] = _plain       # `@@ ... @@` of a line diff


PLAIN = Style()


def _diff_line(line: str, style: Style) -> str:
    if line.startswith("@@"):
        return style.hunk(line)
    return style.added(line) if line.startswith("+") else style.removed(line) if line.startswith("-") else line


def _text_change(change: FieldChange, style: Style) -> list[str]:
    if change.op == "reorder":
        return [f"{change.path}: order of items {show(change.old)} -> {show(change.new)}"]
    if multiline(change):
        return [f"{change.path}:"] + ["  " + _diff_line(line, style) for line in line_diff(change.old, change.new)]
    return [f"{change.path}: {show(change.old)} -> {show(change.new)}"]


def _text_job(job: JobDiff, index: int, found: Renames, style: Style) -> list[str]:
    """A job's block: its title, immutable changes, facts, run rename, the objects added and
    removed that no rename pairs, and the fields that change beyond what follows a rename."""
    lines = [style.title(job.title())]
    lines += [style.immutable(f"IMMUTABLE: {finding.said()}") for finding in job.immutable]
    lines += ["  " + fact for fact in facts(job)]
    if index in found.runs:
        lines.append("  " + found.runs[index].said())
    added, removed = found.unpaired(index, job)
    lines += ["  " + style.added(f"+ added {m.key}") for m in added]
    lines += ["  " + style.removed(f"- removed {m.key}") for m in removed]
    for change in found.changes(index, job):
        lines.append("  " + style.changed(f"~ changed {change.key}"))
        lines += ["      " + line for field_change in change.fields for line in _text_change(field_change, style)]
    return lines + [""]


def format_text(report, style: Style = PLAIN, budget: Budget = Budget()) -> str:
    """The report, its jobs in report order, then the notes and, last, where a terminal leaves
    it in view, the overview; cut to `budget` (no limit by default), the overview kept."""
    notes = [moot(note) for note in report.overridden] + [line for up in report.upgrades for line in up.lines()]
    if not report.differs():
        return "\n".join(["no changes"] + notes) + "\n"
    found = renames(report.jobs)
    jobs = [Piece(tuple(_text_job(job, index, found, style)), "job" if job.job else "other")
            for index, job in enumerate(report.jobs)]
    tail = notes + ([""] if notes else []) + [f"{label}: {text}" for label, text in overview(report.jobs, found, report.restarts, limit=budget.chars // 2)]
    return "\n".join(fitted([], jobs, tail + [summary(report)], budget, lambda said: said)) + "\n"
