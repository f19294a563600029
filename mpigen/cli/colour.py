"""Colour on a terminal: whether a stream gets it, and the colours of mpigen's errors, warnings
and diffs (ANSI escapes, as git and gcc write them).

A stream gets colour only when it is a terminal, NO_COLOR is unset or empty (no-color.org) and
TERM is not `dumb`. Without colour every text is the bytes it always was: files, pipes and CI
logs never see an escape."""

from __future__ import annotations

import os
import re
from io import TextIOBase

from mpigen.errors import Diagnostic, shown

RESET = "\x1b[0m"
BOLD = "\x1b[1m"
RED = "\x1b[31m"
GREEN = "\x1b[32m"
YELLOW = "\x1b[33m"
MAGENTA = "\x1b[35m"
CYAN = "\x1b[36m"
BOLD_RED = "\x1b[1;31m"

SEVERITIES = {"error": BOLD_RED, "internal error": BOLD_RED, "warning": f"{BOLD}{MAGENTA}"}  # gcc's
# A hunk header; compiled at its first use (re keeps it), not at every start.
HUNK = r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@"


def wanted(stream: TextIOBase | None) -> bool:
    """Whether what is written to `stream` may be in colour."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError, OSError):  # closed, or not a file at all
        return False


def paint(text: str, style: str) -> str:
    return f"{style}{text}{RESET}" if text else text


def severity(name: str) -> str:
    """`error:`, `warning:` in their colour."""
    return paint(f"{name}:", SEVERITIES.get(name, BOLD))


def diagnostic(item: Diagnostic) -> str:
    """The diagnostic's line, its place in bold and its severity in colour: the same characters
    as str(item) between the escapes."""
    text, mark = str(item), item.mark
    start = len(f"{shown(mark.path)}:{mark.line}:{mark.column}: ") if mark.positioned else 0
    end = start + len(item.severity) + 1
    if text[start:end] != f"{item.severity}:":  # a form this does not know: leave it be
        return text
    place = paint(text[:start - 1], BOLD) + " " if start else ""  # `PATH:LINE:COLUMN:` in bold, as gcc
    return place + severity(item.severity) + text[end:]


def unified_diff(text: str) -> str:
    """A unified diff as git colours it: file headers bold, hunk headers cyan, removed lines
    red, added lines green. The lines each hunk header announces are counted, so a removed
    line that reads `-- x` is never taken for a file header."""
    out = []
    old = new = 0  # lines of the current hunk still to come, on each side
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\n")
        style = ""
        if old > 0 or new > 0:
            if body.startswith("-"):
                old, style = old - 1, RED
            elif body.startswith("+"):
                new, style = new - 1, GREEN
            elif not body.startswith("\\"):  # `\ No newline at end of file` counts for no side
                old, new = old - 1, new - 1
        elif hunk := re.match(HUNK, body):
            old, new, style = _count(hunk.group(1)), _count(hunk.group(2)), CYAN
        elif body.startswith(("--- ", "+++ ")):
            style = BOLD
        out.append(paint(body, style) + line[len(body):] if style else line)
    return "".join(out)


def _count(group: str | None) -> int:
    return 1 if group is None else int(group)  # `@@ -3 +3 @@` is one line on each side


def painter(style: str):
    """A function that paints a text in `style`."""
    return lambda text: paint(text, style)
