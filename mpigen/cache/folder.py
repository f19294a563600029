"""Which cache folder a run may use, and why not: judged once per run (mpigen.project.options),
so that the rest of mpigen reads, writes and prunes only a folder that is mpigen's own and
that no one but the user can write into.

The folder named ($MPIGEN_CACHE_DIR, else $XDG_CACHE_HOME/mpigen, else ~/.cache/mpigen) is
used when:

- every folder on the way to it, from /, and every link followed there, is the user's or
  root's, and no one else may write into those folders, but for a sticky folder (as /tmp,
  where no one may rename or remove what another made): as OpenSSH's StrictModes and git's
  safe.directory judge. Another user could otherwise swap the folder, or a folder above it,
  for one of theirs;
- it is the user's own, and no one else may write into it (sticky or not): no one but the
  user can then plant an entry under the key of the user's blueprint;
- it is mpigen's: it holds mpigen's CACHEDIR.TAG (a regular file of the user's, with
  exactly mpigen's text), or it is empty (mpigen then writes its CACHEDIR.TAG and a
  .gitignore of `*` there, never over a file). A folder that holds files of others is left
  alone: its sub-folder `mpigen` is judged the same way instead.

What is missing on the way is made (mode 0700, the user's), inside a folder judged as
above: root never makes a folder inside another user's (a home kept by `sudo`). Any other
folder gives a run without the cache, and one warning saying which folder, why, and how to
fix it; a folder the machine refuses to make or to claim (read-only, full) gives a run
without the cache in silence, as a cache that is read-only or full does (mpigen.cache.store).
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import NamedTuple

from mpigen.errors import Diagnostic, Mark, warning

OWN = "mpigen"  # the sub-folder mpigen keeps its cache in, inside a folder that holds files of others
TAG_NAME = "CACHEDIR.TAG"
TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
       "# This folder is a cache made by mpigen (https://bford.info/cachedir/); delete it at any time.\n").encode()
IGNORE = b"*\n"
_LINKS = 40  # links followed on the way, at most (as Linux's own limit)
_YOURS = "set MPIGEN_CACHE_DIR to a folder of your own"


def cache_folder() -> Path | None:
    """Where the cache lives ($MPIGEN_CACHE_DIR, $XDG_CACHE_HOME/mpigen, ~/.cache/mpigen), as an
    absolute path (a relative MPIGEN_CACHE_DIR is the working folder's), or None when there
    is no home to put it in."""
    chosen = os.environ.get("MPIGEN_CACHE_DIR")
    if chosen:
        try:
            return Path(os.getcwd(), chosen)  # (not normalised: a `..` after a link is the kernel's to follow)
        except OSError:  # the working folder was removed
            return None
    base = os.environ.get("XDG_CACHE_HOME")
    if base and os.path.isabs(base):
        return Path(base, "mpigen")
    home = os.path.expanduser("~")
    return Path(home, ".cache", "mpigen") if os.path.isabs(home) else None


class Judged(NamedTuple):
    """The cache folder a run uses (its real path: mpigen's own, and no one else may write
    into it), or None; and the warning that says why the folder named is not used, when
    the user must hear it."""

    folder: Path | None
    warning: Diagnostic | None


class _NotUsed(Exception):
    """The folder named is not used: `reason` (a folder and what is wrong with it), `fix`."""

    def __init__(self, reason: str, fix: str):
        super().__init__(reason)
        self.reason, self.fix = reason, fix


def judged(named: Path | None) -> Judged:
    """The cache folder a run may use of the one `named` (None: no cache, in silence), and
    why not (see the module's docstring)."""
    if named is None:
        return Judged(None, None)
    try:
        folder = _usable(str(named), os.geteuid())
    except _NotUsed as refused:
        return Judged(None, warning(Mark(str(named)), f"the cache is not used: {refused.reason}; {refused.fix} "
                                                      "(the output is the same without it)"))
    return Judged(None if folder is None else Path(folder), None)


def _usable(named: str, uid: int) -> str | None:
    """The real path of the folder of mpigen's own that the run may use, made where missing:
    `named`, else its sub-folder `mpigen`; None when the machine refuses to make or claim it.
    Raises _NotUsed."""
    folder = _reached(named, uid)
    if folder is None or _private(folder, uid) is None:
        return None
    claimed = _claimed(folder, uid)
    if claimed is not False:
        return folder if claimed else None
    own = _reached(os.path.join(folder, OWN), uid)
    if own is None or _private(own, uid) is None:
        return None
    claimed = _claimed(own, uid)
    if claimed is False:
        raise _NotUsed(f"{folder} holds files mpigen did not make (it has no CACHEDIR.TAG of mpigen's), and so "
                       f"does {own}", f"{_YOURS} that is empty or missing, or empty {own}")
    return own if claimed else None


def _reached(named: str, uid: int) -> str | None:
    """The real path of the folder `named` (absolute), found as the kernel finds it, one name
    at a time, each folder looked into judged (_on_the_way) and each link followed too (_owned),
    and each missing folder made (mode 0700); None when the machine refuses to make one.
    Raises _NotUsed."""
    done, looked_into = "/", None
    seen = {done: os.lstat(done)}  # each folder met: its status
    pending = _names(named)
    links = 0
    while pending:
        name = pending.pop()
        if name in ("", "."):
            continue
        if name == "..":
            done = os.path.dirname(done)
            continue
        if done != looked_into:
            _on_the_way(done, seen[done], uid)
            looked_into = done
        path = os.path.join(done, name)
        try:
            status = os.lstat(path)
            target = os.readlink(path) if stat.S_ISLNK(status.st_mode) else None
        except FileNotFoundError:
            if not _made(path):
                return None
            pending.append(name)  # judged as it now is (made by this run, or by another meanwhile)
            continue
        except OSError as exc:
            raise _NotUsed(f"{path} cannot be reached ({exc.strerror})", _YOURS) from None
        if target is not None:
            links += 1
            if links > _LINKS:
                raise _NotUsed(f"the way to it meets more than {_LINKS} links (at {path})", _YOURS)
            _owned(path, status, uid, "is a link of another user")
            done = "/" if target.startswith("/") else done
            pending += _names(target)
            continue
        if not stat.S_ISDIR(status.st_mode):
            raise _NotUsed(f"{path} is not a folder", _YOURS)
        seen[path] = status
        done = path
    return done


def _names(path: str) -> list[str]:
    """The names of a path, last first (a stack)."""
    return path.split("/")[::-1]


def _made(path: str) -> bool:
    """Make the folder `path`, private to this user; False when the machine refuses."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        return True
    except OSError:
        return False
    return True


def _owned(path: str, status: os.stat_result, uid: int, what: str) -> None:
    """Raises _NotUsed unless `path` is this user's or root's."""
    if status.st_uid not in (uid, 0):
        raise _NotUsed(f"{path} {what} (uid {status.st_uid})", f"run mpigen as that user, or {_YOURS}")


def _on_the_way(path: str, status: os.stat_result, uid: int) -> None:
    """Raises _NotUsed unless the folder `path`, on the way to the cache, is this user's or
    root's, and no one else may write into it but to add what they alone may then remove
    (a sticky folder, as /tmp)."""
    _owned(path, status, uid, "belongs to another user")
    if status.st_mode & 0o022 and not status.st_mode & stat.S_ISVTX:
        raise _NotUsed(f"others may write into {path} (mode {stat.S_IMODE(status.st_mode):04o}) and swap the "
                       "folders in it", f"run chmod go-w {path} (or chmod +t), or {_YOURS}")


def _private(folder: str, uid: int) -> bool | None:
    """True when the cache folder `folder` is this user's and no one else may write into it;
    None when it is gone (removed meanwhile). Raises _NotUsed otherwise."""
    try:
        status = os.lstat(folder)
    except OSError:
        return None
    if status.st_uid != uid:
        raise _NotUsed(f"{folder} belongs to another user (uid {status.st_uid})", f"run mpigen as that user, or "
                                                                                   f"{_YOURS}")
    if status.st_mode & 0o022:
        raise _NotUsed(f"others may write into {folder} (mode {stat.S_IMODE(status.st_mode):04o}) and plant entries "
                       "in it", f"run chmod go-w {folder}, or {_YOURS}")
    return True


def _claimed(folder: str, uid: int) -> bool | None:
    """Whether `folder` is mpigen's: it holds mpigen's CACHEDIR.TAG, or it was empty and now
    holds it (and a .gitignore of `*`); None when it is empty and the machine refuses the tag."""
    if _tagged(folder, uid):
        return True
    try:
        if os.listdir(folder):
            return False
    except OSError:
        return None
    for name, text in ((TAG_NAME, TAG), (".gitignore", IGNORE)):  # the tag first: it makes the folder mpigen's
        if not _written_new(os.path.join(folder, name), text) and name == TAG_NAME:
            return None
    return True


def _tagged(folder: str, uid: int) -> bool:
    """Whether `folder` holds mpigen's CACHEDIR.TAG: a regular file of this user's with exactly
    mpigen's text."""
    try:
        fd = os.open(os.path.join(folder, TAG_NAME), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        status = os.fstat(fd)
        return stat.S_ISREG(status.st_mode) and status.st_uid == uid and os.read(fd, len(TAG) + 1) == TAG
    except OSError:
        return False
    finally:
        os.close(fd)


def _written_new(path: str, text: bytes) -> bool:
    """Write a new file (mode 0644), never over one: False, and nothing left, when the machine
    refuses or a file is there."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError:
        return False
    try:
        with open(fd, "wb") as handle:
            handle.write(text)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(path)
        return False
    return True
