"""The writers' lock of an output folder: writers of one folder take turns, on an flock of
DIR's parent (which a swap does not replace), taken before DIR is read. Any process that may
open the parent may hold that lock, another user's too; so a run that finds it held says
which process holds it, and whose, before it waits (as apt does), rather than hang without a
word."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
from pathlib import Path

from mpigen.errors import Diagnostic, Mark, Warn, warning

_LOCKS = "/proc/locks"  # `N: FLOCK  ADVISORY  WRITE <pid> <major>:<minor>:<inode> 0 EOF` (hex device numbers)


@contextlib.contextmanager
def writer_lock(out: Path, warn: Warn | None = None):
    """Hold the lock of `out`; when another process holds it, say so to `warn` once, then
    wait. Where the parent cannot be opened or locked (some network file systems), run
    unlocked."""
    parent = out.parent if str(out.parent) else Path(".")
    try:
        fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        yield
        return
    try:
        with contextlib.suppress(OSError):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if warn is not None:
                    warn([_waiting(parent, out, os.fstat(fd))])
                fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _waiting(parent: Path, out: Path, stat: os.stat_result) -> Diagnostic:
    return warning(Mark(str(parent)), f"waiting for {holder(stat)}, which holds the writers' lock of {out} (an flock "
                                      "on this folder); the render goes on when it lets go: if it never does, stop "
                                      "it, or render into a folder whose parent only you can read")


def holder(stat: os.stat_result) -> str:
    """`process PID of user NAME` for the flock on the file of `stat`, as /proc/locks lists it;
    `another process` where it does not say (no /proc, another pid namespace)."""
    device = f"{os.major(stat.st_dev):02x}:{os.minor(stat.st_dev):02x}:{stat.st_ino}"
    try:
        with open(_LOCKS, encoding="ascii", errors="replace") as locks:
            lines = locks.read().splitlines()
    except OSError:
        return "another process"
    for line in lines:
        fields = line.split()
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == device and fields[4].isdigit():
            return f"process {fields[4]}{_of_user(fields[4])}"
    return "another process"


def _of_user(pid: str) -> str:
    try:
        uid = os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return ""
    try:
        return f" of user {pwd.getpwuid(uid).pw_name}"
    except KeyError:
        return f" of user {uid}"
