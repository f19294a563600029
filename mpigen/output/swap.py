"""The swap: a new output folder is built beside DIR, flushed and renamed into place; an
existing one is rebuilt beside itself (folders recreated with their owner and mode,
unchanged and foreign files hard-linked so they keep theirs, a rewritten file given the
owner and mode of the one it replaces), then one atomic rename exchanges the two."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path, PurePosixPath

from mpigen.output.failure import WriteFailed
from mpigen.output.files import ROOT, flush, keep_meta, remove_empty_dirs, write_files
from mpigen.output.scratch import OLD, beside


def create(out: Path, files) -> None:
    """A new output folder: built beside, flushed, renamed into place. Where the render's
    workers wrote its files beside `out` already (StagedFiles.folder), only the files held
    in memory (the kustomizations, the index) are added there; the caller removes that
    folder when the rename did not happen."""
    staged = getattr(files, "folder", None)
    if staged is not None:
        write_files(staged, files.extra, {})
        flush(staged)
        try:
            os.rename(staged, out)
        except OSError as exc:
            raise WriteFailed("", exc) from exc
        return
    staging = beside(out, doing="cannot create the folder")
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(staging, 0o777 & ~umask)
        write_files(staging, files, {})
        flush(staging)
        try:
            os.rename(staging, out)
        except OSError as exc:
            raise WriteFailed("", exc) from exc
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def swap(out: Path, tree, changed, metas, stale: set[str], dirs) -> None:
    """Build the new state beside `out`, then exchange the two folders."""
    staging = beside(out)
    rel = ""
    try:
        try:
            keep_meta(dirs[""], staging)
            for rel in sorted(tree.dirs):  # a folder before what it holds
                os.mkdir(f"{staging}/{rel}")
                keep_meta(dirs[rel], f"{staging}/{rel}")
            for rel in tree.links:
                os.symlink(os.readlink(f"{out}/{rel}"), f"{staging}/{rel}")
                if ROOT:
                    meta = os.lstat(f"{out}/{rel}")
                    os.chown(f"{staging}/{rel}", meta.st_uid, meta.st_gid, follow_symlinks=False)
            for rel in sorted((tree.files | tree.others) - stale):
                if rel not in changed:
                    os.link(f"{out}/{rel}", f"{staging}/{rel}")
        except OSError as exc:
            raise WriteFailed(rel, exc) from exc
        write_files(staging, changed, metas)
        remove_empty_dirs(staging, {str(PurePosixPath(p).parent) for p in stale})
        flush(staging)
        _exchange(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(staging, ignore_errors=True)  # now holds the old state


def _exchange(a: Path, b: Path) -> None:
    """Atomically swap two folders (Linux renameat2 RENAME_EXCHANGE); elsewhere, two renames."""
    import ctypes  # only a swap of a whole folder calls the C library

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
    backup = beside(b, OLD)
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
