"""The one pydantic base of mpigen's models: unknown keys refused, no type coercion, immutable."""
from __future__ import annotations
from pydantic import BaseModel, ConfigDict
class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
