"""One run's use of the cache: each input file's key computed once from the bytes read, what
the cache holds for it looked up before the work starts (so that only the files it lacks are
shared among processes), and each new result stored under the key of the bytes it was made of,
packed (its texts after its summary: mpigen.cache.texts)."""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mpigen.cache.fingerprint import build, context, file_key
from mpigen.cache.runs import Input, Stat, input_stat
from mpigen.cache.store import EntryStore
from mpigen.cache.texts import packed, placed
from mpigen.emit.rendered import TextStore
from mpigen.errors import InputError
from mpigen.load.files import NAMED, SEARCHED, decode_text, display_path, read_raw, read_text

File = tuple[Path, bool]  # a file to read, and whether the user named it (mpigen.load.files.find_yaml_files)
Read = Callable[[Path, str, str], str]  # what mpigen.load.blueprints.load_files reads a file's text with
Compute = Callable[[File, Read], Any]  # what the pipeline gives of a file: mpigen.pipeline.results.FileResult

# The only classes a cache entry may hold: what the pipeline gives of a file, packed.
CACHED_CLASSES = frozenset({("mpigen.pipeline.results", "FileResult"), ("mpigen.pipeline.results", "DocResult"),
                            ("mpigen.emit.rendered", "RenderedObject"),
                            ("mpigen.emit.rendered", "Admitted"), ("mpigen.cache.store", "CachedText"),
                            ("mpigen.errors", "Diagnostic"), ("mpigen.errors", "Mark"),
                            ("mpigen.render.watched", "Watched"),
                            ("mpigen.render.watched", "Step")})


class Memo:
    """The cached result of each input file of a run, or the bytes to make it from."""

    def __init__(self, store: EntryStore | None, context: bytes) -> None:
        self.store = store
        self.context = context
        self._found: dict[str, Any] = {}    # file -> its cached result
        self._read: dict[str, tuple[bytes, bytes]] = {}  # file -> (key, bytes) of a file to work on
        self._keys: dict[str, tuple[Stat | None, bytes]] = {}  # file -> (its stat, its key): mpigen.cache.runs
        self._now = time.time_ns()

    def misses(self, files: list[File]) -> list[File]:
        """The files of the run whose results the cache lacks (all of them without a cache),
        what it holds of the others looked up."""
        if self.store is not None:
            with _no_collection():
                for file in files:
                    self._look_up(file)
        return [file for file in files if file[0].as_posix() not in self._found]

    def found(self, file: File, texts: TextStore | None) -> Any:
        """What the cache holds for `file` (once), its texts put in `texts` (mpigen.cache.texts.placed), or None."""
        found = self._found.pop(file[0].as_posix(), None)
        return placed(found, texts) if found is not None else None

    def input(self, file: File, shape: bytes | None) -> Input | None:
        """What the cache knows of a file of the run whose result has this shape (None: no
        cache, or a file it could not read)."""
        seen = self._keys.get(file[0].as_posix())
        return None if seen is None else Input(file[0].as_posix(), file[1], *seen, shape)

    def _look_up(self, file: File) -> None:
        path = file[0]
        try:
            status, key, raw = read_key(file, self.context, self._now)
        except InputError:  # the loader says why; a file that cannot be read is never cached
            return
        self._keys[path.as_posix()] = (status, key)
        found = self.store.get(key)
        if found is not None:
            self._found[path.as_posix()] = found
        else:
            self._read[path.as_posix()] = (key, raw)

    def result(self, file: File, compute: Compute) -> Any:
        """What `compute(file, read)` gives for a file the cache lacks: computed from the bytes
        the key was made of (so that a file edited meanwhile is never stored under its old
        bytes) and stored."""
        looked_up = self._read.pop(file[0].as_posix(), None)
        if looked_up is None:
            return compute(file, read_text)
        key, raw = looked_up
        value = compute(file, lambda path, shown, fix: decode_text(raw, shown))
        self.store.put(key, *packed(value))
        return value


def read_key(file: File, context_digest: bytes, now: int) -> tuple[Stat | None, bytes, bytes]:
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


def run_memo(cache: Path | None, settings: list[str]) -> Memo:
    """The cache's results for the files of a run under these settings (every one of them is
    in the key: mpigen.cache.fingerprint.key_settings); nothing without a cache folder."""
    if cache is None:
        return Memo(None, b"")
    return Memo(EntryStore(cache, build().hex()[:16], CACHED_CLASSES), context(*settings))
