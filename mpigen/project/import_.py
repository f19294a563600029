"""import: MPIJob manifests turned into blueprints, one per job, written all or nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from mpigen.emit.yaml import dump_object
from mpigen.errors import Diagnostic, InputError, Mark, error
from mpigen.load.files import display_path
from mpigen.load.parser import load_file
from mpigen.review.importer.manifest import import_document
from mpigen.review.importer.new_files import write_new_files


def import_(files: list[str], output: Path | None, strict: bool,
            warn: Callable[[Iterable[Diagnostic]], None]) -> dict[str, str]:
    """The blueprints of the MPIJobs in the files, by path (<namespace>/<name>.yaml), in path
    order; also written under `output` (new files only) when it is given. What a blueprint
    cannot express is a warning (an error when `strict`). Raises InputError, writing nothing."""
    texts, problems = _blueprints(files, strict)
    errors = [d for d in problems if d.severity == "error"]
    if errors:
        raise InputError(errors)
    warn(sorted(problems))
    texts = {k: texts[k] for k in sorted(texts)}
    if output is not None:
        write_new_files(output, {k: text.encode("utf-8") for k, text in texts.items()})
    return texts


def _blueprints(files: list[str], strict: bool) -> tuple[dict[str, str], list[Diagnostic]]:
    """Each job's blueprint text by path, and every problem found on the way."""
    problems: list[Diagnostic] = []
    texts: dict[str, str] = {}
    defined: dict[tuple[str, str], Mark] = {}
    for name in files:
        path = Path(name)
        try:
            docs = load_file(path)
        except InputError as exc:
            problems += exc.diagnostics
            continue
        jobs = [d for d in docs if isinstance(d.data, dict) and d.data.get("kind") == "MPIJob"]
        if not jobs:
            problems.append(error(Mark(display_path(path)), "no MPIJob in this file"))
        for doc in jobs:
            imported = import_document(doc, strict=strict)
            problems += doc.problems + imported.diagnostics
            if not imported.blueprint:
                continue
            meta = imported.blueprint["metadata"]
            job = (meta.get("namespace", "default"), meta["name"])
            mark = doc.value_mark(("metadata", "name"))
            if job in defined:
                problems.append(error(mark, f"MPIJob {job[0]}/{job[1]} is already defined at {defined[job]}; each "
                                            "job becomes one blueprint, so names must be unique per namespace"))
                continue
            defined[job] = mark
            texts[f"{job[0]}/{job[1]}.yaml"] = dump_object(imported.blueprint, f"Imported by mpigen from {doc.path}")
    return texts, problems
