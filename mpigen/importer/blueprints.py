"""The blueprints of the job manifests in the files given, one per job, and every problem
found on the way; what a job references (a runtime) is looked up among the documents of
every file given."""

from __future__ import annotations

from pathlib import Path

from mpigen.decompile.port import Importer
from mpigen.emit.yaml import dump_object
from mpigen.errors import Diagnostic, InputError, Mark, error, warning
from mpigen.importer.importers import import_job, importers, reference_of
from mpigen.load.document import Document
from mpigen.load.files import display_path
from mpigen.load.parser import load_file
from mpigen.load.workloads import workload_problems
from mpigen.render.targets import kind_facts


def blueprints(files: list[str], strict: bool) -> tuple[dict[str, str], list[Diagnostic]]:
    """Each job's blueprint text by path (<namespace>/<name>.yaml), and every problem found."""
    problems: list[Diagnostic] = []
    texts: dict[str, str] = {}
    defined: dict[tuple[str, str], Mark] = {}
    jobs, references, accounts = _documents(files, problems)
    references, conflicting = _defined_once(references, problems)
    used: set[int] = set()
    for doc in jobs:
        reference = reference_of(doc, references)
        used.add(id(reference))
        if id(reference) in conflicting:
            continue  # which definition it runs on is the user's to say
        imported = import_job(doc, reference, strict=strict, accounts=accounts)
        problems += doc.problems + imported.diagnostics
        if not imported.blueprint:
            continue
        meta = imported.blueprint["metadata"]
        job = (meta.get("namespace", "default"), meta["name"])
        mark = doc.value_mark(("metadata", "name"))
        if job in defined:
            problems.append(error(mark, f"{doc.data['kind']} {job[0]}/{job[1]} is already defined at {defined[job]}; "
                                        "each job becomes one blueprint, so names must be unique per namespace"))
            continue
        defined[job] = mark
        texts[f"{job[0]}/{job[1]}.yaml"] = dump_object(imported.blueprint, f"Imported by mpigen from {doc.path}")
    for reference in references:
        if id(reference) not in used:
            problems.append(warning(reference.key_mark(("kind",)), f"{reference.data['kind']} "
                                    f"{reference.get(('metadata', 'name'))!r}: no {_referrer(reference.data)} "
                                    "given references it"))
    return texts, list(dict.fromkeys(problems))  # one report per loss, though two readings of a job meet it


def _defined_once(references: list[Document], problems: list[Diagnostic]) -> tuple[list[Document], set[int]]:
    """The documents given, each object once: a second definition of the same object (kind,
    namespace unless the kind is cluster-scoped, name) is dropped when it is the same, and an
    error naming both definitions when it differs (the ids of the first definitions it
    differs from)."""
    first: dict[tuple, Document] = {}
    conflicting: set[int] = set()
    for doc in references:
        key = _identity(doc)
        if key not in first:
            first[key] = doc
        elif doc.data != first[key].data:
            conflicting.add(id(first[key]))
            problems.append(error(doc.key_mark(("metadata", "name")), f"{key[1]} {_named(key)} is defined twice, "
                                  f"at {first[key].key_mark(('metadata', 'name'))} and here, with different "
                                  "content: which one a job runs on depends on the order the files are given; "
                                  "keep one of them"))
    return list(first.values()), conflicting


def _identity(doc: Document) -> tuple:
    api, kind = doc.data.get("apiVersion"), doc.data.get("kind")
    facts = kind_facts(api, kind) if isinstance(api, str) and isinstance(kind, str) else None
    scoped = facts is not None and facts.cluster_scoped
    namespace = None if scoped else doc.get(("metadata", "namespace"), "default")
    return api, kind, namespace, doc.get(("metadata", "name"))


def _named(key: tuple) -> str:
    return repr(key[3]) if key[2] is None else repr(f"{key[2]}/{key[3]}")


def _documents(files: list[str], problems: list[Diagnostic]) -> tuple[list[Document], list[Document],
                                                                    tuple[Document, ...]]:
    """The jobs (of the kinds the importers read), the documents they may reference, in order,
    and the ServiceAccounts (mpigen renders a job's cloud identity as one beside it)."""
    kinds = importers()
    words = [*kinds, *(importer.references.words for _, importer in kinds.values() if importer.references)]
    jobs, references, accounts = [], [], []
    for name in files:
        path = Path(name)
        try:
            docs = load_file(path)
        except InputError as exc:
            problems += exc.diagnostics
            continue
        workloads = workload_problems(docs)
        problems += workloads
        found = [d for d in docs if isinstance(d.data, dict) and d.data.get("kind") in tuple(kinds)]
        here = [d for d in docs if _referrer(d.data) is not None]
        accounts += [d for d in docs if isinstance(d.data, dict) and d.data.get("apiVersion") == "v1"
                     and d.data.get("kind") == "ServiceAccount" and isinstance(d.data.get("metadata"), dict)]
        if not found and not here and not workloads:
            problems.append(error(Mark(display_path(path)), f"no {', '.join(words[:-1])} or {words[-1]} in this file"))
        jobs += found
        references += here
    return jobs, references, tuple(accounts)


def _referrer(data: object) -> str | None:
    """The kind of job that may reference a document of this data, if any."""
    if not isinstance(data, dict):
        return None
    for kind, (_, importer) in importers().items():
        if _references(importer, data):
            return kind
    return None


def _references(importer: Importer, data: dict) -> bool:
    wanted = importer.references
    return wanted is not None and data.get("apiVersion") == wanted.api_version and data.get("kind") in wanted.kinds
