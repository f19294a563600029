"""import: MPIJob and TrainJob manifests turned into blueprints, one per job, written all or
nothing. A TrainJob's runtime is looked up among the documents of every file given."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from mpigen.emit.yaml import dump_object
from mpigen.errors import Diagnostic, InputError, Mark, error, warning
from mpigen.load.files import display_path
from mpigen.load.parser import load_file
from mpigen.review.importer.manifest import import_document
from mpigen.load.document import Document
from mpigen.project.repository import find_config
from mpigen.review.importer.new_files import write_new_files
from mpigen.review.importer.trainjob import import_trainjob, runtime_ref
from mpigen.review.importer.trainjob_view import is_runtime, is_trainjob


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
        write_new_files(output, {k: (schema_line(output / k) + text).encode("utf-8") for k, text in texts.items()})
    return texts


# The blueprint's JSON Schema, in the repository (docs/blueprints.md, "mpigen schema"), and a
# file's first line naming it for an editor, as the examples start.
SCHEMA = Path("schemas") / "blueprint.schema.json"
STREAM_SCHEMA_LINE = f"# yaml-language-server: $schema=../{SCHEMA.as_posix()}\n"  # a blueprint in blueprints/


def schema_line(file: Path) -> str:
    """The `# yaml-language-server: $schema=...` line of a blueprint written at `file`: the
    path from its folder to the repository's schemas/ (the repository: the folder of the
    mpigen.yaml a run here uses, else the working folder)."""
    config = find_config()
    root = config.parent if config is not None else Path(os.getcwd())
    relative = os.path.relpath(root / SCHEMA, os.path.abspath(file.parent))
    return f"# yaml-language-server: $schema={Path(relative).as_posix()}\n"


def _blueprints(files: list[str], strict: bool) -> tuple[dict[str, str], list[Diagnostic]]:
    """Each job's blueprint text by path, and every problem found on the way."""
    problems: list[Diagnostic] = []
    texts: dict[str, str] = {}
    defined: dict[tuple[str, str], Mark] = {}
    jobs, runtimes = _documents(files, problems)
    used: set[int] = set()
    for doc in jobs:
        if is_trainjob(doc.data):
            runtime = _runtime_of(doc, runtimes)
            used.add(id(runtime))
            imported = import_trainjob(doc, runtime, strict=strict)
        else:
            imported = import_document(doc, strict=strict)
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
    for runtime in runtimes:
        if id(runtime) not in used:
            problems.append(warning(runtime.key_mark(("kind",)), f"{runtime.data['kind']} "
                                    f"{runtime.get(('metadata', 'name'))!r}: no TrainJob given references it"))
    return texts, problems


def _documents(files: list[str], problems: list[Diagnostic]) -> tuple[list[Document], list[Document]]:
    """The jobs (MPIJobs, TrainJobs) and the Trainer runtimes of the files, in order."""
    jobs, runtimes = [], []
    for name in files:
        path = Path(name)
        try:
            docs = load_file(path)
        except InputError as exc:
            problems += exc.diagnostics
            continue
        found = [d for d in docs if isinstance(d.data, dict) and d.data.get("kind") in ("MPIJob", "TrainJob")]
        here = [d for d in docs if is_runtime(d.data)]
        if not found and not here:
            problems.append(error(Mark(display_path(path)), "no MPIJob, TrainJob or Trainer runtime in this file"))
        jobs += found
        runtimes += here
    return jobs, runtimes


def _runtime_of(trainjob: Document, runtimes: list[Document]) -> Document | None:
    """The runtime the TrainJob references, among those given (a TrainingRuntime is in the
    TrainJob's namespace)."""
    kind, name = runtime_ref(trainjob)
    namespace = trainjob.get(("metadata", "namespace"), "default")
    for runtime in runtimes:
        if runtime.data.get("kind") == kind and runtime.get(("metadata", "name")) == name and (
                kind != "TrainingRuntime" or runtime.get(("metadata", "namespace"), "default") == namespace):
            return runtime
    return None
