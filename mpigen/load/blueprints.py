"""Blueprint documents: the files found under the paths given, read, and their blueprints picked out."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from mpigen.errors import Diagnostic, InputError, Mark, error
from mpigen.formats.blueprint import API_GROUP, BLUEPRINT_KIND
from mpigen.formats.config import CONFIG_KIND
from mpigen.formats.overlay import OVERLAY_KIND
from mpigen.load.document import Document
from mpigen.load.files import MAX_FILE_BYTES, NAMED, SEARCHED, Unreadable, display_path, find_yaml_files, read_text
from mpigen.load.parser import parse
from mpigen.load.workloads import workload_problems

# Kinds of mpigen's own that may sit beside blueprints and are not blueprints.
OTHER_KINDS = (OVERLAY_KIND, CONFIG_KIND)
# What `mpigen import` turns into a blueprint, by kind: its API group and its article ("an"
# MPIJob). The targets declare it (mpigen.render.targets.IMPORTABLE); the caller passes it.
Importable = Mapping[str, tuple[str, str]]


def load_blueprints(paths: list[Path], importable: Importable | None = None) -> tuple[list[Document], list[Diagnostic]]:
    """Every blueprint document under paths, and the problems and warnings found on the way.
    Nothing is raised: a broken file does not stop the others from being checked, so that
    one run reports every problem."""
    files, problems = find_yaml_files(paths)
    blueprints, found = load_files(files, read_text, importable)
    return blueprints, problems + found


def load_files(files: list[tuple[Path, bool]], read: Callable[[Path, str, str], str] = read_text,
               importable: Importable | None = None) -> tuple[list[Document], list[Diagnostic]]:
    """The blueprint documents of these files (from find_yaml_files), and the problems;
    `read` gives a file's text as read_text does (the cache gives the bytes it looked up); a
    document `importable` names is one `mpigen import` would turn into a blueprint."""
    importable = importable or {}
    problems: list[Diagnostic] = []
    blueprints: list[Document] = []
    for path, named in files:
        shown = display_path(path)
        try:
            text = read(path, shown, NAMED if named else SEARCHED)
            docs = parse(text, shown)
        except Unreadable as exc:
            problems.extend(exc.diagnostics)
            continue
        except InputError as exc:
            if named or _looks_like_a_blueprint(path):
                problems.extend(exc.diagnostics)
            else:
                problems.extend(Diagnostic(d.mark, d.message + "; skipped (not recognisable as a blueprint)",
                                           "warning") for d in exc.diagnostics)
            continue
        workloads = workload_problems(docs)
        problems += workloads
        mine = len(workloads)
        for doc in docs:
            data = doc.data
            kind = data.get("kind") if isinstance(data, dict) else None
            api = data.get("apiVersion") if isinstance(data, dict) else None
            if kind == BLUEPRINT_KIND:
                blueprints.append(doc)
                mine += 1
            elif isinstance(api, str) and api.split("/")[0] == API_GROUP and kind not in OTHER_KINDS:
                problems.append(error(doc.value_mark(("kind",)) if kind is not None else doc.start,
                                      f"unknown kind {kind!r} for apiVersion {api}; expected kind: {BLUEPRINT_KIND}"))
                mine += 1
            elif _importable(importable, kind, api):
                severity = "error" if named else "warning"  # a named file must be a blueprint
                problems.append(Diagnostic(doc.value_mark(("kind",)), f"{importable[kind][1]} {kind}, not a blueprint: "
                                           f"turn it into one with mpigen import {shown}", severity))
                mine += named
        if named and mine == 0:
            first = docs[0] if docs else None
            mark = Mark(shown) if first is None else (
                first.value_mark(("kind",)) if isinstance(first.data, dict) and "kind" in first.data else first.start)
            problems.append(error(mark, f"not a blueprint: no document has kind: {BLUEPRINT_KIND} "
                                        f"(apiVersion: {API_GROUP}/v1alpha1)"))
    return blueprints, problems


def _importable(importable: Importable, kind: object, api: object) -> bool:
    """Whether a document is what `mpigen import` reads (of a kind it names, in its API group)."""
    return isinstance(api, str) and isinstance(kind, str) and kind in importable \
        and importable[kind][0] == api.split("/")[0]


def _looks_like_a_blueprint(path: Path) -> bool:
    """Whether a file that is not valid YAML mentions mpigen's API group or kind (it was
    read once already: it is a regular, readable file)."""
    try:
        with open(path, "rb") as handle:
            text = handle.read(MAX_FILE_BYTES).decode("utf-8", "replace")
    except OSError:
        return True  # it changed under us: report the problem rather than skip the file
    return API_GROUP in text or BLUEPRINT_KIND in text
