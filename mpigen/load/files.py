"""Input files: found under the paths given, and read safely (never blocking, never skipped silently).

What cannot be read is an error that says why and what to do (a fix hint by where the input
comes from); a FIFO or device is never opened, a file is read up to a size limit, and it
must be UTF-8 text.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from mpigen.errors import Diagnostic, InputError, Mark, error

MAX_FILE_BYTES = 4 * 1024 * 1024
YAML_SUFFIXES = (".yaml", ".yml")


def display_path(path: Path) -> str:
    """The path as it appears in messages and in output: relative to the working folder
    when it lies below it (so output bytes do not depend on where the repo is checked out)."""
    if not path.is_absolute() and ".." not in path.parts:
        return path.as_posix()  # what relpath gives, without its cost (a path has no "." parts)
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path.as_posix()
    if rel.startswith(".."):
        return path.as_posix()
    return Path(rel).as_posix()


class Unreadable(InputError):
    """An input that cannot be read at all (missing, a broken link, no permission, not a
    regular file or folder). Unlike a file that was read and is not YAML, it is never
    skipped: dropping it would drop its jobs from the output, and GitOps would prune them."""

    missing = False  # nothing at all at the path (not even a broken link)


# What a user can do about an input mpigen cannot read, by where the input comes from.
NAMED = "or leave it off the command line"
SEARCHED = "or move it out of the searched folder"
WORKING_FOLDER = "or run mpigen in another folder"  # mpigen.yaml, read from the working folder

_SPECIAL = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
            (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def stat_input(path: Path, shown: str, fix: str = NAMED) -> os.stat_result:
    """The status of an input path (links followed), a regular file or a folder; else
    Unreadable, saying why and how to fix it (`fix` completes "make it readable (chmod)
    ..."). Nothing is opened, so a FIFO or a device cannot block or be woken up.
    Unreadable.missing tells a path that does not exist from one that cannot be read."""
    try:
        status = os.stat(path)
    except OSError as exc:
        problem = Unreadable([error(Mark(shown), _stat_problem(path, exc, fix))])
        problem.missing = exc.errno == errno.ENOENT and not os.path.islink(path)
        raise problem
    mode = status.st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise Unreadable([error(Mark(shown), special_problem(mode, fix))])
    return status


def special_problem(mode: int, fix: str) -> str:
    kind = next((name for test, name in _SPECIAL if test(mode)), "a special file")
    return f"is {kind}, not a regular file or folder; use a regular file {fix}"


def _stat_problem(path: Path, exc: OSError, fix: str) -> str:
    if exc.errno == errno.ELOOP or (exc.errno == errno.ENOENT and os.path.islink(path)):
        return "a symbolic link that leads nowhere (or in a loop); remove it or fix its target"
    if exc.errno == errno.ENOENT:
        return "no such file or folder"
    return unreadable_problem("path", exc, fix)


def unreadable_problem(what: str, exc: OSError, fix: str) -> str:
    """'cannot read file: Permission denied; make it readable (chmod a+r) or ...'; what is
    "file", "folder", or "path" (a folder above it cannot be searched)."""
    reason = exc.strerror or str(exc)
    if exc.errno not in (errno.EACCES, errno.EPERM):
        return f"cannot read {what}: {reason}"
    if what == "path":
        return f"cannot reach it: {reason}; make the folders above it searchable (chmod a+x) {fix}"
    return f"cannot read {what}: {reason}; make it readable (chmod {'a+rx' if what == 'folder' else 'a+r'}) {fix}"


def read_text(path: Path, shown: str, fix: str = NAMED) -> str:
    """The file's text, or an InputError that says why it cannot be read as YAML
    (Unreadable when it cannot be read at all)."""
    return decode_text(read_raw(path, shown, fix), shown)


def read_raw(path: Path, shown: str, fix: str = NAMED) -> bytes:
    """The file's bytes, at most MAX_FILE_BYTES + 1 of them (decode_text refuses more), or
    Unreadable that says why they cannot be read."""
    if stat.S_ISDIR(stat_input(path, shown, fix).st_mode):
        raise InputError([error(Mark(shown), "is a folder where a file was expected")])
    try:
        # O_NONBLOCK: should the path become a FIFO after the check above, reading it
        # ends at once instead of waiting for a writer.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise Unreadable([error(Mark(shown), unreadable_problem("file", exc, fix))])
    with open(fd, "rb", buffering=0) as handle:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise Unreadable([error(Mark(shown), special_problem(status.st_mode, fix))])
        try:
            # A buffer of the file's size (one of MAX_FILE_BYTES would cost a memory map per
            # file), then the rest, should the file have grown since.
            data = handle.read(min(status.st_size, MAX_FILE_BYTES) + 1)
            while len(data) <= MAX_FILE_BYTES and (more := handle.read(MAX_FILE_BYTES + 1 - len(data))):
                data += more
            return data
        except OSError as exc:
            raise Unreadable([error(Mark(shown), unreadable_problem("file", exc, fix))])


def decode_text(raw: bytes, shown: str) -> str:
    """The text of a file's bytes (from read_raw), or an InputError: too large, binary, or not UTF-8."""
    if len(raw) > MAX_FILE_BYTES:
        raise InputError([error(Mark(shown), f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; "
                                              "a blueprint is a short YAML file")])
    nul = raw.find(b"\0")
    if nul >= 0:
        raise InputError([error(_byte_mark(raw, nul, shown), "binary file (contains a NUL byte); expected a UTF-8 YAML file")])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError([error(_byte_mark(raw, exc.start, shown),
                                "file is not valid UTF-8; save it as UTF-8 text")])
    return text[1:] if text.startswith("\ufeff") else text


def input_exists(path: Path, shown: str, fix: str = NAMED) -> bool:
    """Whether there is anything at path (a broken link included); Unreadable when that
    cannot be known (a folder on the way that may not be searched)."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise Unreadable([error(Mark(shown), unreadable_problem("path", exc, fix))])
    return True


def _byte_mark(raw: bytes, offset: int, shown: str) -> Mark:
    before = raw[:offset]
    line = before.count(b"\n") + 1
    column = len(before) - (before.rfind(b"\n") + 1) + 1
    return Mark(shown, line, column)


def find_yaml_files(paths: list[Path]) -> tuple[list[tuple[Path, bool]], list[Diagnostic]]:
    """Files to read, each with whether the user named it directly. Folders are searched
    recursively for *.yaml/*.yml (hidden folders skipped), in a fixed order so that output
    never depends on the file system's listing order. What cannot be read is an error,
    never skipped: a folder that cannot be listed, a file that cannot be reached, and a
    FIFO, socket or device (never opened: that could block). Symbolic links met in a search
    are refused where they could loop or leave the repository: a link to a folder, a link
    that leads nowhere, and a link to a file outside both the searched folder and the
    working folder."""
    found: list[tuple[Path, bool]] = []
    problems: list[Diagnostic] = []
    seen: set[str] = set()
    for path in paths:
        try:
            status = stat_input(path, display_path(path))
        except Unreadable as exc:
            problems.extend(exc.diagnostics)
            continue
        files = _search(path, problems) if stat.S_ISDIR(status.st_mode) else [(path, True)]
        for file, named in files:
            if file.as_posix() not in seen:
                seen.add(file.as_posix())
                found.append((file, named))
    return found, problems


def _search(folder: Path, problems: list[Diagnostic]) -> list[tuple[Path, bool]]:
    """The regular *.yaml/*.yml files below folder, in path order; what cannot be read, or
    is not a regular file, goes to problems. Each folder is listed once (os.scandir), and
    the listing says what each name is, so that a file costs no system call of its own."""
    found = []
    for file, entry in sorted(_listed(folder, problems), key=lambda item: item[0].as_posix()):
        try:
            if entry.is_symlink():
                problem = _link_problem(file, (folder.resolve(), Path.cwd().resolve()))
                if problem:
                    problems.append(error(Mark(display_path(file)), problem))
                    continue
                mode = stat_input(file, display_path(file), SEARCHED).st_mode
            elif entry.is_file(follow_symlinks=False):
                mode = stat.S_IFREG
            else:
                mode = entry.stat(follow_symlinks=False).st_mode
        except Unreadable as exc:
            problems.extend(exc.diagnostics)
            continue
        except OSError as exc:
            problems.append(error(Mark(display_path(file)), unreadable_problem("path", exc, SEARCHED)))
            continue
        if stat.S_ISREG(mode):
            found.append((file, False))
        elif not stat.S_ISDIR(mode):  # (a name the listing could not tell was a folder, now one: not a file)
            problems.append(error(Mark(display_path(file)), special_problem(mode, SEARCHED)))
    return found


def _listed(folder: Path, problems: list[Diagnostic]) -> list[tuple[Path, os.DirEntry]]:
    """The *.yaml/*.yml names below folder that are not folders, with their listing entries,
    hidden names and folders left out, folders searched in name order, as os.walk (top down,
    links to folders not followed) finds them; a folder that cannot be listed and a link to a
    folder go to problems."""
    files = []
    pending = [folder]
    while pending:
        here = pending.pop()
        try:
            with os.scandir(here) as listing:
                entries = list(listing)
        except OSError as exc:
            where = Path(exc.filename) if exc.filename else here
            problems.append(error(Mark(display_path(where)), unreadable_problem("folder", exc, SEARCHED)))
            continue
        folders = []
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            try:
                is_folder = entry.is_dir()
            except OSError:
                is_folder = False
            if is_folder and entry.is_symlink():
                problems.append(error(Mark(display_path(here / name)),
                                      "a symbolic link to a folder: mpigen does not follow them (they can "
                                      "loop or lead out of the repository); name the folder itself"))
            elif is_folder:
                folders.append(name)
            elif name.endswith(YAML_SUFFIXES):
                files.append((here / name, entry))
        pending.extend(here / name for name in sorted(folders, reverse=True))
    return files


def _link_problem(file: Path, bounds: tuple[Path, ...]) -> str | None:
    try:
        target = file.resolve(strict=True)
    except (OSError, RuntimeError):  # nowhere, or a loop
        return "a symbolic link that leads nowhere (or in a loop); remove it or fix its target"
    if not any(target == b or b in target.parents for b in bounds):
        return (f"a symbolic link to {target.as_posix()}, outside the searched folder and the repository; "
                "copy the file in, or name it on the command line")
    return None
