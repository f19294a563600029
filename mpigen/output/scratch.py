"""The scratch folders a write makes: beside DIR, .<DIR>.mpigen-<pid>-<random> (the new
state being built, or after the swap the old one) and .<DIR>.mpigen-old-<pid>-<random>
(DIR itself, where the system cannot exchange two folders); inside DIR,
.mpigen-stage-<pid>-<random>. The process id tells a killed run's folders (its process is
gone) from those of a run still going."""

from __future__ import annotations

import os
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
