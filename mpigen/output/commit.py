"""How the planned state of an output folder replaces what DIR holds: a failed or killed
run leaves DIR exactly as it was or, once it has finished, the complete new state.

- Writers of one folder take turns (an flock on DIR's parent, from before DIR is read).
- Every new file is written and the file system flushed (one syncfs; a fsync per file
  costs milliseconds each) before the first rename: a full disk stops the run early.
- The swap: the new state is built beside DIR, folders recreated with their owner and
  mode, unchanged and foreign files hard-linked (they keep theirs), a rewritten file
  given the owner and mode of the one it replaces; one atomic rename exchanges the two.
- In place, where DIR cannot be swapped (a mount point; a parent this user may not write
  into; folders this user could not recreate as they are): the changed files are staged
  in a hidden folder inside DIR with a journal, then renamed in one by one, each file
  replaced or removed kept as a backup, the index last (the commit). An error before
  the commit puts every backup back.
- The next run repairs a killed one: what it left beside DIR is removed (a backup of DIR
  with no DIR is put back); what it staged inside DIR is rolled back (forward, once the
  index is in).
- A refusal of the machine (no space, no permission, a read-only file system) is a
  WriteFailed naming the path; mpigen.output.folder makes it an error line (exit 2).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import json
import os
import re
import shutil
import tempfile
from pathlib import Path, PurePosixPath

from mpigen.output.index import INDEX

# Beside DIR: .<DIR>.mpigen-<pid>-<random> (the new state being built, or after the swap
# the old one) and .<DIR>.mpigen-old-<pid>-<random> (DIR itself, where the system cannot
# exchange two folders); inside DIR: .mpigen-stage-<pid>-<random>. The process id tells a
# killed run's folders (its process is gone) from those of a run still going.
STAGING, OLD, INSIDE = "mpigen-", "mpigen-old-", ".mpigen-stage-"
JOURNAL = "journal.json"
_ROOT = os.geteuid() == 0
# Errors of the swap that the in-place write may not meet: a mount point, hard links or
# renames the file system or the permissions refuse.
_FALLBACK = {errno.EXDEV, errno.EBUSY, errno.EPERM, errno.EACCES, errno.EMLINK, errno.EINVAL, errno.ENOTSUP}


class WriteFailed(Exception):
    """The machine refused: `path` (relative to DIR; "" for DIR itself) could not be
    written or read, because of `cause`; `intact`: DIR is as it was."""

    def __init__(self, path: str, cause: OSError, doing: str = "cannot write", intact: bool = True):
        super().__init__(f"{path}: {doing}: {cause.strerror or cause}")
        self.path, self.cause, self.doing, self.intact = path, cause, doing, intact


@contextlib.contextmanager
def writer_lock(out: Path):
    """Hold the lock of `out` (on its parent folder, which a swap does not replace). Where
    the parent cannot be opened or locked (some network file systems), run unlocked."""
    try:
        fd = os.open(out.parent if str(out.parent) else ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        yield
        return
    try:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def commit(out: Path, tree, files: dict[str, bytes], stale: list[str]) -> None:
    """Make `out` hold `files` (the index among them) and no longer the `stale` ones."""
    if tree is None:
        return _create(out, files)
    metas, changed = _compare(out, tree, files)
    if not changed and not stale:
        return None  # already the new state
    dirs = _dir_stats(out, tree)
    if _can_swap(out, dirs):
        try:
            return _swap(out, tree, changed, metas, set(stale), dirs)
        except WriteFailed as failed:
            if failed.cause.errno not in _FALLBACK:
                raise
    return _in_place(out, tree, {**changed, INDEX: files[INDEX]}, metas, stale)  # the index: the commit


def _compare(out: Path, tree, files: dict[str, bytes]):
    """The stat of every existing file the render writes, and the files whose bytes change."""
    metas, changed = {}, {}
    rel = ""
    try:
        for rel, data in files.items():
            if rel not in tree.files:
                changed[rel] = data
                continue
            path = f"{out}/{rel}"
            metas[rel] = meta = os.lstat(path)
            if meta.st_size != len(data):
                changed[rel] = data
                continue
            with open(path, "rb") as handle:
                if handle.read() != data:
                    changed[rel] = data
    except OSError as exc:
        raise WriteFailed(rel, exc, "cannot read") from exc
    return metas, changed


def _dir_stats(out: Path, tree) -> dict[str, os.stat_result]:
    rel = ""
    try:
        stats = {"": os.stat(out)}
        for rel in tree.dirs:
            stats[rel] = os.lstat(f"{out}/{rel}")
    except OSError as exc:
        raise WriteFailed(rel, exc, "cannot read") from exc
    return stats


def _can_swap(out: Path, dirs: dict[str, os.stat_result]) -> bool:
    """Whether DIR can be rebuilt beside itself with every folder as it is."""
    if out.name in ("", ".", "..") or os.path.ismount(out) or not os.access(out.parent, os.W_OK):
        return False
    return _ROOT or all(st.st_uid == os.geteuid() for st in dirs.values())


def _keep_meta(meta: os.stat_result, target) -> None:
    """Give `target` (a path or an open file) the owner (as root; as another user, the
    group where it may) and the mode of what it replaces."""
    if _ROOT:
        os.chown(target, meta.st_uid, meta.st_gid)
    elif meta.st_gid != os.getegid():
        with contextlib.suppress(PermissionError):
            os.chown(target, -1, meta.st_gid)
    os.chmod(target, meta.st_mode & 0o7777)


def _write_files(root: Path, files: dict[str, bytes], metas: dict) -> None:
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
                    _keep_meta(metas[rel], fd)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
    except OSError as exc:
        raise WriteFailed(rel, exc) from exc


def _flush(folder: Path) -> None:
    """Write what is cached of the file system of `folder` to disk, and report a write
    that failed late (a full disk found only now, an I/O error)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise WriteFailed("", exc) from exc
    try:
        syncfs = getattr(ctypes.CDLL(None, use_errno=True), "syncfs", None)
        if syncfs is None:
            os.sync()
        elif syncfs(fd) != 0:
            code = ctypes.get_errno()
            raise WriteFailed("", OSError(code, os.strerror(code)))
    finally:
        os.close(fd)


