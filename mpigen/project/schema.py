"""schema: the JSON Schema of each file format users write."""

from __future__ import annotations

import json

from mpigen.formats.blueprint import Blueprint
from mpigen.formats.schema import json_schema
from mpigen.formats.config import ConfigModel
from mpigen.formats.overlay import OverlayModel

FORMATS = {"MPIJobBlueprint": Blueprint, "Overlay": OverlayModel, "Config": ConfigModel}  # by kind


def schema(kind: str) -> str:
    """The JSON Schema of the format of `kind` (a key of FORMATS), as indented JSON text."""
    return json.dumps(json_schema(FORMATS[kind]), indent=2, ensure_ascii=False) + "\n"
