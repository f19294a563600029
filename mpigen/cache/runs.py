"""What the last run knew of a repository rendered into an output folder: each input file's stat,
key and result's shape, and the digest of every file of the folders it made, so that the next
run, when a few blueprints changed and the folders are as it left them, renders only those
(mpigen.project.incremental).

A record is kept in the cache folder (mpigen.cache.store) under the output folder's real path
and the run's settings; one record a folder and settings, replaced by each run that knows more.
It says "these folders are the render of these inputs" and nothing else: it is written only
when that holds (after a render, or a check that found the folders up to date), and a run
takes nothing from it that it does not check against the files themselves. An input file's
stat is kept only when taken before its bytes were read and more than RACY seconds after
its last change (mpigen.cache.folders.RACY, as an output file's stat is kept)."""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from mpigen.cache.fingerprint import build
from mpigen.cache import folders
from mpigen.cache.store import EntryStore
from mpigen.errors import Diagnostic

_DOMAIN = b"mpigen run\n"  # apart from every other key of the cache
_CLASSES = frozenset({("mpigen.errors", "Diagnostic"), ("mpigen.errors", "Mark"), ("mpigen.cache.runs", "LastRender"),
                      ("mpigen.cache.runs", "Input")})

Stat = tuple[int, int, int, int, int]  # size, mtime_ns, ctime_ns, inode, device


@dataclass(frozen=True)
class Input:
    """What a run knew of one input file: its path, whether the user named it, its stat (None:
    not kept), its key (mpigen.cache.fingerprint.file_key) and its result's shape (None: a
    result no other can stand in for: mpigen.pipeline.results.shape)."""

    path: str
    named: bool
    stat: Stat | None
    key: bytes
    shape: bytes | None


@dataclass
class LastRender:
    """A repository's inputs and the folders rendered from them. `inputs`: path -> what the
    run knew of it, in the order the run read them; `folders`: each folder (as the run named
    it) -> its files' sha256s (its index among them), the output folder first."""

    files: list[tuple[str, bool]]
    inputs: dict[str, Input]
    folders: dict[str, dict[str, bytes]]
    warnings: list[Diagnostic] = field(default_factory=list)
    jobs: int = 0
    objects: int = 0
    envs: list[str] = field(default_factory=list)  # the environments rendered, in order

    def __getstate__(self) -> dict:
        """Each folder's paths as one string and its sha256s as one byte string: a pickle of
        60,000 of each costs a tenth of what a pickle of a dict of them costs."""
        folders = {name: ("\n".join(files), b"".join(files.values())) for name, files in self.folders.items()}
        return {**self.__dict__, "folders": folders}

    def __setstate__(self, state: dict) -> None:
        folders = {}
        for name, (paths, digests) in state["folders"].items():
            names = paths.split("\n") if paths else []  # no name of a folder's file holds a line break
            folders[name] = dict(zip(names, (digests[i:i + 32] for i in range(0, len(digests), 32)), strict=True))
        self.__dict__.update({**state, "folders": folders})


def input_stat(path: Path | str, now: int) -> Stat | None:
    """The stat of an input file, to be taken before its bytes are read; None when it was
    changed within RACY seconds of `now` (time.time_ns() at the start of the run) or cannot be had."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    if not folders.settled(status, now):
        return None
    return (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino, status.st_dev)


class RunRecord:
    """The record of one output folder rendered under one set of settings (`context`: the
    digest of the run's settings, mpigen.cache.fingerprint.context, and of whatever else
    decides its folders)."""

    def __init__(self, cache: Path, out: Path, context: bytes) -> None:
        self.store = EntryStore(cache, build().hex()[:16], _CLASSES)
        self.key = hashlib.sha256(_DOMAIN + context + b"\0" + os.fsencode(os.path.realpath(out))).digest()
        self.now = time.time_ns()

    def load(self) -> LastRender | None:
        found = self.store.get(self.key)
        return found if isinstance(found, LastRender) else None

    def save(self, run: LastRender) -> None:
        self.store.put(self.key, run)
