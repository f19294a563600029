"""`mpigen import -o DIR`: new files only, all or nothing.

Every target path must not exist as anything (a dangling symbolic link included), and
each file is created with O_EXCL|O_NOFOLLOW, so nothing that was there is ever
overwritten or followed. When a write fails, the files and folders this run created are
removed again, so a failed import leaves DIR as it was; the cause is exit 2 naming the
path.
"""

from __future__ import annotations

import os
from pathlib import Path

from mpigen.errors import InputError, Mark, error

FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
REFUSE = "refusing to overwrite an existing file; move it away or choose another -o folder"


def write_new_files(folder: Path, files: dict[str, bytes]) -> None:
    targets = {folder / relative: data for relative, data in files.items()}
    taken = [path for path in targets if _taken(path)]
    if taken:
        raise InputError([error(Mark(p.as_posix()), REFUSE) for p in taken])
    made_files: list[Path] = []
    made_folders: list[Path] = []
    try:
        for path, data in targets.items():
            _make_folders(path.parent, made_folders)
            _write_new(path, data, made_files)
    except BaseException:
        _undo(made_files, made_folders)
        raise


def _taken(path: Path) -> bool:
    """Whether anything is at path (os.lstat: a link counts, even one leading nowhere)."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False  # a missing folder on the way, or a file there, is _make_folders' to report
    except OSError as exc:
        raise InputError([error(Mark(path.as_posix()), f"cannot check this path: {exc.strerror}")]) from None
    return True


def _make_folders(folder: Path, made: list[Path]) -> None:
    missing = []
    for parent in [folder, *folder.parents]:
        if parent == Path(parent.anchor) or os.path.isdir(parent):
            break
        missing.append(parent)
    for parent in reversed(missing):
        try:
            os.mkdir(parent)
        except OSError as exc:
            why = "a file is in the way" if isinstance(exc, (FileExistsError, NotADirectoryError)) else exc.strerror
            raise InputError([error(Mark(parent.as_posix()), f"cannot create this folder: {why}")]) from None
        made.append(parent)


def _write_new(path: Path, data: bytes, made: list[Path]) -> None:
    try:
        fd = os.open(path, FLAGS, 0o666)
    except FileExistsError:
        raise InputError([error(Mark(path.as_posix()), REFUSE)]) from None
    except OSError as exc:
        raise InputError([error(Mark(path.as_posix()), f"cannot write: {exc.strerror}")]) from None
    made.append(path)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except OSError as exc:
        raise InputError([error(Mark(path.as_posix()), f"cannot write: {exc.strerror}")]) from None
    finally:
        os.close(fd)


def _undo(files: list[Path], folders: list[Path]) -> None:
    """Remove what this run created (and only that), newest first."""
    for path in reversed(files):
        try:
            os.unlink(path)
        except OSError:
            pass
    for folder in reversed(folders):
        try:
            os.rmdir(folder)
        except OSError:
            pass
