"""Rendered documents kept on disk instead of in memory: each process of a render appends
the documents it emits to a file of its own, and the parent reads each back when it is
printed, so that a render of any size holds only the keys and places of its objects.

The files are anonymous (unlinked from the start): nothing is left behind, whatever
ends the run. They are made before the render forks its workers, one for the process
that made the spill and SLOTS for the workers; a worker takes the number of its file from a
pipe that holds each number once (reading one byte of a pipe is atomic), so that no file
ever has two writers, even after its worker ended. Each writer keeps its own offset.

Documents a render takes from the cache are not copied here: they are read from the cache
when printed or written (mpigen.cache.store.CachedText).
"""

from __future__ import annotations

import os
import tempfile

SLOTS = 8  # as many as the render's workers at most (mpigen.pipeline.pool.MAX_WORKERS)
_MASK = (1 << 40) - 1  # offsets and lengths up to 1 TiB


class Spill:
    """The documents of a render, on disk; put() in any process of the render, read() in
    the one that made it."""

    def __init__(self) -> None:
        self._owner = os.getpid()
        self._files = [tempfile.TemporaryFile() for _ in range(SLOTS + 1)]
        self._claims, given = os.pipe()  # the workers' slots, each handed out once
        os.write(given, bytes(range(1, SLOTS + 1)))
        os.close(given)
        self._pid = None   # the process that holds self._slot (a worker inherits the parent's)
        self._slot = 0
        self._offset = 0

    def put(self, path: str, text: str) -> int:
        """Keep one document (`path`: where it goes in the output folder); returns where it
        is: its file, offset and length in one integer (a tuple would cost three times
        the memory, for each object of the render)."""
        if self._pid != os.getpid():
            self._claim()
        data = text.encode("utf-8")
        fd, offset = self._files[self._slot].fileno(), self._offset
        view = memoryview(data)
        while view:
            view = view[os.pwrite(fd, view, offset + len(data) - len(view)):]
        self._offset += len(data)
        return (self._slot << 80) | (offset << 40) | len(data)

    def adopt(self, path: str, cached) -> object:
        """A document the cache holds stays there (mpigen.cache.store.CachedText)."""
        return cached

    def read(self, path: str, ref) -> bytes:
        """The bytes of the document put() returned `ref` for, or of one adopted from the cache."""
        if not isinstance(ref, int):
            return ref.read()
        slot, offset, length = ref >> 80, (ref >> 40) & _MASK, ref & _MASK
        data = os.pread(self._files[slot].fileno(), length, offset)
        if len(data) != length:
            raise OSError(f"the render's spill file lost {length - len(data)} bytes")
        return data

    def close(self) -> None:
        for file in self._files:
            file.close()
        os.close(self._claims)

    def _claim(self) -> None:
        self._pid, self._offset = os.getpid(), 0
        if self._pid == self._owner:
            self._slot = 0
            return
        taken = os.read(self._claims, 1)  # one byte of a pipe: no two processes get the same one
        if not taken:
            raise OSError("more render processes than spill files")
        self._slot = taken[0]
