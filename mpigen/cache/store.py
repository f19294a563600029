"""The cache folder: entries written atomically under the digest of their inputs, read back
only when whole, and never a reason for a run to fail.

The folder is one mpigen.cache.folder judged for the run: mpigen's own (it holds mpigen's
CACHEDIR.TAG, and a .gitignore of `*` unless one was there) and no one but the user can write
into it or into any folder on the way to it. Outside the repository, so that no commit can
bring entries with it (a forged entry in a pull request would make `mpigen check` pass on
output its blueprints do not give).

An entry is one file, <folder>/v2/<build>/<first two hex digits>/<key in hex>, where
<build> names the build of mpigen that wrote it (mpigen.cache.fingerprint.build): no other
build can use it. The folders of the format, the build and the first two digits are made
private to the user (mode 0700), and an entry is read only when it is a regular file the
user owns. The folders of other builds (16 hex digits, in the format's folder) and of other
formats (v and digits, in the cache folder) no run has written into for a week are removed,
but only when all they hold is what mpigen makes there (folders and entries of its names,
the user's, no link): any other file, and its folder, stays.

    b"mpigen-cache 2\\n"   (the format; a new format is a new folder and a new line)
    the key                (32 bytes: an entry copied under another name is foreign)
    sha256 of the rest     (32 bytes: a truncated or damaged entry does not match)
    the summary's length   (8 bytes, big-endian)
    the summary            (a pickle of the pipeline's own classes, and of nothing else)
    the texts              (the documents, one after another)

A run unpickles only the summary of an entry: what a file gave, each document's text
replaced by its place among the texts and its sha256 (CachedText). The texts are read again,
and checked once more, only where the run writes or prints them: in a render in which one
blueprint changed, almost never. (An entry removed or damaged between the two reads stops
the run with an error that says so: mpigen never writes a text it cannot check.)

Writes go to a temporary file in the same folder, renamed over the entry when complete,
so that runs at the same time never see half an entry. Whatever the machine refuses (a
full disk, a read-only folder, no permission) turns the cache off for the rest of the run
in silence: the cache only ever saves time.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import re
import stat
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from mpigen.errors import InputError, Mark, error

MAGIC = b"mpigen-cache 2\n"
FORMAT = "v2"
_HEAD = len(MAGIC) + 72  # the magic line, the key, the checksum and the length
UNUSED_FOR = 7 * 24 * 3600  # seconds after which the entries of another build are removed


class EntryStore:
    """The entries of one cache folder; `get` and `put` never raise for the machine's sake."""

    def __init__(self, folder: Path, build: str, allowed: frozenset[tuple[str, str]]):
        """`folder`: a cache folder mpigen.cache.folder.judged gave (mpigen's own, and no one
        else may write into it)."""
        self.root = folder / FORMAT / build
        self.allowed = allowed  # (module, name) of the only classes an entry may hold
        self.writable = True
        self._prepared = False
        self._uid = os.geteuid()

    def get(self, key: bytes):
        """The value stored under `key`, or None (no entry, or one that is damaged, truncated,
        foreign, not written by this user, or holds anything but the allowed classes). Its
        CachedText point into the entry."""
        path = self._path(key)
        try:
            with open(path, "rb") as handle:
                status = os.fstat(handle.fileno())
                if not stat.S_ISREG(status.st_mode) or status.st_uid != self._uid:
                    return None  # not an entry this user wrote
                data = handle.read()
        except OSError:
            return None
        size = int.from_bytes(data[_HEAD - 8:_HEAD], "big")
        if data[:len(MAGIC)] != MAGIC or data[len(MAGIC):len(MAGIC) + 32] != key or len(data) < _HEAD + size \
                or data[len(MAGIC) + 32:_HEAD - 8] != hashlib.sha256(memoryview(data)[_HEAD - 8:]).digest():
            return None
        try:
            return _Unpickler(io.BytesIO(memoryview(data)[_HEAD:_HEAD + size]), self.allowed, (path, _HEAD + size)).load()
        except Exception:  # an entry of another build of mpigen: as if there were none
            return None

    def put(self, key: bytes, value, texts: bytes = b"") -> None:
        """Store `value` under `key`, with `texts` after it (where each CachedText(THIS_ENTRY, ...)
        in `value` points), or, when the machine refuses, stop storing for this run."""
        if not self.writable:
            return
        buffer = io.BytesIO()
        pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
        if texts:  # only a value with texts points at them (a look at every object costs)
            pickler.persistent_id = _entry_id
        pickler.dump(value)
        rest = len(buffer.getvalue()).to_bytes(8, "big") + buffer.getvalue() + texts
        entry = MAGIC + key + hashlib.sha256(rest).digest() + rest
        path = Path(self._path(key))
        temporary = None
        try:
            if not self._prepared:
                for folder in (self.root.parent, self.root):
                    _made(folder)
                os.utime(self.root)
                _prune(self.root, self._uid)
                self._prepared = True
            _made(path.parent)
            fd, temporary = tempfile.mkstemp(prefix=".new-", dir=path.parent)
            with open(fd, "wb") as handle:
                handle.write(entry)
            os.replace(temporary, path)
        except OSError:
            self.writable = False
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)

    def _path(self, key: bytes) -> str:
        name = key.hex()
        return f"{self.root}/{name[:2]}/{name}"


