"""Reading values out of Kubernetes objects the way the API server compares them: a field
one side does not have (ABSENT, since None is a real YAML value), deep equality that tells
true from 1, whole numbers written as 8 or "8", and lists keyed by name."""

from __future__ import annotations

import json
from typing import Any


class _Absent:
    """The value of a field that one side does not have (None is a real YAML value)."""

    def __repr__(self) -> str:
        return "(absent)"


ABSENT = _Absent()


def get(data: Any, *loc: str) -> Any:
    """The value at loc (keys) in data, or ABSENT when the path does not lead anywhere."""
    node = data
    for part in loc:
        if not isinstance(node, dict) or part not in node:
            return ABSENT
        node = node[part]
    return node


def mapping(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def equal(a: Any, b: Any) -> bool:
    """Deep equality that, like Kubernetes, tells true from 1 and 1.0 from 1."""
    if a is ABSENT or b is ABSENT:
        return a is b
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def whole_number(value: Any, default: int) -> int:
    """A whole number written as 8 or "8"; anything else (Kubernetes would refuse it) is default."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return default


def by_name(items: Any) -> dict | None:
    """The entries of a list keyed by name (listMapKey=name), in order; None when it is not a
    list of uniquely named mappings."""
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        return None
    named = {item.get("name"): item for item in items}
    return named if len(named) == len(items) and all(isinstance(name, str) for name in named) else None
