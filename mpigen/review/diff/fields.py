"""The field-by-field difference of two objects: mappings key by key, lists of named items
(containers, env, volumes) by name with their order, other lists item by item."""

from __future__ import annotations

import json
import re
from typing import Any

from mpigen.kube.values import ABSENT, equal
from mpigen.review.diff.model import FieldChange


def diff_values(old: Any, new: Any, path: str = "") -> list[FieldChange]:
    """The leaf changes between two values, mappings key by key and lists item by item."""
    if equal(old, new):
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        changes = []
        for key in sorted(old.keys() | new.keys()):
            changes += diff_values(old.get(key, ABSENT), new.get(key, ABSENT), key_path(path, key))
        return changes
    if isinstance(old, list) and isinstance(new, list):
        return _diff_named(old, new, path) if _named(old) and _named(new) else _diff_indexed(old, new, path)
    return [FieldChange(path, old, new)]


def _named(items: list) -> bool:
    """Lists such as containers, env and volumes: mappings with unique names, matched by name."""
    names = [item.get("name") if isinstance(item, dict) else None for item in items]
    return all(isinstance(name, str) for name in names) and len(set(names)) == len(names)


def _diff_named(old: list, new: list, path: str) -> list[FieldChange]:
    old_by, new_by = {item["name"]: item for item in old}, {item["name"]: item for item in new}
    changes = []
    for name in sorted(old_by.keys() | new_by.keys()):
        changes += diff_values(old_by.get(name, ABSENT), new_by.get(name, ABSENT), f"{path}[{name}]")
    old_order = [name for name in old_by if name in new_by]
    new_order = [name for name in new_by if name in old_by]
    if old_order != new_order:  # order matters for env ($(VAR) expansion) and containers
        changes.append(FieldChange(path, list(old_by), list(new_by), "reorder"))
    return changes


def _diff_indexed(old: list, new: list, path: str) -> list[FieldChange]:
    changes = []
    for index in range(max(len(old), len(new))):
        changes += diff_values(old[index] if index < len(old) else ABSENT,
                               new[index] if index < len(new) else ABSENT, f"{path}[{index}]")
    return changes


def key_path(path: str, key: str) -> str:
    """spec.template, or labels["mpigen.dev/job"] for keys that are not plain words."""
    if re.fullmatch(r"[A-Za-z0-9_-]+", key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key)}]"
