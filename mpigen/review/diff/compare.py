"""compare(): what a change to the rendered manifests will do on the clusters.

`mpigen diff` runs on pull requests. A line diff of the output folder shows reviewers text;
this shows them Kubernetes objects: which objects are added, removed or changed (matched
by environment, apiVersion, kind, namespace and name, never by file), the field paths that
change, the GPUs and MPI slots a job asks for before and after, whether the change starts,
ends or disturbs a run, which jobs a run going on restarts (mpigen.review.diff.restarts), and
every change the API server refuses to apply in place.

compare() is pure: it takes both renders as {relative path: text} and returns a Report.
"""

from __future__ import annotations

from mpigen.errors import Diagnostic, InputError
from mpigen.kube.values import equal
from mpigen.render.targets import kind_facts
from mpigen.review.diff.capacity import totals
from mpigen.review.diff.fields import diff_values
from mpigen.review.diff.immutable import immutable_changes
from mpigen.review.diff.manifests import blueprint_of, job_of, read_render
from mpigen.review.diff.model import JobDiff, Manifest, ObjectChange, ObjectKey
from mpigen.review.diff.report import Report
from mpigen.review.diff.restarts import restarts


def compare(old_files: dict[str, str], new_files: dict[str, str],
            old_label: str = "old", new_label: str = "new") -> Report:
    """The difference between two renders, grouped by job. Raises InputError listing every
    file problem of both sides, so one run reports them all."""
    problems: list[Diagnostic] = []
    old = read_render(old_files, old_label, problems)
    new = read_render(new_files, new_label, problems)
    if problems:
        raise InputError(problems)
    jobs: dict[tuple, JobDiff] = {}
    for key in sorted(old.keys() | new.keys()):
        before, after = old.get(key), new.get(key)
        if before is not None and after is not None and equal(before.data, after.data):
            continue
        group = job_of(after or before)
        blueprint = blueprint_of(new_files, after) if after is not None else ""
        _record(jobs.setdefault(group, JobDiff(*group)), key, before, after, blueprint)
    old_totals, new_totals = totals(old.values()), totals(new.values())
    for group, job in jobs.items():
        before, after = old_totals.get(group, (0, 0, 0)), new_totals.get(group, (0, 0, 0))
        job.gpus, job.slots, job.workers = zip(before, after)
    found = [jobs[group] for group in sorted(jobs)]
    return Report(old_label, new_label, found, restarts=restarts(found))


def _record(job: JobDiff, key: ObjectKey, before: Manifest | None, after: Manifest | None, blueprint: str) -> None:
    """Add one differing object to its job, with what it means for a run (`blueprint`: the
    file the new object was rendered from)."""
    facts = kind_facts(key.api_version, key.kind)
    run = facts is not None and facts.run
    if before is None:
        job.added.append(after)
        job.new_run = job.new_run or run
    elif after is None:
        job.removed.append(before)
        job.ends_run = job.ends_run or run
    else:
        job.changed.append(ObjectChange(key, after.path, diff_values(before.data, after.data)))
        job.immutable += immutable_changes(key, before.data, after.data, blueprint)
        if facts is not None and facts.restarts_pods is not None and facts.restarts_pods(before.data, after.data):
            job.restarts_workers = True
