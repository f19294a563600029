"""Diagnostics: every problem is reported as PATH:LINE:COLUMN: severity: message."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Mark:
    """A position in a user's file; line and column count from 1, as editors do."""

    path: str
    line: int = 1
    column: int = 1


@dataclass(frozen=True, order=True)
class Diagnostic:
    mark: Mark
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        m = self.mark
        return f"{m.path}:{m.line}:{m.column}: {self.severity}: {self.message}"


class InputError(Exception):
    """Invalid input: carries every diagnostic found, in file order. Exit code 2."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = sorted(set(diagnostics))
        super().__init__("\n".join(str(d) for d in self.diagnostics))


def error(mark: Mark, message: str) -> Diagnostic:
    return Diagnostic(mark, message, "error")


def warning(mark: Mark, message: str) -> Diagnostic:
    return Diagnostic(mark, message, "warning")
