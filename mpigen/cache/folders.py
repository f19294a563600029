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
import time
from pathlib import Path

from mpigen.cache.fingerprint import build
from mpigen.cache.store import EntryStore

RACY = 3  # seconds: beyond the coarsest clock of common file systems (FAT's two seconds)
_DOMAIN = b"mpigen output folder\n"  # apart from every other key of the cache


def settled(status: os.stat_result, now: int) -> bool:
    """Whether a stat may be kept: the file's last change (mtime or ctime) is more than RACY
    seconds before `now` (time.time_ns() when the run began)."""
    return max(status.st_mtime_ns, status.st_ctime_ns) < now - RACY * 10**9


class FolderRecord:
    """The files of one output folder as mpigen saw them: path -> (size, mtime_ns, ctime_ns,
    inode, sha256). Empty without a cache folder."""

    def __init__(self, cache: Path | None, out: Path) -> None:
        self.store = EntryStore(cache, build().hex()[:16], frozenset()) if cache is not None else None
        self.key = hashlib.sha256(_DOMAIN + os.fsencode(os.path.realpath(out))).digest()
        self.now = time.time_ns()
        self.saw: dict[str, tuple] = {}
        self.kept: dict[str, tuple] = {}
        self.changed = False
        try:
            self.folder = os.stat(out)
        except OSError:
            self.folder = None
        found = self.store.get(self.key) if self.store is not None and self.folder is not None else None
        if isinstance(found, tuple) and len(found) == 2 and found[0] == (self.folder.st_dev, self.folder.st_ino) \
                and isinstance(found[1], dict):
            self.kept = found[1]

    def unseen(self, root: str, digests, stat=os.stat) -> list[tuple]:
        """(path, its stat or None when there is none, digest, the sha256 of the bytes it holds
        when its stat is what was seen with another digest, else None) of each of `digests`
        ((path relative to the folder `root`, sha256) pairs) whose stat (`stat`: os.stat or
        os.lstat) is not what was seen with that digest: the files to read, unless what they
        hold is known. In one loop: it runs once per file of a large folder."""
        kept, saw, found = self.kept, self.saw, []
        for path, digest in digests:
            try:
                status = stat(f"{root}/{path}")
            except OSError:
                found.append((path, None, digest, None))
                continue
            entry = kept.get(path)
            if entry is not None and entry[0] == status.st_size and entry[1] == status.st_mtime_ns \
                    and entry[2] == status.st_ctime_ns and entry[3] == status.st_ino:
                if entry[4] == digest:
                    saw[path] = entry
                else:
                    found.append((path, status, digest, entry[4]))
            else:
                found.append((path, status, digest, None))
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
            self.saw[path] = (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, digest)
            self.changed = True

    def save(self) -> None:
        """Keep what this run saw of the folder's files, when it read any it may keep (else the
        record is left as it is: an entry of a file changed since no longer matches its stat).
        A folder swapped by a render is not saved: the swap gave every file a new ctime, and
        the folder a new inode."""
        if self.store is not None and self.folder is not None and self.changed:
            self.store.put(self.key, ((self.folder.st_dev, self.folder.st_ino), self.saw))
