"""The checks across the jobs of a run, made as each file's result comes: a job defined twice
in one namespace, two jobs that render one object, a job that writes an object another says
the cluster has, and, once every file is in, the problems of the overlay patches as written
and the patches that selected no blueprint, and the target rules that selected no job."""

from __future__ import annotations

from dataclasses import dataclass, field

from mpigen.emit.rendered import RenderedObject
from mpigen.errors import Diagnostic, Mark, error
from mpigen.overlay.apply import Usage
from mpigen.overlay.resolve import Overlay
from mpigen.pipeline.results import DocResult, Job, UsedPatch
from mpigen.pipeline.targeting import Rule, unused_rules
from mpigen.render.targets import RESERVED
from mpigen.render.watched import Watched
from mpigen.validate.written_patches import written_patch_problems


@dataclass
class Gathered:
    """What one environment has gathered so far: its jobs (where each is named, for
    duplicates), its objects, the job that renders each object (for collisions), and what
    the jobs' alerts watch, and where a field of the first job names an object (Named)."""

    seen: dict[Job, Mark | None] = field(default_factory=dict)
    objects: list[RenderedObject] = field(default_factory=list)
    owners: dict[tuple, Mark | None] = field(default_factory=dict)  # sort key -> the job's name mark
    digests: dict[tuple, bytes] = field(default_factory=dict)  # sort key -> the sha256 of the first job's text of it
    expected: dict[tuple, Mark] = field(default_factory=dict)  # sort key -> where a job says the cluster has it
    watched: list[Watched] = field(default_factory=list)  # what each job's alerts watch (a monitored environment)
    named_at: dict[tuple, Mark] = field(default_factory=dict)  # sort key -> where the first job's field names it

    def add(self, results: list[DocResult], diagnostics: list[Diagnostic]) -> None:
        """Take the results of one file's documents in this environment, their problems and
        those of the jobs they clash with put in `diagnostics`."""
        for item in results:
            diagnostics.extend(item.diagnostics)
            if item.job is None:
                continue
            if item.job in self.seen:
                diagnostics.append(_duplicate(item.name_mark, self.seen[item.job], item.job))
                continue
            self.seen[item.job] = item.name_mark
            if item.watched is not None:
                self.watched.append(item.watched)
            diagnostics.extend(self._expected(item))
            diagnostics.extend(self._objects(item))

    def _objects(self, item: DocResult) -> list[Diagnostic]:
        """The job's objects gathered, and an error for each that another job renders too
        (unless both render the same shared object): at the field that names it where one of
        the job's fields does (Named), with advice to change that field; else at the job's name."""
        out, named = [], {key: (where, mark) for key, where, mark in item.named}
        for obj in item.objects:
            owner = self.owners.setdefault(obj.sort_key, item.name_mark)
            if owner is item.name_mark:
                self.objects.append(obj)
                self.digests[obj.sort_key] = obj.digest
                if obj.sort_key in named:
                    self.named_at[obj.sort_key] = named[obj.sort_key][1]
            elif not obj.shared or self.digests[obj.sort_key] != obj.digest:
                other = " with other content" if obj.shared else ""
                where, mark = named.get(obj.sort_key, ("", item.name_mark))
                fix = f"give one of them another {where}" if where else "rename one of the jobs"
                out.append(error(mark, f"job {item.job[0]}/{item.job[1]} renders {obj.path}, as the job at "
                                       f"{self.named_at.get(obj.sort_key, owner)} does{other}; {fix}"))
        return out

    def _expected(self, item: DocResult) -> list[Diagnostic]:
        """A job that writes an object which another says the cluster has, or the other way
        round: mpigen would apply its own over the cluster's, and prune it with its job."""
        out = []
        for key, what, mark in item.expects:
            self.expected.setdefault(key, mark)
            if key in self.owners:
                out.append(error(mark, f"job {item.job[0]}/{item.job[1]} says the cluster has {what} (a runtime "
                                       f"named without emit), which the job at {self.owners[key]} writes; "
                                       f"{_WRITTEN_OR_HAD}"))
        for obj in item.objects:
            if obj.sort_key in self.expected and obj.sort_key not in self.owners:
                out.append(error(item.name_mark, f"job {item.job[0]}/{item.job[1]} writes {obj.path}, the runtime "
                                                 f"the job at {self.expected[obj.sort_key]} says the cluster has; "
                                                 f"{_WRITTEN_OR_HAD}"))
        return out


# Why a runtime cannot be both the cluster's and one that mpigen writes, and the way out.
_WRITTEN_OR_HAD = ("mpigen would apply its own over the cluster's, and delete it with the job that writes it; give "
                   "one of them another spec.runtime.name, or have both write it (spec.runtime.emit)")


def overlay_problems(overlays: list[Overlay], diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The problems of the overlays' patches as written that no blueprint they were applied to
    reported already (as `MESSAGE (applied to BLUEPRINT)`, at the same place)."""
    if not overlays:
        return []
    shown = {(d.mark, d.message.rsplit(" (applied to ", 1)[0]) for d in diagnostics}
    return [d for d in written_patch_problems(overlays, RESERVED) if (d.mark, d.message) not in shown]


def unused_patches(overlays: list[Overlay], used: set[UsedPatch], gathered: list[Gathered],
                   rules: list[Rule] | None = None) -> list[Diagnostic]:
    """A warning for each patch and image rewrite of the overlays that selected no blueprint, and
    for each target rule that selected no job (mpigen.pipeline.targeting), naming the jobs
    nearest to what a patch's target or a rule's jobs name."""
    if not overlays and not rules:
        return []
    jobs = {job[1]: mark.path for here in gathered for job, mark in here.seen.items() if mark is not None}
    return Usage(used).unused(overlays, jobs) + unused_rules(rules or [], used, jobs)


def _duplicate(mark: Mark | None, first: Mark | None, job: Job) -> Diagnostic:
    return error(mark, f"job {job[0]}/{job[1]} is already defined at {first}; job names must be unique per namespace")
