"""What the cache tests share, in and out of the unit tier: entry-shaped files under a cache
folder (mpigen.cache.store's names) and their age, and a cache folder judged used or refused
(mpigen.cache.folder), with its one warning line."""

from __future__ import annotations

import os
import time
from pathlib import Path

from mpigen.cache.folder import judged

BUILD = "00112233445566aa"
KEY = bytes(range(32))
WEEK_AGO = time.time() - 7 * 24 * 3600 - 60


def entry(folder: Path, name: str = "ab" * 32) -> Path:
    """An entry-shaped file (mpigen's names) under `folder`'s fan-out folder."""
    path = folder / name[:2] / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"an entry of another build")
    return path


def aged(*paths: Path) -> None:
    for path in paths:
        os.utime(path, (WEEK_AGO, WEEK_AGO), follow_symlinks=False)


def used(folder: Path) -> Path:
    found = judged(folder)
    assert found.warning is None and found.folder is not None, found
    return found.folder


def refused(folder: Path) -> str:
    """The one warning line of a folder that is not used."""
    found = judged(folder)
    assert found.folder is None and found.warning is not None, found
    line = str(found.warning)
    assert line.startswith(f"warning: {folder}: the cache is not used: ") and "\n" not in line
    return line
