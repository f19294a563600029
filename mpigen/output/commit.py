"""How the planned state of an output folder replaces what DIR holds: a failed or killed
run leaves DIR exactly as it was or, once it has finished, the complete new state.

- Writers of one folder take turns (mpigen.output.lock).
- Every new file is written and the file system flushed before the first rename: a full
  disk stops the run early (mpigen.output.files).
- A change to a small part of DIR (at most one file in IN_PLACE_SHARE: a blueprint or two of
  a repository) is written in place with a journal (mpigen.output.in_place): only the files
  whose bytes change are touched, and the renames take an instant. A larger one is built as
  a copy of DIR beside it and swapped in with one rename (mpigen.output.swap), which costs
  a link per file of DIR. Where DIR cannot be swapped, every change is written in place.
- Which files change is found before (mpigen.output.changes): a file whose stat is what
  mpigen saw when it last read or wrote it is not read again to be compared.
- The next run repairs a killed one (mpigen.output.recovery).
- A refusal of the machine (no space, no permission, a read-only file system) is a
  WriteFailed naming the path (mpigen.output.failure: an error line, exit 2).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from mpigen.cache.folders import FolderRecord
from mpigen.output.failure import WriteFailed
from mpigen.output.files import ROOT
from mpigen.output.in_place import in_place
from mpigen.output.index import INDEX
from mpigen.output.swap import create, swap

# Errors of the swap that the in-place write may not meet: a mount point, hard links or
# renames the file system or the permissions refuse.
_FALLBACK = {errno.EXDEV, errno.EBUSY, errno.EPERM, errno.EACCES, errno.EMLINK, errno.EINVAL, errno.ENOTSUP}
IN_PLACE_SHARE = 16  # a change to at most one file in this many of DIR's is written in place


def commit(out: Path, plan, record: FolderRecord) -> None:
    """Make `out` hold the planned files (mpigen.output.plan.FolderPlan: the index among them,
    the changed ones and their stats found by mpigen.output.changes) and no longer the stale
    ones; `record` is what mpigen saw of the folder (kept up to date)."""
    tree, changed, stale = plan.tree, plan.changed, plan.stale
    if tree is None:
        return create(out, plan.files)
    if not changed and not stale:
        return record.save()  # already the new state
    dirs = _dir_stats(out, tree)
    small = (len(changed) + len(stale)) * IN_PLACE_SHARE <= len(tree.files)
    if not small and _can_swap(out, dirs):
        try:
            return swap(out, tree, changed, plan.metas, set(stale), dirs)
        except WriteFailed as failed:
            if failed.cause.errno not in _FALLBACK:
                raise
    in_place(out, tree, {**changed, INDEX: plan.files[INDEX]}, plan.metas, stale)  # the index: the commit
    record.save()


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
    return ROOT or all(st.st_uid == os.geteuid() for st in dirs.values())
