"""A blueprint document being patched by overlays, and the position of every value they write."""

from __future__ import annotations

from typing import Any

from mpigen.errors import Mark
from mpigen.kube.data import copy_data
from mpigen.kube.merge_patch import merge_patch
from mpigen.load.document import Document, Loc, value_at


class Patched:
    """A blueprint document being changed, and where each written value came from."""

    def __init__(self, doc: Document):
        self.base = doc
        self.data = copy_data(doc.data)
        self.writes: list[tuple[Loc, Document, Loc]] = []  # (blueprint loc, overlay doc, overlay loc)

    def set(self, loc: Loc, value: Any, source: Document, source_loc: Loc) -> None:
        node = self.data
        for part in loc[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node[loc[-1]] = copy_data(value)
        self.writes.append((loc, source, source_loc))

    def get(self, loc: Loc, default=None):
        return value_at(self.data, loc, default)

    def merge(self, patch: dict, source: Document, source_loc: Loc) -> None:
        """Apply a JSON merge patch (RFC 7386), written at source_loc in source."""
        self.data = merge_patch(self.data, patch, lambda loc: self.writes.append((loc, source, source_loc + loc)))

    def document(self) -> Document:
        if not self.writes:
            return self.base
        return PatchedDocument(self.base, self.data, self.writes)


class PatchedDocument(Document):
    """A blueprint document after overlays: its marks are the blueprint's, except where an
    overlay wrote a value, which is marked in the overlay file.

    The marks are only needed to report a problem, so each is looked up when asked for:
    the mark at a location comes from the last write at or above it (from that overlay's
    file), else from the blueprint. A lookup costs the depth of the location, whatever the
    number of writes and marks (merging them up front cost writes x marks)."""

    def __init__(self, base: Document, data, writes):
        self._base = base
        self._writes: dict[Loc, tuple[int, Loc, Document, Loc]] = {}  # location -> its last write
        for order, (loc, source, source_loc) in enumerate(writes):
            self._writes[tuple(loc)] = (order, tuple(loc), source, tuple(source_loc))
        reported = {r for r in base.reported if self._last_write(r) is None}
        for loc, source, source_loc in writes:
            if source.reported:
                m = len(source_loc)
                reported |= {loc + r[m:] for r in source.reported if r[:m] == source_loc}
        super().__init__(base.path, data, base.start, {}, {}, list(base.problems), reported)

    def key_mark(self, loc: Loc) -> Mark:
        return self._nearest_mark(loc, "key_marks")

    def value_mark(self, loc: Loc) -> Mark:
        return self._nearest_mark(loc, "value_marks")

    def _nearest_mark(self, loc: Loc, which: str) -> Mark:
        for end in range(len(loc), 0, -1):
            mark = self._mark_at(tuple(loc[:end]), which)
            if mark is not None:
                return mark
        return self.start

    def _mark_at(self, loc: Loc, which: str) -> Mark | None:
        """The mark written exactly at loc, or None."""
        write = self._last_write(loc)
        if write is None:
            return _mark_at(self._base, loc, which)
        _, where, source, source_loc = write
        return _mark_at(source, source_loc + loc[len(where):], which)

    def _last_write(self, loc: Loc):
        """The last write at loc or at a location above it, or None."""
        found = None
        for end in range(1, len(loc) + 1):
            write = self._writes.get(loc[:end])
            if write is not None and (found is None or write[0] > found[0]):
                found = write
        return found


def _mark_at(doc: Document, loc: Loc, which: str) -> Mark | None:
    if isinstance(doc, PatchedDocument):
        return doc._mark_at(loc, which)
    return getattr(doc, which).get(loc)
