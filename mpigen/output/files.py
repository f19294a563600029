"""The file operations of a commit: new files written with the owner and mode of the
files they replace, the file system flushed to disk (one syncfs: a fsync per file costs
milliseconds each), and folders emptied by removed files removed."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path, PurePosixPath

from mpigen.output.failure import WriteFailed

ROOT = os.geteuid() == 0


def keep_meta(meta: os.stat_result, target) -> None:
    """Give `target` (a path or an open file) the owner (as root; as another user, the
    group where it may) and the mode of what it replaces."""
    if ROOT:
        os.chown(target, meta.st_uid, meta.st_gid)
    elif meta.st_gid != os.getegid():
        with contextlib.suppress(PermissionError):
            os.chown(target, -1, meta.st_gid)
    os.chmod(target, meta.st_mode & 0o7777)


def write_files(root: Path, files: dict[str, bytes], metas: dict) -> None:
    """Write `files` under the new folder `root`, each new file with the usual mode, each
    rewritten one with the owner and mode of the file it replaces."""
    made: set[str] = set()
    base = str(root)
    rel = ""
    try:
        os.makedirs(base, exist_ok=True)  # the in-place write's stage/new, even when every file is at the top
        for rel, data in files.items():
            folder = rel.rpartition("/")[0]
            if folder and folder not in made:
                os.makedirs(f"{base}/{folder}", exist_ok=True)
                made.add(folder)
            fd = os.open(f"{base}/{rel}", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
            try:
                if rel in metas:
                    keep_meta(metas[rel], fd)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
    except OSError as exc:
        raise WriteFailed(rel, exc) from exc


def flush(folder: Path) -> None:
    """Write what is cached of the file system of `folder` to disk, and report a write
    that failed late (a full disk found only now, an I/O error)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise WriteFailed("", exc) from exc
    import ctypes  # only a write of a new folder flushes (check, --stdout and most patches never do)

    try:
        syncfs = getattr(ctypes.CDLL(None, use_errno=True), "syncfs", None)
        if syncfs is None:
            os.sync()
        elif syncfs(fd) != 0:
            code = ctypes.get_errno()
            raise WriteFailed("", OSError(code, os.strerror(code)))
    finally:
        os.close(fd)


def remove_empty_dirs(root: Path, candidates: set[str]) -> None:
    for rel in sorted(candidates, key=lambda p: -len(PurePosixPath(p).parts)):
        path = PurePosixPath(rel)
        while str(path) not in ("", "."):
            try:
                (root / path).rmdir()
            except OSError:
                break
            path = path.parent
