"""Where an output folder may be: never over what a run reads, nor over another output folder."""

from __future__ import annotations

import os
from pathlib import Path

from mpigen.errors import InputError, Mark, error


def refuse_overlap(out: Path, paths: list[Path], what: str = "the input") -> None:
    """Raise InputError when the output folder contains, or lies inside, one of the paths (the
    blueprints and overlays being read, or another output folder)."""
    # realpath, not Path.resolve: a link that loops is reported where it is read, not here
    target = Path(os.path.realpath(out))
    problems = []
    for path in paths:
        source = Path(os.path.realpath(path))
        if target == source or source in target.parents or target in source.parents:
            problems.append(error(Mark(out.as_posix()),
                                  f"the output folder overlaps {what} {path.as_posix()}; "
                                  "write the output to a folder of its own"))
    if problems:
        raise InputError(problems)
