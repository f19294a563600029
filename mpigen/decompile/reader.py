"""The reader of one job manifest: its values by location, what cannot be carried over into
the blueprint (a warning, an error with --strict) or what the manifest itself gets wrong
(an error), each at its line, and where each blueprint field comes from."""

from __future__ import annotations

from mpigen.errors import error, warning
from mpigen.load.document import Document, Loc, field_path


class Reader:
    """Reads one job manifest: its values, and what cannot be carried over, at its place."""

    def __init__(self, doc: Document, strict: bool, api: str):
        self.doc, self.strict, self.api, self.problems = doc, strict, api, []
        self.refused = False  # an error of the manifest itself (not a loss made an error by --strict)
        self.origins: dict[Loc, Loc] = {}  # a blueprint location -> where in the manifest it comes from
        # runLauncherAsWorker is the blueprint's launcher.runAsWorker only where the launcher's
        # template is known to be the workers' as mpigen writes it (a view of pods mpigen wrote)
        self.launcher_as_worker = False
        # the ServiceAccount mpigen made for the job's cloud identity (spec.serviceAccount.annotations),
        # which both roles run as, when it was given beside the job (mpigen.decompile.own_objects)
        self.identity: str | None = None
        # runPolicy.failurePolicy is the blueprint's only in a view of a runtime mpigen wrote
        # (an MPIJob has none: the API server drops it)
        self.failure_policy = False

    def get(self, loc: Loc, default=None):
        return self.doc.get(loc, default)

    def mapping(self, loc: Loc) -> dict:
        return self._typed(loc, dict, "a mapping")

    def listing(self, loc: Loc) -> list:
        return self._typed(loc, list, "a list")

    def _typed(self, loc: Loc, kind: type, words: str):
        value = self.get(loc)
        if value is None:
            return kind()
        if not isinstance(value, kind):
            self.refuse(loc, f"expected {words}")
            return kind()
        return value

    def lost(self, loc: Loc, what: str) -> None:
        self.differs(loc, f"{what}; a blueprint cannot express it, so the imported blueprint leaves it out")

    def differs(self, loc: Loc, message: str) -> None:
        report = error if self.strict else warning
        self.problems.append(report(self.doc.key_mark(loc), f"{self.name(loc)}: {message}"))

    def refuse(self, loc: Loc, why: str) -> None:
        """An error at the value (at the key of a mapping or a list: where it starts)."""
        whole = isinstance(self.get(loc), (dict, list)) and loc
        mark = self.doc.key_mark(loc) if whole else self.doc.value_mark(loc)
        self.problems.append(error(mark, f"{self.name(loc) or 'document'}: {why}"))
        self.refused = True

    def name(self, loc: Loc) -> str:
        """A location as messages name it."""
        return field_path(loc)

    def came_from(self, spec_loc: Loc, loc: Loc) -> None:
        self.origins[("spec", *spec_loc) if spec_loc[0] != "metadata" else spec_loc] = loc

    def origin(self, loc: Loc) -> Loc:
        """Where in the manifest a location of the blueprint comes from (its nearest known part)."""
        return next((self.origins[loc[:n]] for n in range(len(loc), 0, -1) if loc[:n] in self.origins), ("spec",))


class KindReader(Reader):
    """A reader whose messages name the document's kind too (a job's and what it references
    are reported together)."""

    def name(self, loc: Loc) -> str:
        kind = self.doc.data.get("kind") if isinstance(self.doc.data, dict) else None
        return f"{kind} {field_path(loc)}" if kind and loc else field_path(loc)
