"""The importers of the targets table, by the kind of job manifest each reads, and one job
manifest imported by its importer.

A target declares its importer (`Target.importer`, mpigen.render.importer): the
kind it reads and the module that reads it, named, not imported, so that `mpigen render`
loads no importer. A target's importer sits in the target's package (mpigen/render/<target>/)
with the target's own names; it may import nothing above the targets, so what all
importers share is split by where it can sit. Pure manifest handling sits beside the
targets, in modules of mpigen.render that every target may import: the interface
(mpigen.render.importer), the reader that reports at a line (mpigen.render.manifest_reader),
the view of one document as another (mpigen.render.manifest_view). What needs more stays in this stage and is handed to a
target's importer as a Given, built here for that target: the MPIJob importer (it checks
what it reads against every target's reserved names and emits YAML; MPIJob is the compiled
model's kind, not one target's, and every importer reads its job through it as a view), and
the proof (the blueprint rendered through the targets table). So no target imports this
stage (import-linter's `stages`) nor another target (`targets`); the target that renders
MPIJob resources declares the MPIJob importer by the name of its module here.
"""

from __future__ import annotations

import importlib
from functools import partial

from mpigen.importer.manifest import import_document
from mpigen.importer.proof import prove
from mpigen.load.document import Document
from mpigen.render.importer import Given, Imported, Importer
from mpigen.render.manifest_reader import Reader
from mpigen.render.target import Target
from mpigen.render.targets import TARGETS


def importers() -> dict[str, tuple[Target, Importer]]:
    """Each kind `mpigen import` reads: the target that declares its importer, and the importer."""
    return {target.importer.kind: (target, target.importer) for target in TARGETS.values()
            if target.importer is not None}


def import_job(doc: Document, reference: Document | None = None, strict: bool = False,
               accounts: tuple[Document, ...] = ()) -> Imported:
    """The blueprint of one job manifest, read by the importer of its kind; `reference` is the
    document it references (a runtime), when given; `accounts`, the ServiceAccounts given."""
    kind = doc.data.get("kind") if isinstance(doc.data, dict) else None
    found = importers().get(kind) if isinstance(kind, str) else None
    if found is None:
        reader = Reader(doc, strict, None)
        reader.refuse(("kind",) if isinstance(doc.data, dict) else (),
                      f"not one of the kinds mpigen import reads: {', '.join(importers())}")
        return Imported({}, reader.problems)
    target, importer = found
    given = Given(import_model=partial(import_document, accounts=accounts), prove=partial(prove, target.name))
    return importlib.import_module(importer.module).import_job(doc, reference, strict, given)


def reference_of(doc: Document, candidates: list[Document]) -> Document | None:
    """The document given that a job manifest references (its importer says which), if any."""
    _, importer = importers()[doc.data["kind"]]
    if importer.references is None:
        return None
    return importlib.import_module(importer.module).reference_of(doc, candidates)
