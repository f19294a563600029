"""The blueprint and overlay files of one side of `mpigen diff`: the working tree's, or a
commit's. A commit's files are read from Git; its overlays folder is copied into a
temporary folder, so that an overlay is resolved with its bases as a render resolves it.

A file or an overlay that a side cannot give (missing, unreadable, invalid) is None: these
files only explain the diff of the rendered objects (mpigen.review.diff.overridden), they
are not what is compared.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path, PurePosixPath

from mpigen.errors import InputError, Mark
from mpigen.load.files import read_text
from mpigen.overlay.resolve import Overlay, resolve
from mpigen.review.revision import blob_texts, tree_blobs


class WorkingTree:
    """The files as they are on disk (the working folder is the repository's)."""

    def texts(self, paths: list[str]) -> dict[str, str]:
        """The texts of the files that can be read."""
        texts = {}
        for path in paths:
            with contextlib.suppress(InputError):
                texts[path] = read_text(Path(path), path)
        return texts

    def overlay(self, path: str) -> Overlay | None:
        """The overlay of this file, its bases resolved; None when it cannot be."""
        return _resolved(Path(path), Path("."))

    def shown(self, mark: Mark) -> Mark:
        return mark


class CommitTree(contextlib.AbstractContextManager):
    """The files of a commit: blueprints read from Git, overlays from a copy of their folder."""

    def __init__(self, commit: str):
        self.commit = commit
        self._copy = tempfile.TemporaryDirectory(prefix="mpigen-diff-")
        self.root = Path(self._copy.name)
        self._copied: set[str] = set()

    def __exit__(self, *exc) -> None:
        self._copy.cleanup()

    def texts(self, paths: list[str]) -> dict[str, str]:
        """The texts of the files the commit has, read from Git at once."""
        return blob_texts(self.commit, paths)

    def overlay(self, path: str) -> Overlay | None:
        """The overlay of this file at the commit, its bases resolved (the overlays/ folder
        that holds its folder is copied first); None when it cannot be."""
        parts = PurePosixPath(path).parts
        if not parts or PurePosixPath(path).is_absolute() or ".." in parts:
            return None  # a Source comment of a commit is the commit's text: never a way out of the copy
        folders = PurePosixPath(path).parent.parent.as_posix()
        if folders not in self._copied:
            self._copied.add(folders)
            prefix = folders + "/"
            listed = [prefix + rel for rel, _ in tree_blobs(self.commit, prefix)]
            for rel, text in blob_texts(self.commit, listed).items():
                target = self.root / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
        return _resolved(self.root / path, self.root)

    def shown(self, mark: Mark) -> Mark:
        """A mark in the copy as the path in the repository."""
        prefix = self.root.as_posix() + "/"
        return Mark(mark.path.removeprefix(prefix), mark.line, mark.column)


def _resolved(path: Path, root: Path) -> Overlay | None:
    spec = path.as_posix()
    try:
        found = resolve([spec if "/" in spec else "./" + spec], root)  # a path, never a bare overlay name
    except InputError:
        return None
    return found[0] if found else None
