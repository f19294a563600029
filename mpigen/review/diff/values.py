"""Reading values out of Kubernetes objects the way the API server compares them: a field
one side does not have (ABSENT, since None is a real YAML value), deep equality that tells
true from 1, and whole numbers written as 8 or "8"."""

from __future__ import annotations

import json
from typing import Any

from mpigen.load.document import value_at


class _Absent:
    """The value of a field that one side does not have (None is a real YAML value)."""

    def __repr__(self) -> str:
        return "(absent)"


ABSENT = _Absent()


def get(data: Any, *loc: str) -> Any:
    return value_at(data, loc, ABSENT)


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
