"""The next run repairs a killed one: what it left beside DIR is removed (a backup of DIR
with no DIR is put back); what it staged inside DIR is rolled back (forward, once the
index is in). Only folders a run of this user made are touched: a folder of the same name
that another user put beside DIR or inside it is never removed, renamed or read."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from mpigen.output.in_place import roll_back
from mpigen.output.scratch import INSIDE, OLD, STAGING, alive, made_by_this_user


def recover_abandoned(out: Path) -> list[Path]:
    """Repair what killed runs left beside and inside `out`; returns the folders removed,
    restored or rolled back."""
    parent = out.parent if str(out.parent) else Path(".")
    beside = re.compile(rf"^\.{re.escape(out.name)}\.({re.escape(OLD)}|{re.escape(STAGING)})(\d+)-[^/]+$")
    inside = re.compile(rf"^{re.escape(INSIDE)}(\d+)-[^/]+$")
    repaired = []
    for entry in _entries(parent):
        match = beside.match(entry.name)
        if not match or not made_by_this_user(entry) or alive(int(match.group(2))):
            continue
        path = Path(entry.path)
        if match.group(1) == OLD and not out.exists():
            os.rename(path, out)  # killed between the two renames: the old state goes back
        else:
            shutil.rmtree(path, ignore_errors=True)
        repaired.append(path)
    for entry in _entries(out) if out.is_dir() and not out.is_symlink() else []:
        match = inside.match(entry.name)
        if match and made_by_this_user(entry, private=True) and not alive(int(match.group(1))):
            roll_back(out, Path(entry.path))
            repaired.append(Path(entry.path))
    return repaired


def _entries(folder: Path) -> list[os.DirEntry]:
    try:
        return sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
