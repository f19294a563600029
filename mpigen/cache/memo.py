"""One run's use of the cache: each input file's key computed once from the bytes read, what
the cache holds for it looked up before the work starts (so that only the files it lacks are
shared among processes), and each new result stored under the key of the bytes it was made of,
packed by the caller (its texts after its summary: mpigen.cache.store)."""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mpigen.cache.fingerprint import build, context, file_key
from mpigen.cache.runs import Stat, input_stat
from mpigen.cache.store import Store
from mpigen.errors import InputError
from mpigen.load.files import NAMED, SEARCHED, decode_text, display_path, read_raw, read_text

Read = Callable[[Path, str, str], str]  # what mpigen.load.blueprints.load_files reads a file's text with
Compute = Callable[[tuple[Path, bool], Read], Any]
Pack = Callable[[Any], tuple[Any, bytes]]  # a result -> (what the entry holds, the texts after it)


class Memo:
    """The cached result of each input file of a run, or the bytes to make it from."""

    def __init__(self, store: Store | None, context: bytes, files: list[tuple[Path, bool]], pack: Pack):
        self.store = store
        self.context = context
        self.pack = pack
        self._found: dict[str, Any] = {}    # file -> its cached result
        self._read: dict[str, tuple[bytes, bytes]] = {}  # file -> (key, bytes) of a file to work on
        self.inputs: dict[str, tuple[Stat | None, bytes]] = {}  # file -> (its stat, its key): mpigen.cache.runs
        self._now = time.time_ns()
        if store is not None:
            with _no_collection():
                for file in files:
                    self._look_up(file)
        self.misses = [file for file in files if file[0].as_posix() not in self._found]

    def found(self, file: tuple[Path, bool]):
        """What the cache holds for `file` (once), or None."""
        return self._found.pop(file[0].as_posix(), None)

    def _look_up(self, file: tuple[Path, bool]) -> None:
        path = file[0]
        try:
            status, key, raw = read_key(file, self.context, self._now)
        except InputError:  # the loader says why; a file that cannot be read is never cached
            return
        self.inputs[path.as_posix()] = (status, key)
        found = self.store.get(key)
        if found is not None:
            self._found[path.as_posix()] = found
        else:
            self._read[path.as_posix()] = (key, raw)

    def result(self, file: tuple[Path, bool], compute: Compute):
        """What `compute(file, read)` gives for a file the cache lacks: computed from the bytes
        the key was made of (so that a file edited meanwhile is never stored under its old
        bytes) and stored."""
        looked_up = self._read.pop(file[0].as_posix(), None)
        if looked_up is None:
            return compute(file, read_text)
        key, raw = looked_up
        value = compute(file, lambda path, shown, fix: decode_text(raw, shown))
        self.store.put(key, *self.pack(value))
        return value


def read_key(file: tuple[Path, bool], context_digest: bytes, now: int) -> tuple[Stat | None, bytes, bytes]:
    """(the file's stat, taken first: mpigen.cache.runs.input_stat; the key of its bytes under
    `context_digest`; its bytes). Raises InputError when it cannot be read."""
    path, named = file
    shown = display_path(path)
    status = input_stat(path, now)  # before the bytes: a change after it is seen next time
    raw = read_raw(path, shown, NAMED if named else SEARCHED)
    return status, file_key(context_digest, shown, named, raw), raw


@contextlib.contextmanager
def _no_collection():
    """The garbage collector paused while entries are unpickled, and what they hold (kept to
    the end of the run) left out of its later rounds: thousands of entries hold no garbage,
    and looking for it took as long as unpickling them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def run_memo(cache: Path | None, files, settings: list[str], classes, pack: Pack) -> Memo:
    """The cache's results for these files under these settings (every one of them is in
    the key: the overlays as read, each environment's options, the namespace of blueprints
    that name none, rendering or only validating); nothing without a cache folder. `pack`
    makes what an entry holds of a result."""
    if cache is None:
        return Memo(None, b"", files, pack)
    return Memo(Store(cache, build().hex()[:16], classes), context(*settings), files, pack)
