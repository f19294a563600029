"""A YAML document read into a pydantic model of one of the formats, with every field error
as a positioned diagnostic a user can act on (the overlay, config and blueprint files
all go through it)."""

from __future__ import annotations

import re
from typing import get_args

from pydantic import BaseModel, ValidationError

from mpigen.errors import Diagnostic, close_matches, did_you_mean, error, meant
from mpigen.formats.blueprint import Blueprint
from mpigen.formats.patterns import PATTERN_HELP, QUANTITY
from mpigen.kube import quantity
from mpigen.load.document import Document, Loc, field_path
from mpigen.load.go_yaml_scalars import FLOAT, INT, resolve
from mpigen.load.kubernetes_spellings import spelled_field, unknown_key_hint, wrong_type_hint


def validate_model(doc: Document, model, report=None):
    """The document's data as an instance of the pydantic model (None when invalid), the
    positioned diagnostics of its field errors (not those at places loading already
    reported; only those `report(err)` accepts, when given), and the locations that had
    errors."""
    try:
        return model.model_validate(doc.data), [], set()
    except ValidationError as exc:
        diagnostics, bad = [], set()
        errors = exc.errors(include_url=False)
        spelled = _spelled_fields(errors) if model is Blueprint else set()
        for err in errors:
            loc = tuple(p for p in err["loc"] if p != "[key]")
            bad.add(loc)
            if err["type"] == "missing" and _where(loc) in spelled:
                continue  # `replicas` written for `workers`: its error says so
            if not doc.covered(loc) and (report is None or report(err)):
                diagnostics.append(field_diagnostic(doc, err, model))
        return None, diagnostics, bad


def _spelled_fields(errors: list[dict]) -> set[str]:
    """The blueprint fields the unknown keys written in Kubernetes' spelling stand for."""
    fields = set()
    for err in errors:
        loc = tuple(err["loc"])
        if err["type"] == "extra_forbidden" and loc:
            field = spelled_field(_where(loc[:-1]), str(loc[-1]))
            if field is not None:
                fields.add(field)
    return fields


def _field(loc: Loc) -> str:
    return field_path(loc) or "document"


