"""JSON-like data (what YAML documents and Kubernetes objects are made of): its deep copy."""

from __future__ import annotations

_NESTED = frozenset({dict, list})  # what copy_data copies; anything else is kept as it is


def copy_data(value):
    """A deep copy of JSON-like data (dicts, lists, scalars): what copy.deepcopy does for
    it, several times faster, and rendering copies every pod template. A scalar (most
    entries) is kept where it stands, without a call."""
    if type(value) is dict:
        return {key: copy_data(item) if type(item) in _NESTED else item for key, item in value.items()}
    if type(value) is list:
        return [copy_data(item) if type(item) in _NESTED else item for item in value]
    return value
