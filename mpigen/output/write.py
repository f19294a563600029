"""`mpigen render -o DIR`: the output folder made to hold the planned state (see
mpigen.output.plan) in one step, under the writers' lock, after repairing what killed runs
left. A file mpigen wrote and someone edited since is never overwritten unless the user
discards the edit (mpigen.output.changes). A failed or killed run leaves DIR as it was
(how: mpigen.output.commit), and a machine's refusal (no space, no permission) is an error
naming the path (exit 2). DIR/.mpigen-index records what mpigen wrote (see
mpigen.output.index).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path, PurePosixPath

from mpigen.cache.folders import FolderRecord
from mpigen.errors import Diagnostic, InputError, Warn
from mpigen.output.changes import find_changes
from mpigen.output.commit import commit
from mpigen.output.failure import WriteFailed, machine_error, relative
from mpigen.output.in_place import in_place
from mpigen.output.lock import writer_lock
from mpigen.output.plan import FolderPlan, plan_folder
from mpigen.output.recovery import recover_abandoned
from mpigen.output.tree import Tree


def write_folder(out: Path, texts: dict[str, str], scope: tuple[str, ...] = ("",), cache: Path | None = None,
                 discard_edits: bool = False, warn: Warn | None = None) -> list[Diagnostic]:
    """Make `out` hold the planned state (see plan_folder) in one step, and return the
    plan's warnings; with the cache folder `cache`, what mpigen saw of the folder's files is
    kept there (mpigen.cache.folders). A file edited by hand is replaced only with
    `discard_edits` (mpigen.output.changes). A wait for the writers' lock is said to `warn`
    (mpigen.output.lock), as refusals and patch_folder say theirs. Raises InputError, having
    changed nothing, when it cannot."""
    made = []
    try:
        made = _make_parents(out)
        with writer_lock(out, warn):
            _repair(out)
            record = FolderRecord(cache, out)
            plan = planned(out, texts, scope, record, discard_edits)
            if plan.problems:
                raise InputError(plan.problems + plan.warnings)
            commit(out, plan, record)
    except WriteFailed as failed:
        _remove_parents(made)
        raise machine_error(out, failed) from None
    except OSError as exc:  # a refusal of the machine not foreseen above: whether DIR is intact is unknown
        _remove_parents(made)
        raise machine_error(out, WriteFailed(relative(out, exc.filename), exc, intact=False)) from None
    except BaseException:
        _remove_parents(made)
        raise
    return plan.warnings


def refusals(out: Path, texts, scope: tuple[str, ...] = ("",), cache: Path | None = None,
             discard_edits: bool = False, warn: Warn | None = None) -> list[Diagnostic]:
    """The problems write_folder would stop at in `out`, found without writing there (but
    repairing what a killed run left, which a write would do first), so that every folder of
    a run is checked before any is written. Raises InputError when `out` cannot be read."""
    try:
        with writer_lock(out, warn):
            _repair(out)
            return planned(out, texts, scope, FolderRecord(cache, out), discard_edits).problems
    except WriteFailed as failed:
        raise machine_error(out, failed) from None


def planned(out: Path, texts, scope: tuple[str, ...], record: FolderRecord, discard_edits: bool) -> FolderPlan:
    """The plan of `out` (plan_folder) with the files whose bytes change, and those edited by
    hand among them (mpigen.output.changes)."""
    plan = plan_folder(out, texts, scope)
    if plan.tree is not None:
        find_changes(out, plan, record, discard_edits)
    return plan


def patch_folder(out: Path, expected: dict[str, bytes], changes: dict[str, bytes], cache: Path,
                 warn: Warn | None = None) -> bool:
    """When `out` holds the files `expected` (path -> sha256, the index among them), as the
    record of the cache folder `cache` or their bytes say, write `changes` (new bytes of some
    of them, the index among them) in place, under the writers' lock; False, having written
    nothing, when it does not (the caller then writes the whole plan)."""
    try:
        with writer_lock(out, warn):
            _repair(out)
            record = FolderRecord(cache, out)
            if not record.holds(out.as_posix(), expected):
                return False
            if changes:
                metas = {path: os.lstat(f"{out}/{path}") for path in changes}
                folders = {str(p) for path in changes for p in PurePosixPath(path).parents if str(p) != "."}
                in_place(out, Tree(set(changes), folders, set(), set()), changes, metas, [])
            record.save()
    except WriteFailed as failed:
        raise machine_error(out, failed) from None
    except OSError as exc:
        raise machine_error(out, WriteFailed(relative(out, exc.filename), exc, intact=False)) from None
    return True


def _repair(out: Path) -> None:
    """Repair what killed runs left beside and inside `out` (under the writers' lock)."""
    try:
        recover_abandoned(out)
    except OSError as exc:
        raise WriteFailed("", exc, "cannot repair what an interrupted run left") from exc


def _make_parents(out: Path) -> list[Path]:
    """Create the missing folders above `out`; returns them, the outermost first (none
    are left behind when one cannot be made)."""
    made: list[Path] = []
    folder = out
    try:
        for folder in [p for p in reversed(out.parents) if str(p) not in ("", ".")]:
            if folder.is_dir():
                continue
            if os.path.lexists(folder):  # a file in the way
                raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
            folder.mkdir()
            made.append(folder)
    except OSError as exc:
        _remove_parents(made)
        raise WriteFailed("", exc, f"cannot create the folder {folder.as_posix()}") from exc
    return made


def _remove_parents(made: list[Path]) -> None:
    for folder in reversed(made):
        try:
            folder.rmdir()
        except OSError:
            break
