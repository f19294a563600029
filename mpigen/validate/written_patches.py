"""The values an overlay's patches state, checked as written (before any blueprint is patched)."""

from __future__ import annotations

from mpigen.errors import Diagnostic, Mark
from mpigen.load.document import Document, Loc
from mpigen.overlay.resolve import Overlay
from mpigen.validate.document import written_problems


def written_patch_problems(overlays: list[Overlay], reserved) -> list[Diagnostic]:
    """The problems of the values the patches of these overlays (and of their bases)
    state, as written (mpigen.validate.document.written_problems): a bad value is refused even when
    its patch selects no blueprint or a later patch replaces it. At the overlay's line."""
    out: list[Diagnostic] = []
    seen: set[int] = set()
    for overlay in overlays:
        for item in overlay.chain():
            if id(item) not in seen:
                seen.add(id(item))
                for index in range(len(item.model.patches)):
                    out += written_problems(_PatchView(item.doc, ("patches", index, "patch")), reserved)
    return out


class _PatchView(Document):
    """One patch of an overlay document, as a part of a blueprint: its values without the
    nulls (which remove a value and state none), marked in the overlay file."""

    def __init__(self, doc: Document, loc: Loc):
        super().__init__(doc.path, _without_nulls(doc.get(loc)), doc.value_mark(loc))
        self._doc, self._loc = doc, loc

    def _nearest(self, marks, loc: Loc) -> Mark:
        which = self._doc.key_marks if marks is self.key_marks else self._doc.value_marks
        return self._doc._nearest(which, self._loc + tuple(loc))


def _without_nulls(value):
    if isinstance(value, dict):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    return value
