"""Run renames in a diff: under a GitOps profile every object of a job's run is named after
the run (`NAME-HASH-launcher`, `NAME-HASH-worker`, ...; mpigen.render.parts.gitops), and a change
to the job's spec gives the run a new HASH. The object diff then sees every object of the run
removed and another added, and every object that names the run (an environment's
PrometheusRule, whose expressions select the run's pods) changed field by field: a one-line
change to 20 jobs became thousands of changed lines.

This module reads such a diff back as what happened: per job, the run renamed (`job-a-1f2e3d
-> job-a-9c8b7a`), the objects of the old run paired with those of the new one (named alike
but for the run's segment), the fields that differ once the old run's name is read as the new
one's (the change the reviewer made), and, in every other changed object of the environment,
the fields that only follow some job's rename. The report forms (text, markdown) collapse
what follows a rename to one line per job; json keeps every object and field.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mpigen.kube.values import ABSENT, equal
from mpigen.review.diff.fields import diff_values
from mpigen.review.diff.model import FieldChange, JobDiff, Manifest, ObjectChange


# A run is several objects (a launcher Job and its ServiceAccount, Role, ConfigMap, the workers);
# one object renamed alone is an edit of its name, shown as it is.
MIN_PAIRS = 2


@dataclass(frozen=True)
class Rename:
    """A run's name on each side: the object names' segments up to the one that differs."""

    old: str
    new: str

    def applied(self, value: Any) -> Any:
        """The value with the old run's name read as the new one's, in every string of it,
        and the old run's own segment (a label `mpigen.dev/run: 1f2e3d`) as the new one's."""
        if isinstance(value, str):
            old_segment, new_segment = self.old.rsplit("-", 1)[-1], self.new.rsplit("-", 1)[-1]
            return new_segment if value == old_segment else value.replace(self.old, self.new)
        if isinstance(value, dict):
            return {self.applied(k): self.applied(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.applied(item) for item in value]
        return value


@dataclass
class RenamedRun:
    """What a job's run rename comes to: the objects paired across it, and the fields of them
    that differ beyond the names (the change itself)."""

    rename: Rename
    pairs: list[tuple[Manifest, Manifest]] = field(default_factory=list)
    changed: list[ObjectChange] = field(default_factory=list)  # paired objects whose fields differ beyond the rename
    followers: dict[str, int] = field(default_factory=dict)  # other object -> its fields that only follow the rename

    def said(self, arrow: str = "->") -> str:
        """`run job-a-1f2e3d -> job-a-9c8b7a: 6 objects renamed; 1 field of ConfigMap monitoring/x-dashboard
        follows it; 12 fields of PrometheusRule monitoring/x follow it`."""
        line = f"run {self.rename.old} {arrow} {self.rename.new}: {len(self.pairs)} objects renamed"
        follow = "; ".join(f"{n} field{'s' if n != 1 else ''} of {where} follow{'' if n != 1 else 's'} it"
                           for where, n in sorted(self.followers.items()))
        return line + (f"; {follow}" if follow else "")


@dataclass
class Renames:
    """The run renames of a report: per job (by its index in report.jobs), and per changed
    object of any job, the indices of the fields that only follow a rename."""

    runs: dict[int, RenamedRun] = field(default_factory=dict)
    following: dict[tuple[int, int], set[int]] = field(default_factory=dict)  # (job, object) -> field indices

    def unpaired(self, index: int, job: JobDiff) -> tuple[list[Manifest], list[Manifest]]:
        """The job's added and removed objects that no rename pairs."""
        run = self.runs.get(index)
        if run is None:
            return job.added, job.removed
        paired_new = {id(new) for _, new in run.pairs}
        paired_old = {id(old) for old, _ in run.pairs}
        return [m for m in job.added if id(m) not in paired_new], [m for m in job.removed if id(m) not in paired_old]

    def changes(self, index: int, job: JobDiff) -> list[ObjectChange]:
        """The job's changed objects with the fields that only follow a rename left out (an
        object left with none is left out), then the paired objects whose fields differ."""
        out = []
        for o, change in enumerate(job.changed):
            skip = self.following.get((index, o), set())
            fields = [f for i, f in enumerate(change.fields) if i not in skip]
            if fields:
                out.append(ObjectChange(change.key, change.path, fields))
        run = self.runs.get(index)
        return out + (run.changed if run is not None else [])


def renames(jobs: list[JobDiff]) -> Renames:
    """The run renames of the jobs, and the fields of changed objects that follow them."""
    found = Renames()
    for index, job in enumerate(jobs):
        run = _renamed_run(job)
        if run is not None:
            found.runs[index] = run
    by_environment: dict[str, list[RenamedRun]] = {}
    for index, run in found.runs.items():
        by_environment.setdefault(jobs[index].environment, []).append(run)
    for index, job in enumerate(jobs):
        runs = by_environment.get(job.environment, [])
        for o, change in enumerate(job.changed):
            for i, one in enumerate(change.fields):
                run = _followed(one, runs)
                if run is not None:
                    found.following.setdefault((index, o), set()).add(i)
                    run.followers[str(change.key)] = run.followers.get(str(change.key), 0) + 1
    return found


def _followed(change: FieldChange, runs: list[RenamedRun]) -> RenamedRun | None:
    """The run whose rename alone makes this field's change, if one does."""
    if change.old is ABSENT or change.new is ABSENT or not runs:
        return None
    text = str(change.old)
    for run in runs:
        if run.rename.old in text and equal(run.rename.applied(change.old), change.new):
            return run
    return None


def _renamed_run(job: JobDiff) -> RenamedRun | None:
    """The job's run rename: the rename most pairs of a removed and an added object of one
    kind and namespace share, and the objects it pairs."""
    votes: Counter[Rename] = Counter()
    for old in job.removed:
        for new in job.added:
            if _same_place(old, new):
                rename = _rename_of(old.key.name, new.key.name)
                if rename is not None:
                    votes[rename] += 1
    if not votes:
        return None
    rename = min(votes, key=lambda r: (-votes[r], r.old, r.new))
    run = RenamedRun(rename)
    added = {(m.key.kind, m.key.api_version, m.key.namespace, m.key.name): m for m in job.added}
    for old in job.removed:
        new = added.pop((old.key.kind, old.key.api_version, old.key.namespace, rename.applied(old.key.name)), None)
        if new is None or _rename_of(old.key.name, new.key.name) != rename:
            continue
        run.pairs.append((old, new))
        fields = diff_values(rename.applied(old.data), new.data)
        if fields:
            run.changed.append(ObjectChange(new.key, new.path, fields))
    return run if len(run.pairs) >= MIN_PAIRS else None


def _same_place(old: Manifest, new: Manifest) -> bool:
    return (old.key.kind, old.key.api_version, old.key.namespace) == (new.key.kind, new.key.api_version,
                                                                      new.key.namespace)


def _rename_of(old: str, new: str) -> Rename | None:
    """Two names alike but for one `-`-separated segment: the names up to that segment."""
    a, b = old.split("-"), new.split("-")
    if len(a) != len(b):
        return None
    differ = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    if len(differ) != 1:
        return None
    i = differ[0] + 1
    return Rename("-".join(a[:i]), "-".join(b[:i]))
