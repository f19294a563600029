"""The markdown report of `mpigen diff`, for a pull request comment: the overview (jobs,
GPUs, immutable changes, restarts, every changed job by name: mpigen.review.diff.overview), a
warning block of the immutable changes, the blueprint edits an overlay makes moot and the
version upgrades, a table of the jobs, and per job a folded section with a diff fence (removed
values red, added values green), the sections in order of importance; the whole cut to a
budget of characters (mpigen.review.diff.budget: by default what a GitHub comment takes), with
what follows a run rename collapsed to one line per job (mpigen.review.diff.renames). Text
from the manifests is escaped."""

from __future__ import annotations

import html
import re

from mpigen.kube.values import ABSENT
from mpigen.review.diff.budget import COMMENT_LIMIT, Budget, Piece, fitted
from mpigen.review.diff.model import FieldChange, JobDiff
from mpigen.review.diff.overview import overview, restarted
from mpigen.review.diff.renames import Renames, renames
from mpigen.review.diff.wording import facts, line_diff, moot, multiline, show, summary


def _md(text: str) -> str:
    """Text with the characters markdown would read as formatting escaped."""
    return re.sub(r"([\\`*_\[\]<>|])", r"\\\1", text)


def _markdown_change(change: FieldChange) -> list[str]:
    """Lines for a ```diff fence: removed values red, added values green."""
    if multiline(change):
        body = ["    " + line if line.startswith("@@") else line[0] + "     " + line[1:]
                for line in line_diff(change.old, change.new)]
        return [f"  {change.path}:"] + body
    suffix = " (order)" if change.op == "reorder" else ""
    lines = [f"- {change.path}{suffix}: {show(change.old)}"] if change.old is not ABSENT else []
    return lines + ([f"+ {change.path}{suffix}: {show(change.new)}"] if change.new is not ABSENT else [])


def _fence(lines: list[str], language: str) -> list[str]:
    """A code fence longer than any run of backticks inside it."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + language] + lines + [fence]


def _markdown_row(job: JobDiff) -> str:
    def delta(pair: tuple[int, int], shown: bool = True) -> str:
        old, new = pair
        return "" if old == new or not shown else f"**{old} → {new}**"  # a total that did not change is left out

    notes = (["⚠️ immutable"] if job.immutable else []) + (["new run"] if job.new_run else []) \
        + (["ends run"] if job.ends_run else []) + (["restarts workers"] if job.restarts_workers else [])
    objects = f"+{len(job.added)} −{len(job.removed)} ~{len(job.changed)}"
    where = "/".join(part for part in (job.namespace, job.job) if part) if job.job else "other objects"
    slots = delta(job.slots, job.slots_per_worker_change())  # as the text: more workers are more slots
    return f"| {_md(where)} | {_md(job.environment)} | {objects} | {delta(job.workers)} | {delta(job.gpus)} | " \
           f"{slots} | {', '.join(notes)} |"


def _markdown_details(job: JobDiff, index: int, found: Renames) -> list[str]:
    """A job's folded section: its immutable changes, facts, run rename, the objects added and
    removed that no rename pairs, and the fields that change beyond what follows a rename."""
    lines = [f"<details><summary>{html.escape(job.title())}</summary>", ""]
    lines += [f"- ⚠️ **immutable**: `{finding.path}` of `{finding.key}`" for finding in job.immutable]
    lines += [f"- {_md(fact)}" for fact in facts(job, "→")]
    if index in found.runs:
        lines.append(f"- {_md(found.runs[index].said('→'))}")
    added, removed = found.unpaired(index, job)
    lines += [f"- added `{m.key}`" for m in added]
    lines += [f"- removed `{m.key}`" for m in removed]
    diff = []
    for change in found.changes(index, job):
        diff.append(f"@@ changed {change.key} @@")
        diff += [line for field_change in change.fields for line in _markdown_change(field_change)]
    if diff:
        lines += [""] + _fence(diff, "diff")
    return lines + ["", "</details>", ""]


def _importance(item: tuple[int, JobDiff], found: Renames) -> tuple:
    """Immutable changes first, then GPU and worker changes, then restarts, then the rest;
    in report order within each."""
    index, job = item
    return (not job.immutable, job.gpus[0] == job.gpus[1] and job.workers[0] == job.workers[1],
            not restarted(index, job, found), index)


def format_markdown(report, budget: Budget = Budget(COMMENT_LIMIT)) -> str:
    """The report, cut to `budget`: the overview, the immutable changes and the notes always;
    then the table of jobs and each job's section in order of importance, while they fit."""
    head = [f"### mpigen diff: `{report.old_label}` → `{report.new_label}`", ""]
    notes = [f"- {_md(moot(note, '→'))}" for note in report.overridden]
    notes = ["Blueprint edits an overlay overrides:", ""] + notes + [""] if notes else []
    upgrades = [f"- {_md(line.strip())}" for up in report.upgrades for line in up.lines("→")]
    notes += ["Version upgrades:", ""] + upgrades + [""] if upgrades else []
    if not report.differs():
        return "\n".join(head + ["No changes.", ""] + notes).rstrip("\n") + "\n"
    found = renames(report.jobs)
    head += [f"- **{label}**: {_md(text)}"
             for label, text in overview(report.jobs, found, report.restarts, "→", budget.chars // 2)] + [""]
    findings = [finding for job in report.jobs for finding in job.immutable]
    if findings:
        head += ["> [!WARNING]", f"> ⚠️ **{len(findings)} change(s) Kubernetes refuses to apply in place.** "
                                 "Argo CD and Flux will fail to sync them.", ">"]
        head += [f"> - ⚠️ {_md(finding.said())}" for finding in findings] + [""]
    head += notes + ["| Job | Environment | Objects | Workers | GPUs | Slots | Notes |",
                     "|---|---|---|---|---|---|---|"]
    rows = [Piece((_markdown_row(job),), "row") for job in report.jobs]
    ordered = sorted(enumerate(report.jobs), key=lambda item: _importance(item, found))
    details = [Piece(("",) + tuple(_markdown_details(job, index, found)), "job" if job.job else "other")
               for index, job in ordered]
    lines = fitted(head, rows + details, ["", summary(report)], budget, lambda said: f"**{said}**")
    return "\n".join(lines) + "\n"
