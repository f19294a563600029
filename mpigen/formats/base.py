"""The one pydantic base model of every file format: unknown keys, coerced types and changes are refused."""

from pydantic import BaseModel, ConfigDict

# No module of models says `from __future__ import annotations`: pydantic would then compile
# and evaluate each field's annotation, a string, every time a model is built (at every start:
# some 20 million instructions, 1.4% of a one-blueprint render), where the module's own
# bytecode evaluates them for nothing (tests/unit/test_code_shape.py keeps it so).


class Model(BaseModel):
    """A model of what a user writes: no key it does not define (a misspelt key is an error,
    never ignored), no type coercion (\"4\" is not 4), and immutable once read."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