def _beside(out: Path, kind: str = STAGING, doing: str = "cannot create a folder beside it") -> Path:
    try:
        return Path(tempfile.mkdtemp(prefix=f".{out.name}.{kind}{os.getpid()}-", dir=out.parent))
    except OSError as exc:
        raise WriteFailed("", exc, doing) from exc


def _create(out: Path, files: dict[str, bytes]) -> None:
    """A new output folder: built beside, flushed, renamed into place."""
    staging = _beside(out, doing="cannot create the folder")
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(staging, 0o777 & ~umask)
        _write_files(staging, files, {})
        _flush(staging)
        try:
            os.rename(staging, out)
        except OSError as exc:
            raise WriteFailed("", exc) from exc
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _swap(out: Path, tree, changed, metas, stale: set[str], dirs) -> None:
    """Build the new state beside `out`, then exchange the two folders."""
    staging = _beside(out)
    rel = ""
    try:
        try:
            _keep_meta(dirs[""], staging)
            for rel in sorted(tree.dirs):  # a folder before what it holds
                os.mkdir(f"{staging}/{rel}")
                _keep_meta(dirs[rel], f"{staging}/{rel}")
            for rel in tree.links:
                os.symlink(os.readlink(f"{out}/{rel}"), f"{staging}/{rel}")
                if _ROOT:
                    meta = os.lstat(f"{out}/{rel}")
                    os.chown(f"{staging}/{rel}", meta.st_uid, meta.st_gid, follow_symlinks=False)
            for rel in sorted((tree.files | tree.others) - stale):
                if rel not in changed:
                    os.link(f"{out}/{rel}", f"{staging}/{rel}")
        except OSError as exc:
            raise WriteFailed(rel, exc) from exc
        _write_files(staging, changed, metas)
        _remove_empty_dirs(staging, {str(PurePosixPath(p).parent) for p in stale})
        _flush(staging)
        _exchange(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(staging, ignore_errors=True)  # now holds the old state


def _remove_empty_dirs(root: Path, candidates: set[str]) -> None:
    for rel in sorted(candidates, key=lambda p: -len(PurePosixPath(p).parts)):
        path = PurePosixPath(rel)
        while str(path) not in ("", "."):
            try:
                (root / path).rmdir()
            except OSError:
                break
            path = path.parent


def _exchange(a: Path, b: Path) -> None:
    """Atomically swap two folders (Linux renameat2 RENAME_EXCHANGE); elsewhere, two renames."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        renameat2 = None
    if renameat2 is not None:
        at_fdcwd, rename_exchange = -100, 2
        if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
            raise WriteFailed("", OSError(code, os.strerror(code)))
    backup = _beside(b, OLD)
    try:
        os.rmdir(backup)
        os.rename(b, backup)
        try:
            os.rename(a, b)
        except BaseException:
            os.rename(backup, b)
            raise
        os.rename(backup, a)
    except OSError as exc:
        raise WriteFailed("", exc) from exc


def _in_place(out: Path, tree, changed: dict[str, bytes], metas, stale: list[str]) -> None:
    """Stage the changed files inside `out`, then rename them in, the index last."""
    try:
        stage = Path(tempfile.mkdtemp(prefix=f"{INSIDE}{os.getpid()}-", dir=out))
    except OSError as exc:
        raise WriteFailed("", exc) from exc
    needed = {str(p) for rel in changed for p in PurePosixPath(rel).parents if str(p) != "."}
    journal = {"folders": sorted(needed - tree.dirs), "paths": sorted(changed), "stale": stale,
               "new": sorted(p for p in changed if p not in tree.files)}
    try:
        _write_files(stage / "new", changed, metas)
        _write_files(stage, {JOURNAL + ".tmp": json.dumps(journal).encode("utf-8")}, {})
        try:
            os.rename(stage / (JOURNAL + ".tmp"), stage / JOURNAL)
        except OSError as exc:
            raise WriteFailed("", exc) from exc
        _flush(stage)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    rel = ""
    try:
        for rel in journal["folders"]:
            os.mkdir(f"{out}/{rel}")
        for rel in [p for p in journal["paths"] if p != INDEX]:
            if rel in tree.files:
                _back_up(out, stage, rel, keep=True)
            os.rename(f"{stage}/new/{rel}", f"{out}/{rel}")
        for rel in stale:
            _back_up(out, stage, rel, keep=False)
        rel = INDEX
        os.rename(f"{stage}/new/{INDEX}", f"{out}/{INDEX}")
    except BaseException as exc:
        try:
            _roll_back(out, stage)
        except OSError as undo:  # the next run rolls back what is left
            raise WriteFailed(rel, exc if isinstance(exc, OSError) else undo,
                              "cannot write, nor undo what was written (run mpigen again to repair it)", False) from undo
        if isinstance(exc, OSError):
            raise WriteFailed(rel, exc) from exc
        raise
    shutil.rmtree(stage, ignore_errors=True)
    _remove_empty_dirs(out, {str(PurePosixPath(p).parent) for p in stale})


def _back_up(out: Path, stage: Path, rel: str, keep: bool) -> None:
    """Keep the file at `rel` as stage/old/rel: a second name for it while it stays in
    place (`keep`; where hard links are refused, moved), or moved there."""
    backup = f"{stage}/old/{rel}"
    os.makedirs(os.path.dirname(backup), exist_ok=True)
    if keep:
        try:
            os.link(f"{out}/{rel}", backup)
            return
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.EMLINK, errno.EXDEV, errno.ENOTSUP):
                raise
    os.rename(f"{out}/{rel}", backup)


def _roll_back(out: Path, stage: Path) -> None:
    """Undo what the in-place write staged in `stage` did to `out`, unless it committed
    (its index is renamed in already); then remove `stage`."""
    try:
        journal = json.loads((stage / JOURNAL).read_bytes())
    except (OSError, ValueError):
        journal = None  # not written yet: nothing was renamed
    if journal is not None and os.path.lexists(stage / "new" / INDEX):
        new = set(journal["new"])
        for rel in journal["paths"] + journal["stale"]:
            if os.path.lexists(f"{stage}/old/{rel}"):
                os.rename(f"{stage}/old/{rel}", f"{out}/{rel}")
            elif rel in new and not os.path.lexists(f"{stage}/new/{rel}"):
                Path(out, rel).unlink(missing_ok=True)
        for rel in reversed(journal["folders"]):
            with contextlib.suppress(OSError):
                os.rmdir(f"{out}/{rel}")
    shutil.rmtree(stage, ignore_errors=True)


def recover_abandoned(out: Path) -> list[Path]:
    """Repair what killed runs left beside and inside `out`; returns the folders removed,
    restored or rolled back."""
    parent = out.parent if str(out.parent) else Path(".")
    beside = re.compile(rf"^\.{re.escape(out.name)}\.({re.escape(OLD)}|{re.escape(STAGING)})(\d+)-[^/]+$")
    inside = re.compile(rf"^{re.escape(INSIDE)}(\d+)-[^/]+$")
    repaired = []
    for entry in _entries(parent):
        match = beside.match(entry.name)
        if not match or not entry.is_dir(follow_symlinks=False) or _alive(int(match.group(2))):
            continue
        path = Path(entry.path)
        if match.group(1) == OLD and not out.exists():
            os.rename(path, out)  # killed between the two renames: the old state goes back
        else:
            shutil.rmtree(path, ignore_errors=True)
        repaired.append(path)
    for entry in _entries(out) if out.is_dir() and not out.is_symlink() else []:
        match = inside.match(entry.name)
        if match and entry.is_dir(follow_symlinks=False) and not _alive(int(match.group(1))):
            _roll_back(out, Path(entry.path))
            repaired.append(Path(entry.path))
    return repaired


def _entries(folder: Path) -> list[os.DirEntry]:
    try:
        return sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # another user's process, or no process id at all
        pass
    return True
