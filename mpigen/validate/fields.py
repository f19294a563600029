"""Read access to a blueprint document's raw data for the rules across fields: a rule runs
only when the fields it reads are valid themselves, so that one run reports every problem.
"""

from __future__ import annotations

from mpigen.load.document import Document, Loc, value_at
from mpigen.validate.reserved import Reserved


class Fields:
    """Read access to a document's raw data for the cross-field checks, which run even when
    other fields are invalid: a check runs only when none of the fields it reads had an
    error (the pydantic model has then vouched for their types)."""

    def __init__(self, doc: Document, bad: set[Loc], reserved: Reserved):
        self.doc, self.bad, self.reserved = doc, bad, reserved
        # Every location at or above a bad one: a lookup costs the depth of a location,
        # not the number of errors (checks call ok() once per list item).
        self._above_bad = {tuple(b[:n]) for b in bad for n in range(len(b) + 1)}

    def ok(self, *locs: Loc) -> bool:
        """No error at, above or below any of these locations."""
        if not self.bad:
            return True
        for loc in locs:
            loc = tuple(loc)
            if loc in self._above_bad or any(loc[:n] in self.bad for n in range(len(loc))):
                return False
        return True

    def get(self, loc: Loc, default=None):
        node = value_at(self.doc.data, loc)  # Document.get without its call: ~100 reads a document
        return default if node is None else node


NAME, WORKERS = ("metadata", "name"), ("spec", "workers")


def spec(f: Fields) -> dict:
    """The document's spec mapping, or {}."""
    value = f.doc.data.get("spec") if isinstance(f.doc.data, dict) else None
    return value if isinstance(value, dict) else {}


def run_as_worker(f: Fields) -> bool:
    return bool(f.get(("spec", "launcher", "runAsWorker"), False)) if f.ok(("spec", "launcher")) else False
