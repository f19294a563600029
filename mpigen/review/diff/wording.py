"""The words the text and markdown reports share: a value on one line, a multi-line value
as a small line diff, what a change does to a job's run, a blueprint edit an overlay makes
moot, and the closing summary: the counts, the report's last line."""

from __future__ import annotations

import difflib
import json
from typing import Any

from mpigen.kube.values import ABSENT
from mpigen.review.diff.model import FieldChange, JobDiff

MAX_VALUE = 80  # characters of a one-line value shown in text and markdown


def show(value: Any, shorten: bool = True) -> str:
    """A value as JSON on one line, cut to MAX_VALUE characters."""
    if value is ABSENT:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text[:MAX_VALUE - 3] + "..." if shorten and len(text) > MAX_VALUE else text


def multiline(change: FieldChange) -> bool:
    sides = (change.old, change.new)
    return (all(isinstance(s, str) or s is ABSENT for s in sides)
            and any(isinstance(s, str) and "\n" in s.rstrip("\n") for s in sides))


def line_diff(old: Any, new: Any) -> list[str]:
    """A small unified diff (no file header) of two multi-line strings."""
    a = "" if old is ABSENT else old
    b = "" if new is ABSENT else new
    lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=1))[2:]
    return lines or [" (only the final line break differs)"]


def facts(job: JobDiff, arrow: str = "->") -> list[str]:
    """The workers and the GPU totals that changed (`GPUs 1 -> 1` says nothing), the slots
    when a worker's changed (more workers are more slots: `workers 2 -> 4` says it), and what
    the change does to a run."""
    facts = []
    for label, (old, new) in (("workers", job.workers), ("GPUs", job.gpus), ("slots", job.slots)):
        if old != new and (label != "slots" or job.slots_per_worker_change()):
            facts.append(f"{label} {old} {arrow} {new}")
    if job.new_run:
        facts.append("starts a new run: a launcher Job is created")
    if job.ends_run:
        facts.append("ends the run: a launcher Job is deleted")
    if job.restarts_workers:
        facts.append("restarts the workers: a running launcher loses its ranks")
    return facts


def moot(note, arrow: str = "->") -> str:
    """`prod: workers 4 -> 8 in blueprints/x.yaml is overridden by overlays/prod/overlay.yaml:20:18 (16):
    no change` (note: an Overridden)."""
    return (f"{note.environment}: {note.field} {show(note.old)} {arrow} {show(note.new)} in {note.blueprint} "
            f"is overridden by {note.overlay} ({show(note.value)}): no change")


def summary(report) -> str:
    def count(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 's'}"

    added = sum(len(job.added) for job in report.jobs)
    removed = sum(len(job.removed) for job in report.jobs)
    changed = sum(len(job.changed) for job in report.jobs)
    immutable = sum(len(job.immutable) for job in report.jobs)
    line = (f"{report.old_label} -> {report.new_label}: {count(len(report.jobs), 'job')} changed; "
            f"objects: {added} added, {removed} removed, {changed} changed; {count(immutable, 'immutable change')}")
    return line
