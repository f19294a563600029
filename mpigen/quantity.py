"""Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource) as exact fractions.

mpigen compares and adds quantities at compile time: shared memory against the memory
limit, and a PodGroup's minResources. The kubernetes client has a parser
(kubernetes.utils.parse_quantity), but importing it loads the whole API client, which the
render path must not pay for; the grammar is small and fixed (blueprint.QUANTITY).
"""

from __future__ import annotations

from fractions import Fraction

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": 1,
            "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}


def parse(text: str) -> Fraction:
    """The value of a quantity string that matches blueprint.QUANTITY."""
    for suffix, factor in _BINARY.items():
        if text.endswith(suffix):
            return Fraction(text[:-2]) * factor
    if "e" in text.lower():
        number, exponent = text.lower().split("e")
        return Fraction(number) * Fraction(10) ** int(exponent)
    suffix = text[-1] if text[-1] in _DECIMAL else ""
    return Fraction(text[:len(text) - len(suffix)]) * _DECIMAL[suffix]


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
