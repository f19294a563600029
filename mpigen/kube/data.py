"""JSON-like data (what YAML documents and Kubernetes objects are made of): its deep copy."""

from __future__ import annotations


def copy_data(value):
    """A deep copy of JSON-like data (dicts, lists, scalars): what copy.deepcopy does for
    it, several times faster, and rendering copies every pod template."""
    if type(value) is dict:
        return {key: copy_data(item) for key, item in value.items()}
    if type(value) is list:
        return [copy_data(item) for item in value]
    return value
