"""The repository a run works in: the nearest folder, from the working folder up, that holds
mpigen.yaml, as git and kustomize find theirs.

A run started in a sub-folder of the repository works from the repository's folder (as
`git -C`), so that the paths in mpigen.yaml, the output folder and every path in the
output and in the messages are the same as for a run at the top; the paths given on the
command line are taken from where they were typed and rebased onto that folder.

The mpigen.yaml found, in the working folder or above it, is used only when it and its folder
are the user's, or the user names its folder in MPIGEN_SAFE_DIRECTORIES (mpigen.load.trust,
git's safe.directory): otherwise the run stops before it reads anything, with one error that
says whose it is and how to trust it or go on without it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from mpigen.errors import InputError
from mpigen.formats.config import CONFIG_FILE
from mpigen.load.trust import SAFE_DIRECTORIES, foreign, refusal

# What the messages of a run that finds no mpigen.yaml say, and the other way on they show.
NO_CONFIG = f"no {CONFIG_FILE} in this folder or any folder above it"
CREATE_CONFIG = f"or create {CONFIG_FILE} at the top of the repository (docs/overlays.md#mpigenyaml)"


def find_config(start: Path | None = None) -> Path | None:
    """The mpigen.yaml a run in `start` (default: the working folder) uses: that of the
    nearest folder from start up that holds one (an unreadable one included, so that it is
    reported rather than passed over), as an absolute path; None when there is none."""
    folder = Path(os.path.abspath(start if start is not None else os.getcwd()))
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate / CONFIG_FILE):
            return candidate / CONFIG_FILE
    return None


@dataclass(frozen=True)
class Moved:
    """A run moved from a sub-folder (`prefix`, relative to the repository) to the repository."""

    root: Path
    prefix: str

    def path(self, given: str) -> str:
        """A path typed in the sub-folder, as seen from the repository (absolute paths stay)."""
        return given if os.path.isabs(given) else os.path.normpath(os.path.join(self.prefix, given))


def enter_repository() -> Moved | None:
    """Work from the folder of the mpigen.yaml find_config finds, when that is not the
    working folder already; None when the run stays where it is. Raises InputError when
    that mpigen.yaml is another user's and the user has not said it is safe."""
    found = find_config()
    if found is None:
        return None
    here = os.getcwd()
    at_top = found.parent == Path(os.path.abspath(here))  # find_config looks in the working folder first
    other = foreign(found)
    if other is not None and other.trusted_by is None:
        raise InputError([refusal(other, here=at_top)])
    if at_top:
        return None
    moved = Moved(found.parent, os.path.relpath(here, found.parent))
    os.chdir(found.parent)
    return moved


def describe(start: Path | None = None) -> str:
    """Which mpigen.yaml a run in `start` uses, for `-v`."""
    found = find_config(start)
    if found is None:
        return (f"no {CONFIG_FILE} in this folder or any folder above it: reading the paths given, else "
                "blueprints/, with the default options")
    other = foreign(found)
    if other is not None and other.trusted_by is None:
        return f"not using {found.as_posix()}: {other.whose}, and {SAFE_DIRECTORIES} does not name its folder"
    trusted = "" if other is None else f", {other.whose}, trusted by {SAFE_DIRECTORIES}={other.trusted_by}"
    return (f"using {found.as_posix()}{trusted} (the paths in it and in the messages are relative to "
            f"{found.parent.as_posix()})")
