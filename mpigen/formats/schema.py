"""The published JSON Schema of a format (`mpigen schema`)."""

from __future__ import annotations

from typing import Any

from mpigen.formats.blueprint import Blueprint


def json_schema(model=None) -> dict:
    """The published JSON Schema of a model (the blueprint by default; also the Overlay
    and Config files)."""
    schema = (model or Blueprint).model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    _close_key_patterns(schema)
    return schema


def _close_key_patterns(node: Any) -> None:
    """pydantic writes constrained mapping keys as patternProperties, which lets any other
    key through; say instead that every key must match (propertyNames), as the model does."""
    if isinstance(node, dict):
        patterns = node.get("patternProperties")
        if isinstance(patterns, dict) and len(patterns) == 1 and "additionalProperties" not in node:
            (pattern, values), = patterns.items()
            del node["patternProperties"]
            node["propertyNames"] = {**node.get("propertyNames", {}), "pattern": pattern}
            node["additionalProperties"] = values
        for value in node.values():
            _close_key_patterns(value)
    elif isinstance(node, list):
        for item in node:
            _close_key_patterns(item)
