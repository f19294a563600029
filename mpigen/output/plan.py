"""The plan of a render's write: what it makes of the output folder (every file's new
bytes, the index included, and the files it removes), or why it cannot be written.

Safety rules:
- a file mpigen did not write (not in the index) is never overwritten or deleted, nor is
  one it wrote and someone changed since, once it no longer produces it (one it still
  produces is refused where the changes are found: mpigen.output.changes);
- files mpigen wrote earlier and no longer produces are removed;
- a name that is not a plain, printable relative path is never written.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from mpigen.errors import Diagnostic, Mark, error, warning
from mpigen.output.failure import WriteFailed, machine_error, relative
from mpigen.output.index import INDEX, Index, digest, index_bytes, read_index, safe_names, unsafe_name
from mpigen.output.staged import StagedFiles
from mpigen.output.tree import Tree


def in_scope(path: str, scope: tuple[str, ...]) -> bool:
    """Whether `path` lies under one of the prefixes of `scope` (the overlays this run renders)."""
    return any(path.startswith(prefix) for prefix in scope)


@dataclass
class FolderPlan:
    """What a render makes of the output folder: every file's new bytes (the index
    included), the files it removes, why it cannot be written (if it cannot), what the
    user should know (an index set aside, a changed file left in place), what the folder
    holds now (None when it does not exist) and the entries of its index mpigen trusts
    (path -> sha256 in hex). The files whose bytes change, with the stat of each that
    exists, are found afterwards (mpigen.output.changes)."""

    files: StagedFiles
    stale: list[str]
    problems: list[Diagnostic]
    warnings: list[Diagnostic] = field(default_factory=list)
    tree: Tree | None = None
    index: dict[str, str] = field(default_factory=dict)
    changed: dict[str, bytes] = field(default_factory=dict)
    metas: dict[str, os.stat_result] = field(default_factory=dict)


def plan_folder(out: Path, texts: dict[str, str] | StagedFiles, scope: tuple[str, ...] = ("",)) -> FolderPlan:
    """The new state of `out` for these files. mpigen owns the files its index lists under
    the prefixes of `scope` (everything by default; `dev/` when only the dev overlay is
    rendered): those it no longer produces are removed (when unchanged since it wrote
    them), its files elsewhere are kept, and a file it does not own is never overwritten.
    `texts` are the files' texts, or their bytes where a render keeps them (StagedFiles,
    read one at a time). Raises InputError when `out` cannot be read."""
    files = texts if isinstance(texts, StagedFiles) else StagedFiles(None, {}, texts)
    if INDEX in files:  # made by an earlier plan of these files: this one makes it anew
        del files[INDEX]
    shown = out.as_posix()
    problems = _name_problems(out, files)
    if problems:
        return FolderPlan(files, [], problems)
    try:
        try:
            exists = stat.S_ISDIR(os.lstat(out).st_mode)
            if not exists:
                problems.append(error(Mark(shown), "output path exists and is not a folder; choose another "
                                                   "output folder"))
                return FolderPlan(files, [], problems)
        except (FileNotFoundError, NotADirectoryError):
            exists = False
        except OSError as exc:
            raise WriteFailed("", exc, "cannot read") from exc
        return _plan(out, files, scope, exists)
    except WriteFailed as failed:
        raise machine_error(out, failed) from None


def _plan(out: Path, files: dict[str, bytes] | StagedFiles, scope: tuple[str, ...], exists: bool) -> FolderPlan:
    shown = out.as_posix()
    try:
        index = read_index(out) if exists else Index()
        tree = Tree.scan(out) if exists else None
    except OSError as exc:
        raise WriteFailed(relative(out, exc.filename), exc, "cannot read") from exc
    old, plan = index.entries, FolderPlan(files, [], [], [], tree, index.entries)
    if index.distrust:
        plan.warnings.append(warning(Mark(f"{shown}/{INDEX}"), f"set aside: {index.distrust}; mpigen owns none of "
                                     f"the files in {shown} this run, and writes a new index"))
    for path in _to_look_at(files, tree, old) if tree else ():  # the problems are sorted when shown
        conflict = tree.conflict(out, path)
        if conflict:
            plan.problems.append(error(Mark(shown), conflict))
        elif path in tree.files and path not in old and _read(out, path) != files[path]:
            plan.problems.append(error(Mark(f"{shown}/{path}"), f"refusing to overwrite {path}: mpigen did not "
                                       f"write it (it is not in {INDEX}); move it away or choose another output "
                                       "folder"))
    ours = {p: d for p, d in old.items() if p not in files and tree and p in tree.files}
    for path, recorded in sorted(ours.items()):
        if in_scope(path, scope):
            if digest(_read(out, path)) == recorded:
                plan.stale.append(path)
            else:
                plan.warnings.append(warning(Mark(f"{shown}/{path}"), "left in place: mpigen wrote it and no "
                                             "longer produces it, but it was changed since; it is yours now: "
                                             "delete it if it is no longer needed"))
            del ours[path]
    digests = files.digests()
    digests.update(ours)  # those mpigen wrote outside the rendered scope, as the old index has them
    files[INDEX] = index_bytes(digests)
    return plan


def _to_look_at(files, tree: Tree, old: dict[str, str]) -> set[str]:
    """The paths that may be in the way or not mpigen's: all but those the index lists that
    are files of the folder already, in real folders (the common case, in set operations)."""
    names = set(files)
    known = names & tree.files & old.keys()
    if {path.rpartition("/")[0] for path in known} <= tree.dirs | {""}:
        return names - known
    return names


def _read(out: Path, path: str) -> bytes:
    try:
        return (out / path).read_bytes()
    except OSError as exc:
        raise WriteFailed(path, exc, "cannot read") from exc


def _name_problems(out: Path, files: dict[str, bytes]) -> list[Diagnostic]:
    """A backstop for names that reach the output unchecked: every path must be plain and
    printable (a newline would be an entry of its own in a listing), and none may be both
    a file and a folder (an overlay named .mpigen-index). One error per name."""
    problems, reported = [], set()
    folders = set()
    for parent in {path.rpartition("/")[0] for path in files}:  # a few hundred, for 60,000 files
        cut = len(parent)
        while cut > 0 and parent[:cut] not in folders:
            folders.add(parent[:cut])
            cut = parent.rfind("/", 0, cut)
    names = [*files, INDEX]
    if safe_names("\n".join(names), len(names)) and folders.isdisjoint(names):
        return []  # every name at once: the common case
    for path in sorted(names):
        if unsafe_name(path) is None and path not in folders:
            continue
        parts = path.split("/")
        for i, part in enumerate(parts):
            prefix = "/".join(parts[:i + 1])
            reason = unsafe_name(part)
            if reason is None and prefix == path and path in folders:
                reason = "it would be both a file and a folder"
            if reason and prefix not in reported:
                reported.add(prefix)
                problems.append(error(Mark(f"{out.as_posix()}/{prefix}"),
                                      f"refusing to write {prefix}: {reason}; rename the overlay folder, "
                                      "namespace or name it comes from"))
            if reason:
                break
    return problems
