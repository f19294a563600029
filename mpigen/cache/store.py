"""The cache folder: entries written atomically under the digest of their inputs, read back
only when whole, and never a reason for a run to fail.

Where: $MPIGEN_CACHE_DIR, else $XDG_CACHE_HOME/mpigen, else ~/.cache/mpigen: outside the
repository, so that no commit can bring entries with it (a forged entry in a pull request
would make `mpigen check` pass on output its blueprints do not give). The folder holds a
`.gitignore` of `*` and a CACHEDIR.TAG, so that Git and backup tools leave it alone
wherever it is put. A folder this user does not own, or that anyone may write into, is
not used at all.

An entry is one file, <folder>/v1/<build>/<first two hex digits>/<key in hex>, where
<build> names the build of mpigen that wrote it (mpigen.cache.fingerprint.build): no other
build can use it, and the folders of builds no run has written into for a week are removed.

    b"mpigen-cache 1\\n"   (the format; a new format is a new folder and a new line)
    the key                (32 bytes: an entry copied under another name is foreign)
    sha256 of the payload  (32 bytes: a truncated or damaged entry does not match)
    the payload            (a pickle of the pipeline's own classes, and of nothing else)

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
import shutil
import stat
import tempfile
import time
from pathlib import Path

MAGIC = b"mpigen-cache 1\n"
FORMAT = "v1"
_HEAD = len(MAGIC) + 64
UNUSED_FOR = 7 * 24 * 3600  # seconds after which the entries of another build are removed
_IGNORE = "*\n"
_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
        "# This folder is a cache made by mpigen (https://bford.info/cachedir/); delete it at any time.\n")


def cache_folder() -> Path | None:
    """Where the cache lives ($MPIGEN_CACHE_DIR, $XDG_CACHE_HOME/mpigen, ~/.cache/mpigen), or
    None when there is no home to put it in."""
    chosen = os.environ.get("MPIGEN_CACHE_DIR")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME")
    if base and os.path.isabs(base):
        return Path(base, "mpigen")
    home = os.path.expanduser("~")
    return Path(home, ".cache", "mpigen") if os.path.isabs(home) else None


class Store:
    """The entries of one cache folder; `get` and `put` never raise for the machine's sake."""

    def __init__(self, folder: Path, build: str, allowed: frozenset[tuple[str, str]]):
        self.root = folder / FORMAT / build
        self.allowed = allowed  # (module, name) of the only classes an entry may hold
        self.readable = _trusted(folder)
        self.writable = self.readable
        self._prepared = False

    def get(self, key: bytes):
        """The value stored under `key`, or None (no entry, or one that is damaged, truncated,
        foreign, or holds anything but the allowed classes)."""
        if not self.readable:
            return None
        try:
            with open(self._path(key), "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        payload = data[_HEAD:]
        if data[:len(MAGIC)] != MAGIC or data[len(MAGIC):len(MAGIC) + 32] != key \
                or data[len(MAGIC) + 32:_HEAD] != hashlib.sha256(payload).digest():
            return None
        try:
            return _Unpickler(io.BytesIO(payload), self.allowed).load()
        except Exception:  # an entry of another build of mpigen: as if there were none
            return None

    def put(self, key: bytes, value) -> None:
        """Store `value` under `key`, or, when the machine refuses, stop storing for this run."""
        if not self.writable:
            return
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        entry = MAGIC + key + hashlib.sha256(payload).digest() + payload
        path = Path(self._path(key))
        temporary = None
        try:
            if not self._prepared:
                _prepare(self.root.parent.parent)
                self.root.mkdir(parents=True, exist_ok=True)
                os.utime(self.root)
                _prune(self.root)
                self._prepared = True
            path.parent.mkdir(parents=True, exist_ok=True)
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


def _trusted(folder: Path) -> bool:
    """Whether entries may be read from `folder`: it is missing (it will be made), or this
    user owns it and no one else may write into it."""
    try:
        status = os.stat(folder)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return stat.S_ISDIR(status.st_mode) and status.st_uid == os.geteuid() and not status.st_mode & 0o002


def _prepare(folder: Path) -> None:
    """Make the cache folder (private to this user) with its .gitignore and CACHEDIR.TAG."""
    if (folder / "CACHEDIR.TAG").exists():
        return
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    for name, text in ((".gitignore", _IGNORE), ("CACHEDIR.TAG", _TAG)):
        fd, temporary = tempfile.mkstemp(prefix=".new-", dir=folder)
        try:
            with open(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.chmod(temporary, 0o644)
            os.replace(temporary, folder / name)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


def _prune(root: Path) -> None:
    """Remove the folders of other builds that no run has written into for a week."""
    week_ago = time.time() - UNUSED_FOR
    for other in os.scandir(root.parent):
        if other.name != root.name and other.is_dir(follow_symlinks=False) \
                and other.stat(follow_symlinks=False).st_mtime < week_ago:
            shutil.rmtree(other.path, ignore_errors=True)


class _Unpickler(pickle.Unpickler):
    """Unpickling that builds only the allowed classes: an entry can hold results, never code
    to run (as Python's documentation restricts globals)."""

    def __init__(self, file, allowed: frozenset[tuple[str, str]]):
        super().__init__(file)
        self.allowed = allowed

    def find_class(self, module: str, name: str):
        if (module, name) not in self.allowed:
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a cache entry")
        return super().find_class(module, name)
