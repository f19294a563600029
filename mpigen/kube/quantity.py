"""Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource) as exact fractions.

mpigen compares and adds quantities at compile time: shared memory against the memory
limit, and a PodGroup's minResources. The kubernetes client has a parser
(kubernetes.utils.parse_quantity), but importing it loads the whole API client, which the
render path must not pay for; the grammar is small and fixed (blueprint.QUANTITY).

Bounds, as Kubernetes' own parser (quantity.go, ParseQuantity) has them: the exponent of
`<number>e<exponent>` is an integer (strconv.ParseInt), a value is rounded up to a whole
number of nanos (a non-zero value never becomes 0), and "no quantity may represent a
number greater than 2^63-1" (the parser caps larger binary-SI values and keeps larger
decimal ones in a form that overflows wherever they are used as int64). mpigen refuses a
value above 2^63-1 instead of changing it, and never computes a power it does not need:
an exponent beyond +-EXPONENT_BOUND decides the value alone, since the number before it
has at most 64 characters.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

MAX = 2**63 - 1  # the largest quantity
NANO = Fraction(1, 10**9)  # the smallest step
# With at most 64 characters of number (blueprint.Quantity's max_length), 10^-63 <= number
# < 10^64 for a non-zero number: above this exponent the value exceeds MAX, below its
# negative it is under a nano (so exactly one nano once rounded up).
EXPONENT_BOUND = 100

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": 1,
            "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}
_QUANTITY = re.compile(r"(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
                       r"(?:(?P<binary>[KMGTPE]i)|(?P<decimal>[numkMGTPE])|[eE](?P<exponent>[+-]?[0-9]+))?")


# Blueprints repeat a few quantities ("4", "16Gi") in every job and environment: each is read once.
@lru_cache(maxsize=4096)
def parse(text: str) -> Fraction:
    """The value Kubernetes reads from a quantity string (blueprint.QUANTITY); raises
    ValueError for a string that is not one, or whose value exceeds MAX. The work is
    bounded whatever the string."""
    match = _QUANTITY.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not a Kubernetes quantity")
    number = Fraction(match["number"])
    if match["binary"]:
        value = number * _BINARY[match["binary"]]
    elif match["exponent"] is None:
        value = number * _DECIMAL[match["decimal"] or ""]
    else:
        exponent = int(match["exponent"])
        if not -2**63 <= exponent < 2**63:  # strconv.ParseInt(..., 64) fails: ErrSuffix
            raise ValueError(f"{text!r}: the exponent is not a 64-bit integer, which Kubernetes refuses")
        if number == 0:
            value = Fraction(0)
        elif exponent > EXPONENT_BOUND:
            raise ValueError(_too_large(text))
        elif exponent < -EXPONENT_BOUND:
            value = NANO
        else:
            value = number * Fraction(10) ** exponent
    nanos = -(-value.numerator * 10**9 // value.denominator)  # rounded up, as Kubernetes does
    if nanos > MAX * 10**9:
        raise ValueError(_too_large(text))
    return Fraction(nanos, 10**9)


def _too_large(text: str) -> str:
    return (f"{text!r} is more than the largest quantity Kubernetes holds, 2^63-1 ({MAX}, about 9.2E); "
            "use a smaller value")


def range_problem(text: str) -> str | None:
    """Why a string of the quantity grammar is out of Kubernetes' range, or None."""
    try:
        parse(text)
    except ValueError as exc:
        return str(exc)
    return None


_UNIT_MISTAKE = re.compile(r"(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+) ?(?P<unit>[A-Za-z]{1,3})")
_DECIMAL_SPELLING = {"k": "k", "m": "M", "g": "G", "t": "T", "p": "P", "e": "E"}  # by the unit in lowercase


def spelled(text: str) -> str | None:
    """The Kubernetes spelling of a quantity written as people write sizes, or None: bytes
    and case dropped from the unit (1GB -> 1G, 512MiB -> 512Mi, 1gi -> 1Gi, 2 kb -> 2k;
    a mega is M, since m is milli), the space before it removed."""
    match = _UNIT_MISTAKE.fullmatch(text)
    if match is None or _QUANTITY.fullmatch(text):
        return None
    unit = match["unit"].lower()
    if unit.endswith("b") and len(unit) > 1:
        unit = unit[:-1]
    if len(unit) == 2 and unit.endswith("i") and f"{unit[0].upper()}i" in _BINARY:
        suffix = f"{unit[0].upper()}i"
    elif unit in _DECIMAL_SPELLING:
        suffix = _DECIMAL_SPELLING[unit]
    else:
        return None
    spelling = f"{match['number']}{suffix}"
    return spelling if spelling != text else None


# What a decimal unit with bytes (GB, mb, ...) may mean: 2^(10n) bytes, as nearly everyone who
# writes 64GB of memory means, or 10^(3n), as the letters say in SI.
_POWERS = {"K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}


def readings(text: str) -> list[tuple[str, str]]:
    """The Kubernetes spellings a size written as people write it may mean, each with what it
    is: `64GB` -> [("64Gi", "64 x 2^30 bytes"), ("64G", "64 x 10^9 bytes")], the binary
    reading first (nearly everyone who writes GB means it); one reading where the unit says
    which (`512MiB` -> 512Mi, `1gi` -> 1Gi); [] for what spelled() does not correct."""
    spelling = spelled(text)
    if spelling is None:
        return []
    match = _UNIT_MISTAKE.fullmatch(text)
    unit = match["unit"]
    power = _POWERS.get(spelling[-1].upper())
    if power is None or not unit.lower().endswith("b") or unit.lower().endswith("ib"):
        return [(spelling, "")]
    number = match["number"]
    binary = f"{number}{spelling[-1].upper()}i"
    return [(binary, f"{number} x 2^{10 * power} bytes"), (spelling, f"{number} x 10^{3 * power} bytes")]


def is_binary(text: str) -> bool:
    return text[-2:] in _BINARY


def format_quantity(value: Fraction, binary: bool) -> str:
    """The canonical form Kubernetes prints: the largest suffix that keeps the number whole
    (binary suffixes for quantities written with them), else millis."""
    if binary and value.denominator == 1 and value:
        for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
            if value % _BINARY[suffix] == 0:
                return f"{value // _BINARY[suffix]}{suffix}"
    if value.denominator == 1:
        number = int(value)
        if number:
            for suffix in ("E", "P", "T", "G", "M", "k"):
                if number % _DECIMAL[suffix] == 0:
                    return f"{number // _DECIMAL[suffix]}{suffix}"
        return str(number)
    millis = value * 1000
    if millis.denominator == 1:
        return f"{millis.numerator}m"
    return f"{-(-millis.numerator // millis.denominator)}m"  # Kubernetes rounds up to millis


def add(quantities: list[str]) -> str:
    """The sum, in the format of the summands (binary when any is)."""
    return format_quantity(sum((parse(q) for q in quantities), Fraction(0)), any(is_binary(q) for q in quantities))
