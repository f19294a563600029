"""The one pydantic base model of every file format: unknown keys, coerced types and changes are refused."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Model(BaseModel):
    """A model of what a user writes: no key it does not define (a misspelt key is an error,
    never ignored), no type coercion (\"4\" is not 4), and immutable once read."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
