"""A plain YAML scalar's type and value as Kubernetes' own YAML reader gives them: go-yaml
v2's `resolve` (sigs.k8s.io/yaml v1.4.0 goyaml.v2/resolve.go, its fork of go-yaml v2.4.0,
which kubectl and the API server read YAML with; sigs.k8s.io/yaml v1.6.0 delegates to
go.yaml.in/yaml/v2 v2.4.2, whose resolve.go is the same), ported.

Where it differs from YAML 1.1 as PyYAML reads it, the port follows go-yaml:
- no base 60 ("Base 60 floats are a bad idea ... purposefully unsupported here"): `1:30`
  and `1:30.5` are strings, not 90 and 90.5;
- an integer is what Go's strconv.ParseInt(s, 0, 64), then ParseUint, read once every `_`
  is removed: `0o17`, `0O17`, `0X1F` and `0B101` are integers; one out of uint64's range is
  a float (yamlStyleFloat), and `08` too (not octal, so a decimal float);
- a float is what matches yamlStyleFloat, `^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$`,
  and strconv.ParseFloat reads in range, or, starting with `.`, what ParseFloat reads:
  `-.5`, `.5e3` and `1e3` are floats; `1e400` (out of range) is a string;
- a timestamp (`2001-12-14`) is a string: decode.go keeps one as its text when it decodes
  into interface{}, which is how sigs.k8s.io/yaml decodes ("for backward compatibility").

Booleans (y/Y/yes/.../off) and nulls ("", ~, null, Null, NULL) are go-yaml's resolveMap,
which YAML 1.1 as PyYAML reads it matches once y/Y/n/N are added."""

from __future__ import annotations

import math
import re
from functools import lru_cache

STR = "tag:yaml.org,2002:str"
NULL = "tag:yaml.org,2002:null"
BOOL = "tag:yaml.org,2002:bool"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
MERGE = "tag:yaml.org,2002:merge"

# resolveMap: the scalars read by name.
_MAP: dict[str, tuple[str, object]] = {
    **{word: (BOOL, True) for word in ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")},
    **{word: (BOOL, False) for word in ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")},
    **{word: (NULL, None) for word in ("", "~", "null", "Null", "NULL")},
    **{word: (FLOAT, math.nan) for word in (".nan", ".NaN", ".NAN")},
    **{word: (FLOAT, math.inf) for word in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")},
    **{word: (FLOAT, -math.inf) for word in ("-.inf", "-.Inf", "-.INF")},
    "<<": (MERGE, "<<"),
}
_HINTED = frozenset("+-0123456789.yYnNtTfFoO~")  # resolveTable: a first character that may be no string
_NUMERIC = frozenset("+-0123456789")             # 'S' and 'D'
_YAML_STYLE_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
# What strconv.ParseFloat reads of a scalar that starts with '.': digits, an exponent, and `_`
# only between digits (atof.go underscoreOK).
_DOT_FLOAT = re.compile(r"^\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?$")
_TIMESTAMP_START = re.compile(r"^[0-9]{4}-")
_DIGITS = {2: frozenset("01"), 8: frozenset("01234567"), 10: frozenset("0123456789"),
           16: frozenset("0123456789abcdefABCDEF")}
_PREFIXES = {"b": 2, "o": 8, "x": 16}
_INT64 = (-(1 << 63), (1 << 63) - 1)
_UINT64 = (1 << 64) - 1


# Blueprints repeat their numbers and quantities ("8", "16Gi") in every file: each is read once.
@lru_cache(maxsize=4096)
def resolve(text: str) -> tuple[str, object]:
    """The tag go-yaml gives a plain scalar, and its value (the text for a string)."""
    found = _MAP.get(text)
    if found is not None:
        return found
    if not text or text[0] not in _HINTED:
        return STR, text
    if text[0] == ".":  # ParseFloat(in): `.5`, `.5e3`, `.5_0`
        value = _in_range(float(text.replace("_", ""))) if _DOT_FLOAT.match(text) else None
        return (FLOAT, value) if value is not None else (STR, text)
    if text[0] not in _NUMERIC or _TIMESTAMP_START.match(text):
        return STR, text  # a word of the map's first letters; a timestamp, kept as its text
    return _numeric(text)


def _numeric(text: str) -> tuple[str, object]:
    """resolve's 'D' and 'S' cases, every `_` removed: ParseInt(plain, 0, 64), ParseUint,
    yamlStyleFloat with ParseFloat, then ParseInt(plain[2:], 2, 64) of a `0b` (which takes a
    sign after the prefix; the `-0b` case after it reads nothing ParseInt has not)."""
    plain = text.replace("_", "")
    signed = plain[0] in "+-"
    number = _go_int(plain)
    if number is not None and (_INT64[0] <= number <= _INT64[1] or (not signed and number <= _UINT64)):
        return INT, number
    if _YAML_STYLE_FLOAT.match(plain):
        value = _in_range(float(plain))
        if value is not None:
            return FLOAT, value
    if plain.startswith("0b") and plain[2:3] in ("+", "-"):
        number = _unsigned(plain[3:], 2)
        if number is not None:
            number = -number if plain[2] == "-" else number
            if _INT64[0] <= number <= _INT64[1]:
                return INT, number
    return STR, text


def _go_int(text: str) -> int | None:
    """strconv.ParseInt(text, 0, 64)'s syntax (its range left to the caller): a sign, then 0b,
    0o or 0x in either case with a digit after it, a leading 0 (octal), or decimal digits."""
    sign, body = (-1, text[1:]) if text[0] == "-" else (1, text[1:] if text[0] == "+" else text)
    if not body:
        return None
    base = 10
    if body[0] == "0":
        prefix = body[1:2].lower()
        if len(body) >= 3 and prefix in ("b", "o", "x"):
            base, body = _PREFIXES[prefix], body[2:]
        else:
            base, body = 8, body[1:]
            if not body:
                return 0
    number = _unsigned(body, base)
    return None if number is None else sign * number


def _unsigned(digits: str, base: int) -> int | None:
    """The digits' number, None where they are none of the base's or more than 64 bits hold
    (ParseUint's ErrRange: the caller reads on as a float)."""
    if not digits or not set(digits) <= _DIGITS[base] or len(digits.lstrip("0")) > 64:
        return None
    return int(digits, base)


def _in_range(value: float) -> float | None:
    """ParseFloat's result, None where it reports ErrRange (beyond float64's largest)."""
    return None if math.isinf(value) else value
