"""What a decompiler is: its declaration on a Target (the kind of job manifest it reads, the
documents such a job references, and the function that loads it), what `mpigen import`
(mpigen.importer) gives it, and what it gives back: the blueprint, and what the command is
to prove of it. With the reader (mpigen.decompile.reader), the view
(mpigen.decompile.view) and the MPIJob decompiler (mpigen.decompile.mpijob), it is what a
target's decompiler, in the target's package, uses of the import machinery.

A decompiler is loaded only by `mpigen import`, so that rendering loads none: the Target
declares a function that imports it. It is a module that defines

    import_job(doc: Document, reference: Document | None, strict: bool, given: Given) -> Imported

the blueprint of one job manifest (`reference`: the document it references, when its file
was given too), and, when its declaration names References,

    reference_of(doc: Document, candidates: list[Document]) -> Document | None

which of the documents given the job references.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Callable

from mpigen.decompile.reader import Reader
from mpigen.errors import Diagnostic, Mark
from mpigen.load.document import Document
from mpigen.validate.reserved import Reserved


@dataclass(frozen=True)
class References:
    """The documents a job references that are given beside it (the runtime a job runs on)."""

    api_version: str
    kinds: tuple[str, ...]
    words: str  # what messages call them ("no <kinds> or <words> in this file")


@dataclass(frozen=True)
class Importer:
    """A target's decompiler: `mpigen import` reads documents of `kind` (of the API group
    `group`) with the module `decompiler()` returns; `mpigen render` tells a user who passes
    one that it is not a blueprint ("an MPIJob, not a blueprint: turn it into one with mpigen import ...")."""

    kind: str
    group: str
    article: str  # how the kind is said: "an" MPIJob
    decompiler: Callable[[], ModuleType]  # imports the decompiler (see above) when called, by mpigen import only
    references: References | None = None


@dataclass(frozen=True)
class Given:
    """What `mpigen import` gives a decompiler besides the job: the ServiceAccounts given (the
    job's cloud identity may be one), and what a blueprint may not name (every target's)."""

    accounts: tuple[Document, ...] = ()
    reserved: Reserved = Reserved()


@dataclass(frozen=True)
class Proof:
    """What `mpigen import` proves of a blueprint before it is the import's (mpigen.importer.proof):
    rendered with the target, each document read (its reader, and its data as the cluster
    reads it: with its defaults) compared with the rendered object of its kind, every difference
    reported by the document's reader, nothing under a mark in `reported`. The import's
    diagnostics are then the readers' problems, in order; with --strict every warning is an
    error but `notes`, which lose nothing."""

    documents: list[tuple[Reader, dict]]
    reported: frozenset[Mark]
    # the environment's options the documents were rendered with, as far as they tell them
    # (fields of mpigen.render.target.Options: {"trainer_version": "v2.1.0"})
    options: dict = field(default_factory=dict)
    notes: tuple[Diagnostic, ...] = ()


@dataclass
class Imported:
    """The blueprint of one job manifest (empty when it cannot be imported), what was reported,
    and, when the blueprint is yet to be proved, what the command proves."""

    blueprint: dict
    diagnostics: list[Diagnostic] = field(default_factory=list)
    proof: Proof | None = None
