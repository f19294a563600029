"""The installed distributions whose code or data reach the output, each known by the record of
the files it installed, as every cache key holds them (mpigen.cache.fingerprint).

A distribution is found as Python finds what it imports: in the folders of sys.path, in
order, by its `.dist-info` (or `.egg-info`) folder. It is known by that folder's name (its
version) and the sha256 of its RECORD, which lists the sha256 of every file it installed:
an upgrade, a downgrade or a reinstall of another build changes it, while the same wheel
installed on another machine keeps it (a cache carried between CI runners stays valid). A
distribution with no RECORD (a system package's .egg-info) is known by its metadata and file
list; one that is not installed, by its absence. Nothing is imported: a look costs a listing
of each folder of sys.path and a read of each RECORD.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from functools import cache

# What stands for a distribution's files where it has no RECORD (a system package).
_LISTS = ("RECORD", "installed-files.txt", "SOURCES.txt", "METADATA", "PKG-INFO")


def identity(name: str) -> str:
    """`name`, the distribution folder Python would import it from, and the sha256 of its list of
    installed files; or `name` and "absent"."""
    found = _metadata_folder(_normalized(name))
    if found is None:
        return f"{name} absent"
    if os.path.isfile(found):  # an .egg-info file: the metadata alone
        return f"{name} {os.path.basename(found)} {_sha256(found)}"
    for listing in _LISTS:
        path = os.path.join(found, listing)
        if os.path.isfile(path):
            return f"{name} {os.path.basename(found)} {listing} {_sha256(path)}"
    return f"{name} {os.path.basename(found)}"


def _metadata_folder(wanted: str) -> str | None:
    for folder in sys.path:
        for entry in _entries(folder or "."):
            stem, dot, kind = entry.rpartition(".")
            if dot and kind in ("dist-info", "egg-info") and _normalized(stem.split("-", 1)[0]) == wanted:
                return os.path.join(folder or ".", entry)
    return None


@cache
def _entries(folder: str) -> tuple[str, ...]:
    try:
        return tuple(sorted(os.listdir(folder)))
    except OSError:  # a zip file, a folder that is gone, or one this user may not read
        return ()


def _normalized(name: str) -> str:
    """A distribution name as its metadata folder spells it, compared (PEP 503, with `_`)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _sha256(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()
