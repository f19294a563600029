"""README.md's table for choosing a target, rendered from the targets' table
(mpigen.render.targets: each target's name, and its options' line of who runs its jobs and
line of --target's help), so that a new target, or a changed line, reaches the first page.

The table is the run of `|` lines right after MARKER in README.md.
`python -m tests.support.readme_targets --update` writes it there after a change of the
targets' table; tests/acceptance/test_readme.py fails while the two differ."""

from __future__ import annotations

import sys
from itertools import takewhile

from mpigen.render.targets import TARGETS
from tests.support.paths import ROOT

README = ROOT / "README.md"
MARKER = "<!-- The table of targets: python -m tests.support.readme_targets --update writes it. -->"
HEADER = ("| target | who runs its jobs | what mpigen writes |", "|---|---|---|")


def table() -> str:
    """The table as the targets' table gives it, the default target first."""
    rows = [f"| `{name}` | {target.options.who_runs} | {target.options.help} |" for name, target in TARGETS.items()]
    return "".join(f"{line}\n" for line in (*HEADER, *rows))


def shown(text: str) -> str:
    """The table README.md shows: the `|` lines right after the marker."""
    start = text.index(MARKER + "\n") + len(MARKER) + 1
    return "".join(takewhile(lambda line: line.startswith("|"), text[start:].splitlines(keepends=True)))


def update() -> None:
    text = README.read_text(encoding="utf-8")
    README.write_text(text.replace(MARKER + "\n" + shown(text), MARKER + "\n" + table(), 1), encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python -m tests.support.readme_targets --update")
    update()
