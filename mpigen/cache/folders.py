"""What mpigen last saw of an output folder's files: each file's stat (size, mtime, ctime,
inode) and the sha256 of its bytes, kept in the cache folder, so that the next run neither
reads nor hashes a file whose stat is as it was (Git's index trusts a file's stat the same
way). Only `render -o DIR` and `check` keep it; --no-cache neither reads nor writes it.

A stat taken within RACY seconds of the file's last change is not kept: a file changed
again within the resolution of the file system's clock would keep its mtime (Git calls
such an entry racily clean). Any change of a file's bytes sets its ctime, which no one
but the kernel can set, so a file put back with its old mtime (touch -d) is read again.
The record is the folder's (its device and inode are checked) at its real path: another
folder there, or the same folder swapped by a render, finds no entry it can trust."""

from __future__ import annotations

import hashlib
import os
import stat as stat_module
import struct
import time
from pathlib import Path

from mpigen.cache.fingerprint import build
from mpigen.cache.store import EntryStore

RACY = 3  # seconds: beyond the coarsest clock of common file systems (FAT's two seconds)
_DOMAIN = b"mpigen output folder\n"  # apart from every other key of the cache
# What was seen of one file, as 64 bytes: its stat (size, mtime_ns, ctime_ns, inode), then the
# sha256 of its bytes. A record is every file's path, one string, and their 64 bytes, one
# byte string: a pickle of 63,000 of them loads in a third of the time a dict of tuples takes.
_STAT = struct.Struct("<QqqQ")  # 32 bytes
_SEEN = _STAT.size + 32


def settled(status: os.stat_result, now: int) -> bool:
    """Whether a stat may be kept: the file's last change (mtime or ctime) is more than RACY
    seconds before `now` (time.time_ns() when the run began)."""
    return max(status.st_mtime_ns, status.st_ctime_ns) < now - RACY * 10**9


def _opened(folder: str) -> int | None:
    """A descriptor of the folder to look its files up from (O_PATH where there is one: it
    needs no permission to read the folder, as a lookup by path needs none), or None, when it
    cannot be opened: its files are then looked up by path, and say themselves what is wrong."""
    try:
        return os.open(folder, getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None


class FolderRecord:
    """The files of one output folder as mpigen saw them: path -> their 64 bytes (_SEEN).
    Empty without a cache folder."""

    def __init__(self, cache: Path | None, out: Path) -> None:
        self.store = EntryStore(cache, build().hex()[:16], frozenset()) if cache is not None else None
        self.key = hashlib.sha256(_DOMAIN + os.fsencode(os.path.realpath(out))).digest()
        self.now = time.time_ns()
        self.saw: dict[str, bytes] = {}
        self.index: dict[str, int] = {}  # path -> the offset of its 64 bytes in self.kept
        self.kept = b""
        self.changed = False
        try:
            self.folder = os.stat(out)
        except OSError:
            self.folder = None
        found = self.store.get(self.key) if self.store is not None and self.folder is not None else None
        if isinstance(found, tuple) and len(found) == 3 and found[0] == (self.folder.st_dev, self.folder.st_ino) \
                and isinstance(found[1], str) and isinstance(found[2], bytes):
            paths = found[1].split("\n") if found[1] else []  # no path mpigen writes holds a line break
            if len(found[2]) == _SEEN * len(paths):
                self.index, self.kept = dict(zip(paths, range(0, len(found[2]), _SEEN))), found[2]

    def unseen(self, root: str, digests, stat=os.stat) -> list[tuple]:
        """(path, its stat or None when there is none, digest, the sha256 of the bytes it holds
        when its stat is what was seen with another digest, else None) of each of `digests`
        ((path relative to the folder `root`, sha256) pairs) whose stat (`stat`: os.stat or
        os.lstat) is not what was seen with that digest: the files to read, unless what they
        hold is known. In one loop: it runs once per file of a large folder. Each path is looked
        up from the folder's own descriptor (as `git status` walks its index from the work tree),
        so that the kernel walks the folder's path once, not once per file: a sixth of the time
        of 63,000 lstat calls."""
        kept, index, saw, found, pack = self.kept, self.index, self.saw, [], _STAT.pack
        folder = _opened(root)
        try:
            for path, digest in digests:
                try:
                    status = stat(path if folder is not None else f"{root}/{path}", dir_fd=folder)
                except OSError:
                    found.append((path, None, digest, None))
                    continue
                at = index.get(path)
                if at is not None and kept[at:at + 32] == pack(status.st_size, status.st_mtime_ns, status.st_ctime_ns,
                                                                status.st_ino):
                    seen = kept[at:at + _SEEN]
                    if seen[32:] == digest:
                        saw[path] = seen
                    else:
                        found.append((path, status, digest, seen[32:]))
                else:
                    found.append((path, status, digest, None))
        finally:
            if folder is not None:
                os.close(folder)
        return found

    def holds(self, root: str, digests: dict[str, bytes]) -> bool:
        """Whether the folder `root` has each of these files (path -> sha256) with these bytes,
        reading only those whose stat is not what was seen (what is read is kept: save)."""
        for path, status, digest, known in self.unseen(root, digests.items(), os.lstat):
            if status is None or not stat_module.S_ISREG(status.st_mode) or known is not None:
                return False
            try:
                fd = os.open(f"{root}/{path}", os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
                with open(fd, "rb") as handle:
                    data = handle.read()
            except OSError:
                return False
            if hashlib.sha256(data).digest() != digest:
                return False
            self.read(path, status, digest)
        return True

    def read(self, path: str, stat: os.stat_result, digest: bytes) -> None:
        """The file at `path`, with this stat (taken after this record was made), was read and
        holds the bytes of sha256 `digest`."""
        if settled(stat, self.now):
            self.saw[path] = _STAT.pack(stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino) + digest
            self.changed = True

    def save(self) -> None:
        """Keep what this run saw of the folder's files, when it read any it may keep (else the
        record is left as it is: an entry of a file changed since no longer matches its stat).
        A folder swapped by a render is not saved: the swap gave every file a new ctime, and
        the folder a new inode."""
        if self.store is not None and self.folder is not None and self.changed:
            self.store.put(self.key, ((self.folder.st_dev, self.folder.st_ino), "\n".join(self.saw),
                                      b"".join(self.saw.values())))
