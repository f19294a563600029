"""What a target's importer is: its declaration on the Target (the kind of job manifest it
reads, the documents such a job references, and the module that reads them), and what
`mpigen import` (mpigen.importer) gives that module and gets back. With the reader
(mpigen.render.manifest_reader) and the view (mpigen.render.manifest_view), it is what a
target's importer, in the target's package, may use of the import machinery: the rest sits
above the targets and comes as a Given.

The module is named, not imported: only `mpigen import` loads it, so that rendering loads
no importer. It defines

    import_job(doc: Document, reference: Document | None, strict: bool, given: Given) -> Imported

the blueprint of one job manifest (`reference`: the document it references, when its file
was given too), and, when the importer declares References,

    reference_of(doc: Document, candidates: list[Document]) -> Document | None

which of the documents given the job references.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from mpigen.errors import Diagnostic
from mpigen.load.document import Document
from mpigen.render.manifest_reader import Reader


@dataclass(frozen=True)
class References:
    """The documents a job references that are given beside it (the runtime a job runs on)."""

    api_version: str
    kinds: tuple[str, ...]
    words: str  # what messages call them ("no <kinds> or <words> in this file")


@dataclass(frozen=True)
class Importer:
    """A target's importer: `mpigen import` reads documents of `kind` (of the API group
    `group`) with `module`; `mpigen render` tells a user who passes one that it is not a
    blueprint ("an MPIJob, not a blueprint: turn it into one with mpigen import ...")."""

    kind: str
    group: str
    article: str  # how the kind is said: "an" MPIJob
    module: str  # the module that reads it (see above), resolved only by mpigen import
    references: References | None = None


@dataclass
class Imported:
    """The blueprint of one job manifest (empty when it cannot be imported) and what was reported."""

    blueprint: dict
    diagnostics: list[Diagnostic] = field(default_factory=list)


@dataclass(frozen=True)
class Given:
    """What `mpigen import` gives a target's importer: the MPIJob importer, to read a view
    of the job as the MPIJob it amounts to (mpigen.render.manifest_view; it knows the
    ServiceAccounts given, of which the job's cloud identity may be one), and the proof of
    a blueprint: rendered with the target, each document given compared with the rendered
    object of its kind, every difference reported at the document's line."""

    import_model: Callable[[Document, bool, Reader | None], Imported]
    # (blueprint, [(reader, data)], reported marks, options=Options | None: the environment's
    # options the documents were rendered with, where the importer can tell them)
    prove: Callable[..., None]
