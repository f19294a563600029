"""Diagnostics: every problem is reported as PATH:LINE:COLUMN: severity: message, or, for
a problem of a whole path (a missing file, an unreadable folder, a failed write), as
severity: PATH: message, and for a problem that is in no file (an option, an environment
variable, the cluster) as severity: message, with no made-up position."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass


def shown(text: str) -> str:
    """The text as it can be printed on one line: itself when printable, else with escapes
    (\\n, \\x1b, \\u202e, ...) as Python writes them."""
    return text if text.isprintable() else repr(text)[1:-1]


@dataclass(frozen=True, order=True)
class Mark:
    """A position in a user's file; line and column count from 1, as editors do. Line 0
    means no position: the problem is the path's as a whole (or, for an option or an
    environment variable, its name)."""

    path: str
    line: int = 0
    column: int = 0

    @property
    def positioned(self) -> bool:
        return self.line > 0

    def __str__(self) -> str:
        """PATH:LINE:COLUMN, or PATH where there is no position: how a message names
        another place ("already defined at ...")."""
        return f"{self.path}:{self.line}:{self.column}" if self.positioned else self.path


NOWHERE = Mark("")  # a problem in no file: an option, an environment variable, the cluster, git


def meant(what: str) -> str:
    """`; did you mean WHAT?`: the one wording of a suggestion (WHAT as the caller quotes it)."""
    return f"; did you mean {what}?"


def close_matches(word: str, choices: Iterable[str], n: int = 1, cutoff: float = 0.6) -> list[str]:
    """The choices nearest to a mistyped word, nearest first (difflib.get_close_matches).
    difflib is loaded only when a suggestion is made: a run without a mistake never needs it."""
    import difflib

    return difflib.get_close_matches(word, list(choices), n=n, cutoff=cutoff)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`; did you mean 'NEAREST'?` for the choice nearest to a mistyped word (difflib), or ''."""
    nearest = close_matches(word, choices)
    return meant(repr(nearest[0])) if nearest else ""


def not_one_of(named: str, value: str, choices: Iterable[str]) -> str:
    """`NAMED is not one of A, B, C; did you mean 'B'?`: what exists, and the nearest to value
    (named is the value as the message shows it: `target: 'helm'`, `NAME='helm'`)."""
    choices = list(choices)
    return f"{named} is not one of {', '.join(choices)}{did_you_mean(value, choices)}"


@dataclass(frozen=True, order=True)
class Diagnostic:
    mark: Mark
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        # One line, whatever the path or a value quoted in the message holds.
        m, message = self.mark, shown(self.message)
        if not m.positioned:
            where = f"{shown(m.path)}: " if m.path else ""
            return f"{self.severity}: {where}{message}"
        return f"{shown(m.path)}:{m.line}:{m.column}: {self.severity}: {message}"


class InputError(Exception):
    """Invalid input (or a machine problem: permissions, a full disk): carries every
    diagnostic found, in file order. Exit code 2."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = sorted(set(diagnostics))
        super().__init__("\n".join(str(d) for d in self.diagnostics))


def error(mark: Mark, message: str) -> Diagnostic:
    return Diagnostic(mark, message, "error")


def warning(mark: Mark, message: str) -> Diagnostic:
    return Diagnostic(mark, message, "warning")


Warn = Callable[[Iterable[Diagnostic]], None]  # where warnings go, as they are found


class UsageError(Exception):
    """A command asked for what cannot be done as asked (no output folder to write to, two
    ways of naming the old render at once): printed as `error: MESSAGE`. Exit code 2."""
