"""--strict: the warnings of the blueprints, the overlays and mpigen.yaml (a patch that selects
no blueprint, a GPU resource no device plugin advertises, ...) as errors, so that CI and
pre-commit fail on them: exit 2, nothing written, every one reported, each at its line.

Only the input's warnings: those of the cache folder and of the output folder (a file edited
by hand that render --discard-edits replaces, the writers' lock another run holds) say what
a run did to the machine, not what the input gets wrong, and stay warnings. They are known
once every file is rendered, before anything is written (mpigen.project.render skips the
patch in place of a few changed files under --strict: it writes as it learns them).
"""

from __future__ import annotations

from collections.abc import Iterable

from mpigen.errors import Diagnostic, InputError, Warn, error
from mpigen.project.options import Setup

STRICT_NOTE = " (a warning; --strict makes it an error)"


def input_warnings(setup: Setup, warnings: Iterable[Diagnostic], warn: Warn) -> None:
    """The input's warnings to `warn`; under --strict, InputError with each as an error."""
    warnings = list(warnings)
    if setup.strict and warnings:
        raise InputError([error(d.mark, d.message + STRICT_NOTE) for d in warnings])
    warn(warnings)
