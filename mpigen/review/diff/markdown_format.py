"""The markdown report of `mpigen diff`, for a pull request comment: a warning block of
the immutable changes, a table of the jobs, and per job a folded section with a diff fence
(removed values red, added values green), then the blueprint edits an overlay makes moot.
Text from the manifests is escaped."""

from __future__ import annotations

import html
import re

from mpigen.kube.values import ABSENT
from mpigen.review.diff.model import FieldChange, JobDiff
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


def _markdown_details(job: JobDiff) -> list[str]:
    lines = [f"<details><summary>{html.escape(job.title())}</summary>", ""]
    lines += [f"- ⚠️ **immutable**: `{finding.path}` of `{finding.key}`" for finding in job.immutable]
    lines += [f"- {_md(fact)}" for fact in facts(job, "→")]
    lines += [f"- added `{m.key}`" for m in job.added]
    lines += [f"- removed `{m.key}`" for m in job.removed]
    diff = []
    for change in job.changed:
        diff.append(f"@@ changed {change.key} @@")
        diff += [line for field_change in change.fields for line in _markdown_change(field_change)]
    if diff:
        lines += [""] + _fence(diff, "diff")
    return lines + ["", "</details>", ""]


def format_markdown(report) -> str:
    lines = [f"### mpigen diff: `{report.old_label}` → `{report.new_label}`", ""]
    notes = [f"- {_md(moot(note, '→'))}" for note in report.overridden]
    notes = ["Blueprint edits an overlay overrides:", ""] + notes + [""] if notes else []
    upgrades = [f"- {_md(line.strip())}" for up in report.upgrades for line in up.lines("→")]
    notes += ["Version upgrades:", ""] + upgrades + [""] if upgrades else []
    if not report.differs():
        return "\n".join(lines + ["No changes.", ""] + notes).rstrip("\n") + "\n"
    findings = [finding for job in report.jobs for finding in job.immutable]
    if findings:
        lines += ["> [!WARNING]", f"> ⚠️ **{len(findings)} change(s) Kubernetes refuses to apply in place.** "
                                  "Argo CD and Flux will fail to sync them.", ">"]
        lines += [f"> - ⚠️ {_md(finding.said())}" for finding in findings] + [""]
    lines += ["| Job | Environment | Objects | Workers | GPUs | Slots | Notes |", "|---|---|---|---|---|---|---|"]
    lines += [_markdown_row(job) for job in report.jobs] + [""]
    for job in report.jobs:
        lines += _markdown_details(job)
    return "\n".join(lines + notes + [summary(report)]) + "\n"
