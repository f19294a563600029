"""The importer of a toy target's kind (ToyJob), for the tests that register a target in the
table alone: a ToyJob's name and image become a blueprint's, and what it references (a
ToyConfig of the same name) is looked up among the documents given."""

from __future__ import annotations

import sys

from mpigen.decompile.port import Given, Imported, Importer, References
from mpigen.formats.blueprint import API_VERSION, BLUEPRINT_KIND
from mpigen.load.document import Document

TOY = Importer(kind="ToyJob", group="toy.example.com", article="a", decompiler=lambda: sys.modules[__name__],
               references=References("toy.example.com/v1", ("ToyConfig",), "toy configuration"))


def reference_of(doc: Document, candidates: list[Document]) -> Document | None:
    name = doc.get(("metadata", "name"))
    return next((c for c in candidates if c.get(("metadata", "name")) == name), None)


def import_job(doc: Document, reference: Document | None, strict: bool, given: Given) -> Imported:
    workers = reference.get(("data", "workers"), 1) if reference is not None else 1
    spec = {"image": doc.get(("spec", "image")), "workers": workers, "command": ["true"]}
    blueprint = {"apiVersion": API_VERSION, "kind": BLUEPRINT_KIND,
                 "metadata": {"name": doc.get(("metadata", "name"))}, "spec": spec}
    return Imported(blueprint, [])
