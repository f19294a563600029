"""Prometheus' durations, as Prometheus reads them: prometheus/common v0.70.1 model/time.go
`ParseDuration`, ported step by step, so that a duration mpigen writes into a rule's `for` is
one Prometheus takes (a rule group with one it refuses is refused whole, and the environment
then has no alerts)."""

from __future__ import annotations

# model/time.go unitMap: each unit's position (units go from the largest down) and nanoseconds.
_UNITS = {"ms": (7, 10**6), "s": (6, 10**9), "m": (5, 60 * 10**9), "h": (4, 3600 * 10**9),
          "d": (3, 24 * 3600 * 10**9), "w": (2, 7 * 24 * 3600 * 10**9), "y": (1, 365 * 24 * 3600 * 10**9)}
_MAX = 2**63 - 1  # time.Duration is an int64 of nanoseconds


def duration_problem(text: str) -> str | None:
    """Why ParseDuration refuses `text` (None: it takes it), in its words."""
    if text == "0":  # "Allow 0 without a unit."
        return None
    if text == "":
        return "empty duration string"
    rest, total, last_position = text, 0, 0
    while rest:
        digits = next((i for i, c in enumerate(rest) if c not in "0123456789"), len(rest))
        if digits == 0:
            return f"not a valid duration string: {text!r}"
        value, rest = int(rest[:digits]), rest[digits:]
        if value > 2**64 - 1:  # strconv.ParseUint(s, 10, 0) on a 64-bit platform
            return f"not a valid duration string: {text!r}"
        letters = next((i for i, c in enumerate(rest) if c in "0123456789"), len(rest))
        if letters == 0:
            return f"not a valid duration string: {text!r}"
        unit, rest = rest[:letters], rest[letters:]
        if unit not in _UNITS:
            return f"unknown unit {unit!r} in duration {text!r}"
        position, nanoseconds = _UNITS[unit]
        if position <= last_position:  # units go from the largest down, each once
            return f"not a valid duration string: {text!r}"
        last_position = position
        if value > (1 << 63) // nanoseconds:
            return "duration out of range"
        total += value * nanoseconds
        if total > _MAX:
            return "duration out of range"
    return None
