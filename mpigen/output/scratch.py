"""The scratch folders a write makes: beside DIR, .<DIR>.mpigen-<pid>-<random> (the new
state being built, or after the swap the old one) and .<DIR>.mpigen-old-<pid>-<random>
(DIR itself, where the system cannot exchange two folders); inside DIR,
.mpigen-stage-<pid>-<random>. The process id tells a killed run's folders (its process is
gone) from those of a run still going, and the owner tells this user's folders from those
another user put there (a shared folder, /tmp for one, holds anybody's): a run repairs only
what a run of the same user made, and never trusts the rest."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from mpigen.output.failure import WriteFailed

STAGING, OLD, INSIDE = "mpigen-", "mpigen-old-", ".mpigen-stage-"


def beside(out: Path, kind: str = STAGING, doing: str = "cannot create a folder beside it") -> Path:
    """A new, empty scratch folder of this run beside `out`."""
    try:
        return Path(tempfile.mkdtemp(prefix=f".{out.name}.{kind}{os.getpid()}-", dir=out.parent))
    except OSError as exc:
        raise WriteFailed("", exc, doing) from exc


def alive(pid: int) -> bool:
    """Whether the run of process `pid` may still be going (its scratch folders are its own)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # another user's process, or no process id at all
        pass
    return True


def made_by_this_user(entry: os.DirEntry, private: bool = False) -> bool:
    """Whether `entry` is a real folder (no link) owned by the user this run runs as, and, if
    `private`, that no one else may write into (tempfile.mkdtemp makes them so): only such a
    folder can be a scratch folder of this user's runs."""
    try:
        status = entry.stat(follow_symlinks=False)
    except OSError:
        return False
    return (stat.S_ISDIR(status.st_mode) and status.st_uid == os.geteuid()
            and not (private and status.st_mode & 0o022))
