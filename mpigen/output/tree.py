"""What the output folder holds now, read in one walk: its regular files, folders,
symbolic links and anything else, and what of that stands in the way of a new file."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Tree:
    """What the output folder holds now, read in one walk (a stat per path would cost
    tens of thousands of system calls on a large repository): relative paths of its
    regular files, folders, symbolic links, and anything else (FIFOs, sockets, devices)."""

    files: set[str]
    dirs: set[str]
    links: set[str]
    others: set[str]

    @classmethod
    def scan(cls, out: Path) -> "Tree":
        tree = cls(set(), set(), set(), set())
        pending = [("", str(out))]
        while pending:
            rel, folder = pending.pop()
            with os.scandir(folder) as entries:
                for entry in entries:
                    path = f"{rel}{entry.name}"
                    if entry.is_symlink():
                        tree.links.add(path)
                    elif entry.is_dir(follow_symlinks=False):
                        tree.dirs.add(path)
                        pending.append((path + "/", entry.path))
                    elif entry.is_file(follow_symlinks=False):
                        tree.files.add(path)
                    else:
                        tree.others.add(path)
        return tree

    def conflict(self, out: Path, path: str) -> str | None:
        """A reason the file cannot be written: a symlink, or a file or folder in the way."""
        parent = path.rpartition("/")[0]
        if path in self.files and (not parent or parent in self.dirs):
            # The common case, in one look-up: the walk only enters real folders and files
            # each path under one kind, so no part of this path is a link or in the way.
            return None
        parts = path.split("/")
        for i in range(1, len(parts) + 1):
            current = "/".join(parts[:i])
            shown = f"{out.as_posix()}/{current}"
            if current in self.links:
                return f"refusing to write through the symbolic link {shown}"
            last = i == len(parts)
            if current in self.others or ((current in self.dirs) if last else (current in self.files)):
                return f"{shown} is in the way of {path}"
        return None
