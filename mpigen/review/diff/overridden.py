"""Blueprint edits an overlay makes moot: `workers: 4 -> 8` in a blueprint changes nothing in
prod when prod's overlay sets 16. The diff of the rendered objects cannot show such an edit
(nothing changes there), so it is said apart: per environment, each field the edit changes
whose value, after the overlay, is the same on both sides, with the overlay line that sets it.

What each side was rendered from is read from the new render's `# Source:` comments (the
blueprint file and the overlay of each environment); the blueprint is read as each side
holds it, and the new side's overlay (with its bases) is applied to both, as a render does.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Protocol

from mpigen.errors import InputError, Mark
from mpigen.formats.blueprint import BLUEPRINT_KIND
from mpigen.kube.values import ABSENT, equal
from mpigen.load.document import Document, Loc, value_at
from mpigen.load.parser import parse
from mpigen.overlay.apply import Usage, apply
from mpigen.overlay.resolve import Overlay
from mpigen.review.diff.manifests import rendered_from


class Tree(Protocol):
    """The files of one side (mpigen.review.sources)."""

    def texts(self, paths: list[str]) -> dict[str, str]: ...
    def overlay(self, path: str) -> Overlay | None: ...
    def shown(self, mark: Mark) -> Mark: ...


@dataclass(frozen=True)
class Overridden:
    """A field a blueprint edit changes, that an environment's overlay sets either way."""

    environment: str
    blueprint: str  # the blueprint file
    field: str      # as written in the blueprint: `workers` for spec.workers, `metadata.labels.team`
    old: Any
    new: Any
    overlay: Mark   # where the overlay writes the value that wins
    value: Any


def overridden(new_files: dict[str, str], old: Tree, new: Tree) -> list[Overridden]:
    """Every blueprint edit between the two sides that an overlay of the new render makes moot."""
    environments: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for environment, blueprint, overlay in sorted(rendered_from(new_files)):
        environments[blueprint].append((environment, overlay))
    old_texts, new_texts = old.texts(sorted(environments)), new.texts(sorted(environments))
    overlays: dict[str, Overlay | None] = {}
    notes: list[Overridden] = []
    for blueprint, used in sorted(environments.items()):
        before, after = old_texts.get(blueprint), new_texts.get(blueprint)
        if before is None or after is None or before == after:
            continue
        old_docs, new_docs = blueprint_documents(before, blueprint), blueprint_documents(after, blueprint)
        for name in sorted(old_docs.keys() & new_docs.keys()):
            edits = _edits(old_docs[name].data, new_docs[name].data, ())
            for environment, path in used if edits else ():
                if path not in overlays:
                    overlays[path] = new.overlay(path)
                if (overlay := overlays[path]) is not None:
                    notes += _moot(environment, overlay, old_docs[name], new_docs[name], edits, new)
    return notes


def blueprint_documents(text: str, path: str) -> dict[str, Document]:
    """The blueprint documents of a file by name ({} when it is not valid YAML)."""
    try:
        docs = parse(text, path)
    except InputError:
        return {}
    out = {}
    for doc in docs:
        data = doc.data if isinstance(doc.data, dict) else {}
        name = value_at(data, ("metadata", "name"))
        if data.get("kind") == BLUEPRINT_KIND and isinstance(name, str) and not doc.problems:
            out.setdefault(name, doc)
    return out


def _edits(old: Any, new: Any, loc: Loc) -> list[tuple[Loc, Any, Any]]:
    """(location, old, new) of each leaf that differs; lists of another length as a whole."""
    if equal(old, new):
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        return [edit for key in sorted(old.keys() | new.keys(), key=str)
                for edit in _edits(old.get(key, ABSENT), new.get(key, ABSENT), loc + (key,))]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [edit for index, pair in enumerate(zip(old, new)) for edit in _edits(*pair, loc + (index,))]
    return [(loc, old, new)]


def _moot(environment: str, overlay: Overlay, old_doc: Document, new_doc: Document,
          edits: list[tuple[Loc, Any, Any]], new: Tree) -> list[Overridden]:
    """The edits whose value this overlay sets the same way on both sides."""
    before, after = apply(overlay, old_doc, Usage()), apply(overlay, new_doc, Usage())
    notes = []
    for loc, old_value, new_value in edits:
        value = value_at(after.data, loc, ABSENT)
        mark = after.value_mark(loc)
        if mark.path != new_doc.path and equal(value_at(before.data, loc, ABSENT), value):
            notes.append(Overridden(environment, new_doc.path, _field(loc), old_value, new_value, new.shown(mark),
                                    value))
    return notes


def _field(loc: Loc) -> str:
    """spec.workers as the blueprint's `workers`; other fields by their whole path."""
    parts = loc[1:] if loc[:1] == ("spec",) and len(loc) > 1 else loc
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z0-9_-]+", str(part)):
            out += f".{part}" if out else str(part)
        else:
            out += f"[{json.dumps(str(part))}]"
    return out
