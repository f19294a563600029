"""A render's files where its workers left them: a new output folder that the workers
write themselves, in parallel, beside DIR (StagedFolder), and the mapping of every file's
bytes that the plan and the commit read one at a time, wherever the render keeps them
(StagedFiles), so that no render holds its output folder in memory.

The staged folder is one of the scratch folders of mpigen.output.scratch, named with the
process id of the run: while the run goes on it is its own, and after a kill the next
run removes it (mpigen.output.recovery). DIR is not touched until the commit: when DIR
still does not exist then, the staged folder is renamed into place (mpigen.output.swap),
otherwise the plan reads the files from it as from any other store.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Iterator, MutableMapping
from pathlib import Path

from mpigen.output.failure import WriteFailed
from mpigen.output.index import INDEX, unsafe_name
from mpigen.output.scratch import beside


class StagedFolder:
    """A new folder beside `out` that the render's processes write each object's file into
    (put), as they render it."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.root = beside(out, doing="cannot create the folder")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(self.root, 0o777 & ~umask)
        self._made: set[str] = set()

    def put(self, path: str, text: str) -> bool:
        """Write one file (a path relative to the output folder). Raises OSError (the render
        stops; see failed())."""
        return self._write(path, text.encode("utf-8"))

    def adopt(self, path: str, cached) -> bool:
        """Write one file the cache holds (mpigen.cache.store.CachedText)."""
        return self._write(path, cached.read())

    def _write(self, path: str, data: bytes) -> bool:
        if unsafe_name(path) is not None:
            return False  # never written, not even here: the plan refuses it by name (mpigen.output.plan)
        folder = path.rpartition("/")[0]
        if folder and folder not in self._made:
            os.makedirs(f"{self.root}/{folder}", exist_ok=True)  # another worker may make it at the same time
            self._made.add(folder)
        # Not O_EXCL: the folder is this run's own, and a slice a dead worker left half done is rendered again.
        fd = os.open(f"{self.root}/{path}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        return True

    def read(self, path: str, ref: bool) -> bytes:
        with open(f"{self.root}/{path}", "rb") as handle:
            return handle.read()

    def failed(self, exc: OSError) -> WriteFailed:
        """A refusal of the machine while the workers wrote, as a failure of the file it concerns."""
        name = os.fsdecode(exc.filename or "")
        base = f"{self.root}/"
        return WriteFailed(name[len(base):] if name.startswith(base) else "", exc, "cannot create the folder")

    def remove(self) -> None:
        """Remove what is left of the folder (nothing once it has become DIR)."""
        shutil.rmtree(self.root, ignore_errors=True)


class StagedFiles(MutableMapping):
    """Path -> bytes of every file of a render, read from its store (a StagedFolder, a
    mpigen.emit.spill.Spill) when asked; files set here (the kustomizations, the index)
    are held in memory. `refs`: path -> the object (mpigen.emit.rendered.RenderedObject,
    whose text the store keeps)."""

    def __init__(self, store, refs: dict[str, object], texts: dict[str, str]) -> None:
        self.store, self.refs = store, refs
        self.extra = {path: text.encode("utf-8") for path, text in texts.items()}
        self._sha256s: dict[str, bytes] = {}  # of the files in `extra` (a kustomization.yaml may be megabytes)

    @property
    def folder(self) -> Path | None:
        """The staged folder that holds the files (None when they are elsewhere)."""
        return self.store.root if isinstance(self.store, StagedFolder) else None

    def digests(self) -> dict[str, str]:
        """Path -> sha256 (in hex) of every file but the index, as the render made it."""
        return {path: sha256.hex() for path, sha256 in self.sha256s() if path != INDEX}

    def sha256s(self):
        """(path, sha256) of every file, as the render made it."""
        yield from ((path, obj.digest) for path, obj in self.refs.items())
        for path, data in self.extra.items():
            if path not in self._sha256s:
                self._sha256s[path] = hashlib.sha256(data).digest()
            yield path, self._sha256s[path]

    def __getitem__(self, path: str) -> bytes:
        if path in self.extra:
            return self.extra[path]
        return self.store.read(path, self.refs[path].ref)

    def __setitem__(self, path: str, data: bytes) -> None:
        self.refs.pop(path, None)
        self._sha256s.pop(path, None)
        self.extra[path] = data

    def __delitem__(self, path: str) -> None:
        if path in self.extra:
            del self.extra[path]
            self._sha256s.pop(path, None)
        else:
            del self.refs[path]

    def __iter__(self) -> Iterator[str]:
        yield from self.refs
        yield from self.extra

    def __len__(self) -> int:
        return len(self.refs) + len(self.extra)

    def __contains__(self, path) -> bool:
        return path in self.refs or path in self.extra
