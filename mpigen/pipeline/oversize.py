"""Where a render too large for the cluster is reported: at the blueprint field that makes it
so, the one the object's kind names (spec.workers, for a hostfile), else the largest of the
blueprint's fields the objects carry (spec.env, spec.podTemplatePatch, metadata.annotations,
...) by the size of its JSON; path-level where the blueprint's file writes none of them (an
overlay does)."""

from __future__ import annotations

import json

from mpigen.errors import Diagnostic, Mark, error
from mpigen.formats.blueprint import Blueprint
from mpigen.load.document import Document
from mpigen.render.refusals import TooLarge

# The fields whose marks a render keeps, besides every field of spec: those the objects carry.
METADATA_FIELDS = ("labels", "annotations")


def size_marks(doc: Document) -> dict[str, Mark]:
    """Where each field a size error may name is written: spec.workers's value, and the key of
    each field of spec and of metadata's labels and annotations that the document writes."""
    marks = {"spec.workers": doc.value_mark(("spec", "workers"))}
    for section, fields in (("spec", doc.get(("spec",))), ("metadata", METADATA_FIELDS)):
        for name in fields if isinstance(fields, (dict, tuple)) else ():
            if doc.get((section, name)) is not None:
                marks.setdefault(f"{section}.{name}", doc.key_mark((section, name)))
    return marks


def size_errors(problems: list[TooLarge], blueprint: Blueprint, marks: dict[str, Mark], path: str) -> list[Diagnostic]:
    """The problems at the fields that make them so (a problem that names none at the largest),
    one error a field and limit: the first object's problem, and how many more objects have one."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for problem in problems:
        grouped.setdefault((problem.field, problem.limit), []).append(problem.problem)
    out = []
    for (field, _), texts in grouped.items():
        text = texts[0] + (f" (and {len(texts) - 1} more of the job's objects)" if len(texts) > 1 else "")
        if not field:
            field, size = _largest(blueprint, marks)
            text += f"; {field} is the largest part of the blueprint ({size:,} bytes of JSON): make it smaller"
        out.append(error(marks.get(field, Mark(path)), f"{field}: {text}"))
    return out


def _largest(blueprint: Blueprint, marks: dict[str, Mark]) -> tuple[str, int]:
    """The field written in the blueprint whose value's JSON is largest, and that size."""
    data = blueprint.model_dump(mode="json", by_alias=True)
    sizes = {field: len(json.dumps(data[section].get(name), separators=(",", ":"), ensure_ascii=False).encode())
             for field in marks for section, _, name in [field.partition(".")]}
    return max(sizes.items(), key=lambda item: item[1], default=("spec", 0))