def _made(folder: Path) -> None:
    """A folder of the cache's, made private to this user where missing (in a cache folder
    removed meanwhile: FileNotFoundError, which stops storing)."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(folder, 0o700)


def _prune(root: Path, uid: int) -> None:
    """Remove the folders of other builds (in this format's folder), and of other formats (v1/,
    ..., in the cache folder), that no run has written into for a week: only folders of the
    names mpigen gives them that hold only what mpigen puts there (_made_by_mpigen)."""
    week_ago = time.time() - UNUSED_FOR
    for folder, ours, names in ((root.parent, root.name, _BUILD_NAME), (root.parent.parent, FORMAT, _FORMAT_NAME)):
        for other in os.scandir(folder):
            if other.name != ours and names.fullmatch(other.name) and other.is_dir(follow_symlinks=False) \
                    and other.stat(follow_symlinks=False).st_mtime < week_ago:
                _remove(other.path, uid)


def _remove(top: str, uid: int) -> None:
    """Remove the folder `top` when mpigen made all it holds; what appears meanwhile stays
    (its folder then stays too)."""
    try:
        found = _made_by_mpigen(top, uid)
    except OSError:  # a folder it cannot list: left as it is
        found = None
    if found is None:
        return
    files, folders = found
    for path in files:
        with contextlib.suppress(OSError):
            os.unlink(path)
    for path in [*reversed(folders), top]:
        with contextlib.suppress(OSError):
            os.rmdir(path)


def _made_by_mpigen(top: str, uid: int) -> tuple[list[str], list[str]] | None:
    """(the files, the folders) under the folder `top` when each is what mpigen makes in its
    cache: a folder of a build (16 hex digits) or of a fan-out (2 hex digits), an entry (64
    hex digits) or one being written (.new-...), this user's, no deeper than mpigen makes them,
    and no link; else None."""
    if os.lstat(top).st_uid != uid:
        return None
    files, folders, pending = [], [], [(top, 0)]
    while pending:
        folder, depth = pending.pop()
        for item in os.scandir(folder):
            status = item.stat(follow_symlinks=False)
            if status.st_uid != uid:
                return None
            if stat.S_ISDIR(status.st_mode) and depth < 2 and _FOLDER_NAME.fullmatch(item.name):
                folders.append(item.path)
                pending.append((item.path, depth + 1))
            elif stat.S_ISREG(status.st_mode) and _ENTRY_NAME.fullmatch(item.name):
                files.append(item.path)
            else:
                return None
    return files, folders


_FORMAT_NAME = re.compile(r"v[0-9]+")
_BUILD_NAME = re.compile(r"[0-9a-f]{16}")
_FOLDER_NAME = re.compile(r"[0-9a-f]{16}|[0-9a-f]{2}")
_ENTRY_NAME = re.compile(r"[0-9a-f]{64}|\.new-[0-9a-z_]{8}")


class _Unpickler(pickle.Unpickler):
    """Unpickling that builds only the allowed classes: an entry can hold results, never code
    to run (as Python's documentation restricts globals). THIS_ENTRY is read back as where
    the entry's texts start: (its path, the offset of its texts)."""

    def __init__(self, file, allowed: frozenset[tuple[str, str]], entry: tuple[str, int]):
        super().__init__(file)
        self.allowed = allowed
        self.entry = entry
        self.found = _FOUND.setdefault(allowed, {})

    def persistent_load(self, pid):
        if pid != _THIS_ENTRY_ID:
            raise pickle.UnpicklingError("an unknown persistent id")
        return self.entry

    def find_class(self, module: str, name: str):
        found = self.found.get((module, name))
        if found is None:
            if (module, name) not in self.allowed:
                raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a cache entry")
            found = self.found[module, name] = super().find_class(module, name)
        return found


_FOUND: dict[frozenset, dict] = {}  # the allowed classes of each set, once found


# Where an entry's texts are, as the values stored in it say it: replaced by (the entry's path,
# the offset of its texts) when the entry is read.
THIS_ENTRY = object()
_THIS_ENTRY_ID = "texts"


def _entry_id(obj) -> str | None:
    return _THIS_ENTRY_ID if obj is THIS_ENTRY else None


def cache_changed(path: str) -> InputError:
    """A text of an entry no longer is what its summary says (the entry was removed or damaged
    while the run went on): the run stops (exit 2) rather than write what it cannot check."""
    return InputError([error(Mark(path), "this cache entry changed while mpigen read it (removed or "
                                         "damaged meanwhile); run mpigen again")])


class CachedText(NamedTuple):
    """One document's text in a cache entry: its place and its sha256."""

    entry: tuple[str, int] | object  # (the entry's path, where its texts start); THIS_ENTRY when stored
    start: int
    length: int
    digest: bytes

    def read(self) -> bytes:
        """The text's bytes, checked against its sha256. Raises InputError (cache_changed)."""
        path, base = self.entry
        for fresh in (False, True):  # an entry renamed over since it was opened is opened again
            try:
                data = os.pread(_READER.open(path, fresh), self.length, base + self.start)
            except OSError:
                data = b""
            if hashlib.sha256(data).digest() == self.digest:
                return data
        raise cache_changed(path)


class _Reader:
    """The entry the texts are read from, kept open (a job's texts are read one after another)."""

    def __init__(self) -> None:
        self.path, self.fd = None, -1

    def open(self, path: str, fresh: bool) -> int:
        if path != self.path or fresh:
            self.close()
            self.fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            self.path = path
        return self.fd

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
        self.path, self.fd = None, -1


_READER = _Reader()