def _describe(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"integer {value}"
    if isinstance(value, float):
        return f"number {value}"
    if isinstance(value, str):
        return f"string {_short(value)!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _short(value: str) -> str:
    return value if len(value) <= 80 else value[:77] + "..."


_EXPECTED = {
    "int_type": "an integer", "string_type": "a string", "bool_type": "true or false",
    "list_type": "a list", "dict_type": "a mapping", "model_type": "a mapping",
    "model_attributes_type": "a mapping", "float_type": "a number",
}


def field_diagnostic(doc: Document, err: dict, model=None) -> Diagnostic:
    """A pydantic error as a positioned message a user can act on; `model` (default
    Blueprint) is the model that was validated, for 'did you mean'."""
    kind = err["type"]
    loc = tuple(err["loc"])
    value = err.get("input")
    ctx = err.get("ctx") or {}
    if loc and loc[-1] == "[key]":  # a bad mapping key (label key, env name, resource name)
        loc = loc[:-1]
        field = _field(loc[:-1])
        mark = doc.key_mark(loc)
        pattern = ctx.get("pattern")
        if kind == "string_pattern_mismatch" and pattern in PATTERN_HELP:
            return error(mark, f"{field}: key {_short(str(loc[-1]))!r} is not {PATTERN_HELP[pattern]}")
        return error(mark, f"{field}: key {_short(str(loc[-1]))!r}: {err['msg']}")
    field = _field(loc)
    if kind == "missing":
        parent = loc[:-1]
        # At the parent's key, unless an overlay removed the key: then at the overlay's null.
        mark = doc.key_mark(loc) if loc else doc.start
        return error(mark, f"{_field(parent)}: required key {loc[-1]!r} is missing")
    if kind == "extra_forbidden":
        parent_loc = loc[:-1]
        allowed = _allowed_keys(parent_loc, model or Blueprint)
        hint = close_matches(str(loc[-1]), allowed)
        also = meant(repr(hint[0])) if hint else (f"; allowed keys: {', '.join(allowed)}" if allowed else "")
        if model in (None, Blueprint):  # a Kubernetes habit: the blueprint field that says it
            also = unknown_key_hint(_where(parent_loc), str(loc[-1])) or also
        return error(doc.key_mark(loc), f"{_field(parent_loc)}: unknown key {loc[-1]!r}{also}")
    mark = doc.value_mark(loc)
    if kind in _EXPECTED:
        hint = ""
        if kind == "string_type" and isinstance(value, (bool, int, float)):
            hint = "; YAML reads this unquoted value as a non-string: put it in quotes"
        elif kind in ("int_type", "float_type") and isinstance(value, str):
            hint = _number_hint(value, (INT,) if kind == "int_type" else (INT, FLOAT))
        elif kind == "list_type" and isinstance(value, str):
            hint = "; write it as a YAML list, e.g. [python, train.py]"
        elif model in (None, Blueprint):
            hint = wrong_type_hint(_where(loc), value) or ""
        return error(mark, f"{field}: expected {_EXPECTED[kind]}, got {_describe(value)}{hint}")
    if kind == "literal_error":
        expected = str(ctx.get("expected", ""))
        near = did_you_mean(value, re.findall(r"'([^']*)'", expected)) if isinstance(value, str) else ""
        return error(mark, f"{field}: {_describe(value)} is not one of {expected}{near}")
    if kind == "string_pattern_mismatch":
        return error(mark, f"{field}: {_describe(value)} is not {_pattern_help(ctx.get('pattern'), value)}")
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        sign = {"greater_than_equal": ">=", "greater_than": ">", "less_than_equal": "<=", "less_than": "<"}[kind]
        bound = next(iter(ctx.values()), "")
        return error(mark, f"{field}: must be {sign} {bound}, got {value}")
    if kind in ("string_too_short", "too_short"):
        return error(mark, f"{field}: must not be empty")
    if kind in ("string_too_long", "too_long"):
        limit = ctx.get("max_length")
        return error(mark, f"{field}: longer than the {limit} allowed")
    if kind == "value_error":
        message = str(ctx.get("error", err["msg"]))
        return error(doc.key_mark(loc) if loc else doc.start, f"{field}: {message}")
    return error(mark, f"{field}: {err['msg']}")


# YAML 1.1's base 60 (yaml.org/type/int, /float), which go-yaml leaves a string.
_BASE_60 = re.compile(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$")


def _number_hint(value: str, wanted: tuple[str, ...]) -> str:
    """How to write a number that is a string: without its quotes, where go-yaml then reads the
    type wanted; as one number, where it is YAML 1.1's base 60, which go-yaml reads as a string."""
    if resolve(value.strip())[0] in wanted:
        return "; remove the quotes"
    if _BASE_60.match(value):
        return (f"; Kubernetes' YAML reader (go-yaml) reads it as a string, not as YAML 1.1's base 60 "
                f"({_sexagesimal(value)}): write the number itself")
    return ""


def _sexagesimal(value: str) -> str:
    """The number YAML 1.1 reads a base-60 scalar as (PyYAML's construct_yaml_int and _float)."""
    sign, text = (-1, value[1:]) if value[0] == "-" else (1, value.lstrip("+"))
    number = 0.0 if "." in text else 0
    for part in text.replace("_", "").split(":"):
        number = number * 60 + (float(part) if "." in part else int(part))
    return f"{sign * number:g}" if isinstance(number, float) else str(sign * number)


def _pattern_help(pattern: str | None, value) -> str:
    """What a value of the pattern is, and for a quantity written as people write sizes
    (1GB, 1gi), its Kubernetes spellings: both readings of a decimal unit with bytes (64GB:
    64Gi or 64G), binary first."""
    what = PATTERN_HELP.get(pattern, f"matching {pattern}")
    found = quantity.readings(value) if pattern == QUANTITY and isinstance(value, str) else []
    if not found:
        return what
    said = " or ".join(f"{spelling!r} ({meaning})" if meaning else repr(spelling) for spelling, meaning in found)
    return what + meant(said)


def _where(loc: Loc) -> str:
    """The loc as the table of Kubernetes spellings names a place: `spec.datasets[].download`."""
    return "".join("[]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")


def _allowed_keys(loc: Loc, model) -> list[str]:
    """The keys the model accepts at loc (for 'did you mean')."""
    for part in loc:
        if model is None or isinstance(part, int):
            continue
        info = model.model_fields.get(part)
        if info is None:
            return []
        model = _model_in(info.annotation)
    return list(model.model_fields) if model is not None else []


def _model_in(annotation):
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None
