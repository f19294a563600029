"""The machine's refusals while the output folder is read or written (no space, no
permission, a read-only file system): WriteFailed names the path, and machine_error makes
it one error line on that path with what to do (exit 2), never a crash."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from mpigen.errors import InputError, Mark, error


class WriteFailed(Exception):
    """The machine refused: `path` (relative to DIR; "" for DIR itself) could not be
    written or read, because of `cause`; `intact`: DIR is as it was."""

    def __init__(self, path: str, cause: OSError, doing: str = "cannot write", intact: bool = True):
        super().__init__(f"{path}: {doing}: {cause.strerror or cause}")
        self.path, self.cause, self.doing, self.intact = path, cause, doing, intact


def relative(out: Path, filename) -> str:
    """An OSError's file name relative to `out` ("" for `out` itself or a path outside it)."""
    if not filename:
        return ""
    name = os.fsdecode(filename)
    base = str(out)
    return name[len(base) + 1:] if name.startswith(base + "/") else ""


_HINTS = {
    errno.ENOSPC: "free some space on its file system, then run mpigen again",
    errno.EDQUOT: "free some space within your disk quota, then run mpigen again",
    errno.EACCES: "give this user permission there, or choose another output folder",
    errno.EPERM: "give this user permission there, or choose another output folder",
    errno.EROFS: "its file system is read-only: choose another output folder",
    errno.ENOTDIR: "a file is in the way: move it, or choose another output folder",
}


def machine_error(out: Path, failed: WriteFailed) -> InputError:
    """A refusal of the machine as one error line on the path it concerns (exit 2)."""
    path = out.as_posix() + (f"/{failed.path}" if failed.path else "")
    hint = _HINTS.get(failed.cause.errno, "fix the cause, then run mpigen again")
    unchanged = f" ({out.as_posix()} is unchanged)" if failed.intact and failed.doing != "cannot read" and \
        os.path.isdir(out) else ""
    return InputError([error(Mark(path),
                             f"{failed.doing}: {failed.cause.strerror or failed.cause}; {hint}{unchanged}")])
