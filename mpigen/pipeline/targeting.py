"""Which target renders each job of an environment: the target rules (`targets` of its overlay,
of the overlay's bases and of mpigen.yaml, in the order mpigen.project.options puts them), the
first that selects the job giving its target, else the environment's own; and the rules that
selected no job, as a patch that selects no blueprint is reported (mpigen.overlay.apply.Usage)."""

from __future__ import annotations

from dataclasses import dataclass

from mpigen.errors import Diagnostic, Mark, warning
from mpigen.formats.overlay import Target
from mpigen.overlay.apply import nearest_jobs
from mpigen.overlay.selection import selects
from mpigen.pipeline.results import UsedPatch

RULES_KEY = "targets"  # the key of the rules in an overlay and in mpigen.yaml


@dataclass(frozen=True)
class Rule:
    """One target rule as written: the jobs it selects, their target, and where it is
    (its file, its index in that file's `targets`, the position of the item)."""

    jobs: Target
    target: str
    path: str
    index: int
    mark: Mark
    reported: bool = True  # a rule that selects no job is warned of (mpigen.yaml's: only when its blueprints are read)

    @property
    def key(self) -> UsedPatch:
        """How the run records that the rule selected a job (beside the patches it used)."""
        return (self.path, RULES_KEY, self.index)

    def selects(self, name: object, labels: object) -> bool:
        return selects(self.jobs, name, labels)


def chosen_rule(rules: tuple[Rule, ...], name: object, labels: object, used: set[UsedPatch]) -> Rule | None:
    """The first rule that selects the job of this metadata.name and labels, None when none
    does; every rule that selects it is recorded in `used` (a rule after the first that selects
    it is used too: it is not wrong as written, only preceded)."""
    first = None
    for rule in rules:
        if rule.selects(name, labels):
            used.add(rule.key)
            first = first or rule
    return first


def unused_rules(rules: list[Rule], used: set[UsedPatch], jobs: dict[str, str]) -> list[Diagnostic]:
    """A warning for each rule that selected no job, naming the jobs nearest to what it selects
    (`jobs`: each job's name -> the file it is in); each rule once, whatever the environments
    it is a rule of."""
    out, seen = [], set()
    for rule in rules:
        if rule.key in used or rule.key in seen or not rule.reported:
            continue
        seen.add(rule.key)
        out.append(warning(rule.mark, f"{RULES_KEY}[{rule.index}] selects no job, so it gives no job the target "
                                      f"{rule.target}; {nearest_jobs(rule.jobs, jobs, 'jobs')}"))
    return out
