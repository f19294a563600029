"""A YAML document read with positions: its plain data, and the mark of every key and value in it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mpigen.errors import Diagnostic, Mark

Loc = tuple  # a path into a document: ("spec", "datasets", 0, "name")


_ABSENT = object()


def value_at(data: Any, loc: Loc, default=None):
    """The value at loc (keys, and list indexes) in data, or default when the path does not
    lead anywhere."""
    node = data
    for part in loc:
        if isinstance(node, dict):
            node = node.get(part, _ABSENT)
            if node is _ABSENT:
                return default
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return default
    return node


def field_path(loc: Loc) -> str:
    """A location as users write it in messages: spec.datasets[0].name."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


@dataclass
class Document:
    """One YAML document: plain data plus the marks of every key and value in it."""

    path: str
    data: Any
    start: Mark
    key_marks: dict[Loc, Mark] = field(default_factory=dict)
    value_marks: dict[Loc, Mark] = field(default_factory=dict)
    # Problems found while reading (duplicate or non-string keys, tags), and the locations
    # they cover, so that later stages do not report the same place twice.
    problems: list[Diagnostic] = field(default_factory=list)
    reported: set[Loc] = field(default_factory=set)

    def get(self, loc: Loc, default=None):
        return value_at(self.data, loc, default)

    def covered(self, loc: Loc) -> bool:
        return any(tuple(loc[:n]) in self.reported for n in range(len(loc) + 1))

    def value_mark(self, loc: Loc) -> Mark:
        """Where the value at loc is written, or the nearest enclosing value."""
        return self._nearest(self.value_marks, loc)

    def key_mark(self, loc: Loc) -> Mark:
        """Where the key of loc is written (its list item for list entries)."""
        return self._nearest(self.key_marks, loc)

    def _nearest(self, marks: dict[Loc, Mark], loc: Loc) -> Mark:
        for end in range(len(loc), 0, -1):
            mark = marks.get(tuple(loc[:end]))
            if mark is not None:
                return mark
        return self.start
