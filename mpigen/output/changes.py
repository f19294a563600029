"""The files a planned render changes in the output folder, and among them those edited by hand
since mpigen wrote them, which it never overwrites unless the user discards the edits.

- A file is read only when its stat is not what mpigen saw when it last read or wrote it
  (mpigen.cache.folders): what it holds is known otherwise, so that a render of a large
  folder in which nothing changed reads none of its files.
- A file the index lists whose bytes are neither those the index records nor those the
  render gives was edited by hand: each such file is an error naming it, that says how to
  keep, discard or undo the edit (with DISCARD_EDITS, it is replaced, with a warning).
- A file with exactly the bytes the render gives is kept as it is, whoever wrote it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from mpigen.cache.folders import FolderRecord
from mpigen.errors import Diagnostic, Mark, error, warning
from mpigen.output.failure import WriteFailed
from mpigen.output.index import INDEX, digest
from mpigen.output.plan import FolderPlan

DISCARD_EDITS = "--discard-edits"  # the render flag that takes the user's word that edits may go


def find_changes(out: Path, plan: FolderPlan, record: FolderRecord, discard_edits: bool = False) -> None:
    """Fill plan.changed (path -> new bytes of each file whose bytes change, the new files
    among them) and plan.metas (the stat of each of those that exists, for its owner and
    mode). A file edited by hand is a problem of the plan, or with `discard_edits` a change
    and a warning. Raises WriteFailed when a file cannot be read."""
    tree, files, index = plan.tree, plan.files, plan.index
    root, rel, edited = str(out), "", []
    try:
        present = ((p, d) for p, d in files.sha256s() if p in tree.files)
        for rel, meta, new, held in record.unseen(root, present, os.lstat):
            meta = meta or os.lstat(f"{root}/{rel}")  # gone since the folder was read: says why
            data = files[rel]
            if held is None:  # what it holds is not known: read it
                with open(f"{root}/{rel}", "rb") as handle:
                    current = handle.read()
                if current == data:
                    record.read(rel, meta, new)
                    continue
                held = hashlib.sha256(current).digest()
            if rel in index and held.hex() != index[rel]:
                edited.append(rel)
            plan.changed[rel], plan.metas[rel] = data, meta
        rel = ""
        plan.changed.update((p, files[p]) for p in files if p not in tree.files)
    except OSError as exc:
        raise WriteFailed(rel, exc, "cannot read") from exc
    shown = out.as_posix()
    for rel in edited:
        if discard_edits:
            plan.warnings.append(warning(Mark(f"{shown}/{rel}"), "replaced: it was edited by hand since mpigen "
                                         f"wrote it, and {DISCARD_EDITS} discards the edit"))
        else:
            plan.problems.append(error(Mark(f"{shown}/{rel}"), f"refusing to overwrite {rel}: it was edited by "
                                       f"hand since mpigen wrote it (its bytes are not those {INDEX} records); "
                                       f"{_remedies(shown, rel)}"))


def edited_files(plan: FolderPlan, current: dict[str, bytes]) -> list[str]:
    """Those of the files whose bytes the folder holds (`current`: path -> bytes, each
    different from the render's) that the index lists with other bytes: edited by hand."""
    return sorted(p for p, data in current.items() if p in plan.index and digest(data) != plan.index[p])


def edited_note(out: Path, rel: str) -> Diagnostic:
    """What check says of a file edited by hand, beside its diff: render will refuse it."""
    shown = out.as_posix()
    return warning(Mark(f"{shown}/{rel}"), f"edited by hand since mpigen wrote it (its bytes are not those {INDEX} "
                                           f"records), so mpigen render refuses to overwrite it; "
                                           f"{_remedies(shown, rel)}")


def _remedies(shown: str, rel: str) -> str:
    """How to go on: the three ways, for the file `rel` of the folder `shown`."""
    return (f"the output is generated: keep the edit by making it where the file comes from (its blueprint, "
            f"an overlay or mpigen.yaml), discard it with mpigen render {DISCARD_EDITS}, or restore the file "
            f"with git checkout -- {shown}/{rel}")
