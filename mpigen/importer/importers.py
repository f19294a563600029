"""The decompilers of the targets table, by the kind of job manifest each reads, and one job
manifest imported by its decompiler, then proved.

A target declares its decompiler (`Target.importer`, mpigen.decompile.port): the kind it
reads and a function that loads it, called here alone, so that `mpigen render` loads no
decompiler. The reading of manifests sits in mpigen.decompile, beside compile (the reader,
the view, and the MPIJob decompiler, which every decompiler reads its job through: MPIJob is
the compiled model's kind, not one target's); a decompiler of a target's own kind sits in
the target's package and reads with them. What a decompiler needs of this stage it is given
as data (mpigen.decompile.port.Given: the ServiceAccounts given, every target's reserved
names); what it cannot do below the targets table, the proof (the blueprint rendered through
the table and compared with each document read), it asks for in what it returns, and is done
here after it (mpigen.importer.proof).
"""

from __future__ import annotations

from mpigen.decompile.port import Given, Imported, Importer
from mpigen.decompile.reader import Reader
from mpigen.importer.proof import proved
from mpigen.load.document import Document
from mpigen.render.target import Target
from mpigen.render.targets import RESERVED, TARGETS


def importers() -> dict[str, tuple[Target, Importer]]:
    """Each kind `mpigen import` reads: the target that declares its decompiler, and the declaration."""
    return {target.importer.kind: (target, target.importer) for target in TARGETS.values()
            if target.importer is not None}


def import_job(doc: Document, reference: Document | None = None, strict: bool = False,
               accounts: tuple[Document, ...] = ()) -> Imported:
    """The blueprint of one job manifest, read by the decompiler of its kind and proved; `reference`
    is the document it references (a runtime), when given; `accounts`, the ServiceAccounts given."""
    kind = doc.data.get("kind") if isinstance(doc.data, dict) else None
    found = importers().get(kind) if isinstance(kind, str) else None
    if found is None:
        reader = Reader(doc, strict, None)
        reader.refuse(("kind",) if isinstance(doc.data, dict) else (),
                      f"not one of the kinds mpigen import reads: {', '.join(importers())}")
        return Imported({}, reader.problems)
    target, importer = found
    imported = importer.decompiler().import_job(doc, reference, strict, Given(accounts, RESERVED))
    return proved(target.name, imported, strict) if imported.proof is not None else imported


def reference_of(doc: Document, candidates: list[Document]) -> Document | None:
    """The document given that a job manifest references (its decompiler says which), if any."""
    _, importer = importers()[doc.data["kind"]]
    if importer.references is None:
        return None
    return importer.decompiler().reference_of(doc, candidates)
