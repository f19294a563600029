"""Where a blueprint writes an immutable change it makes (a label Kueue keeps, from
spec.scheduling.queue): the field's line in the blueprint file the object was rendered from
(its `# Source:` comment), as the new side holds it, or as the old side did when the new one
no longer has the field. Between two revisions only: a folder holds no blueprints."""

from __future__ import annotations

import dataclasses

from mpigen.errors import Mark
from mpigen.kube.values import ABSENT
from mpigen.load.document import value_at
from mpigen.review.diff.overridden import Tree, blueprint_documents
from mpigen.review.diff.report import Report


def locate(report: Report, old: Tree, new: Tree) -> None:
    """Each finding a blueprint field makes, with the line of that field (in place)."""
    for job in report.jobs:
        for index, finding in enumerate(job.immutable):
            if finding.blueprint is None or not finding.loc:
                continue
            mark = _line(new, finding.blueprint.path, job.job, finding.loc) \
                or _line(old, finding.blueprint.path, job.job, finding.loc)
            if mark is not None:
                job.immutable[index] = dataclasses.replace(finding, blueprint=mark)


def _line(tree: Tree, path: str, name: str, loc: tuple[str, ...]) -> Mark | None:
    """Where blueprint `name` of the file writes loc, or None when the side has no such value."""
    text = tree.texts([path]).get(path)
    doc = blueprint_documents(text, path).get(name) if text is not None else None
    if doc is None or value_at(doc.data, loc, ABSENT) is ABSENT:
        return None
    return tree.shown(doc.value_mark(loc))
