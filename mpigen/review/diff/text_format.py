"""The text report of `mpigen diff` (the default, for a terminal): per job, the immutable
changes first, then its GPUs, slots and run, then each object added, removed or changed
with its fields."""

from __future__ import annotations

from mpigen.review.diff.model import FieldChange
from mpigen.review.diff.wording import facts, line_diff, multiline, show, summary


def _text_change(change: FieldChange) -> list[str]:
    if change.op == "reorder":
        return [f"{change.path}: order of items {show(change.old)} -> {show(change.new)}"]
    if multiline(change):
        return [f"{change.path}:"] + ["  " + line for line in line_diff(change.old, change.new)]
    return [f"{change.path}: {show(change.old)} -> {show(change.new)}"]


def format_text(report) -> str:
    if not report.differs():
        return "no changes\n"
    lines = []
    for job in report.jobs:
        lines.append(job.title())
        lines += [f"IMMUTABLE: {finding.message}" for finding in job.immutable]
        lines += ["  " + fact for fact in facts(job)]
        lines += [f"  + added {m.key}" for m in job.added]
        lines += [f"  - removed {m.key}" for m in job.removed]
        for change in job.changed:
            lines.append(f"  ~ changed {change.key}")
            lines += ["      " + line for field_change in change.fields for line in _text_change(field_change)]
        lines.append("")
    return "\n".join(lines + [summary(report)]) + "\n"
