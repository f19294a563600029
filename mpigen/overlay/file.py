"""The overlay file: found in its folder, read, and validated into the Overlay model with positions."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from mpigen.errors import NOWHERE, Diagnostic, InputError, Mark, did_you_mean, error
from mpigen.formats.overlay import OVERLAY_KIND, OverlayModel
from mpigen.kube.names import path_problem
from mpigen.load.document import Document
from mpigen.load.files import YAML_SUFFIXES, Unreadable, display_path, stat_input, unreadable_problem
from mpigen.load.model import validate_model
from mpigen.load.parser import load_file
from mpigen.load.workloads import workload_problems
from mpigen.overlay.selection import selector_problems

OVERLAYS_FOLDER = "overlays"
_FIX = "or stop using this overlay"


def overlay_file(path: Path, referrer: Mark | None, problems: list[Diagnostic], name: str | None = None) -> Path | None:
    """The overlay file at path (a file, or a folder holding exactly one); None when
    there is none, with the reason in problems. `name` is the bare name the overlay was
    asked for by (path is then <repository>/overlays/<name>), None for a path."""
    shown = display_path(path)
    try:
        mode = stat_input(path, shown, _FIX).st_mode
    except Unreadable as exc:
        if not exc.missing:
            problems.extend(exc.diagnostics)
            return None
        problems.append(_missing(path, shown, referrer, name))
        return None
    if stat.S_ISREG(mode):
        return path
    files = _folder_files(path, shown, problems)
    if files is None:
        return None
    if len(files) != 1:
        found = ", ".join(p.name for p in files) or "none"
        problems.append(error(referrer or Mark(shown),
                              f"overlay folder {shown} must hold exactly one YAML file (the "
                              f"{OVERLAY_KIND}); found: {found}"))
        return None
    return files[0]


def _missing(path: Path, shown: str, referrer: Mark | None, name: str | None) -> Diagnostic:
    """An overlay that does not exist: at the line that names it (a base, an entry of
    mpigen.yaml's overlays) or, asked for on the command line, with no position. Asked for
    by name, the message lists the overlays there are and suggests the nearest."""
    what = f"overlay {shown} not found" if referrer else f"{shown}: no such overlay"
    if name is None:
        return error(referrer or NOWHERE, f"{what}; an overlay is a folder under {OVERLAYS_FOLDER}/ holding one "
                                          f"file of kind {OVERLAY_KIND}")
    names = overlay_names(path.parent)
    what = f"no overlay named {name!r} ({shown} does not exist)"
    if not names:
        return error(referrer or NOWHERE, f"{what}; there are no overlays yet: an overlay is a folder under "
                                          f"{OVERLAYS_FOLDER}/ holding one file of kind {OVERLAY_KIND}")
    return error(referrer or NOWHERE, f"{what}; the overlays are {', '.join(names)}{did_you_mean(name, names)}")


def overlay_names(folder: Path) -> list[str]:
    """The overlays of a repository's overlays/ folder: its sub-folders (hidden ones left out)."""
    try:
        with os.scandir(folder) as entries:
            return sorted(e.name for e in entries if not e.name.startswith(".") and e.is_dir())
    except OSError:
        return []


def _folder_files(folder: Path, shown: str, problems: list[Diagnostic]) -> list[Path] | None:
    """The *.yaml/*.yml files of an overlay folder; None when one of them, or the
    folder, cannot be read (a FIFO or device is not opened: reading it could block)."""
    try:
        with os.scandir(folder) as entries:
            names = sorted(e.name for e in entries if e.name.endswith(YAML_SUFFIXES) and not e.name.startswith("."))
    except OSError as exc:
        problems.append(error(Mark(shown), unreadable_problem("folder", exc, _FIX)))
        return None
    files, readable = [], True
    for name in names:
        file = folder / name
        try:
            mode = stat_input(file, display_path(file), "or move it out of the overlay folder").st_mode
        except Unreadable as exc:
            problems.extend(exc.diagnostics)
            readable = False
            continue
        if stat.S_ISREG(mode):
            files.append(file)
    return files if readable else None


def read_overlay(file: Path, problems: list[Diagnostic]) -> tuple[Document | None, OverlayModel | None]:
    """The overlay document of the file and its model. The document is None when the file
    holds no single Overlay to follow the bases of; the model is None when the overlay has
    problems. Every problem goes to `problems`."""
    try:
        docs = load_file(file, _FIX)
    except InputError as exc:
        problems.extend(exc.diagnostics)
        return None, None
    overlays = [d for d in docs if isinstance(d.data, dict) and d.data.get("kind") == OVERLAY_KIND]
    problems.extend(workload_problems(docs))
    if len(overlays) != 1:
        where = overlays[1].start if len(overlays) > 1 else Mark(display_path(file))
        problems.append(error(where, f"an overlay file holds exactly one document of kind {OVERLAY_KIND} "
                                     f"(found {len(overlays)})"))
        return None, None
    doc = overlays[0]
    folder = Path(doc.path).parent.as_posix()
    if path_problem(doc.path):  # at the folder when its name is the culprit
        where = folder if path_problem(folder) else doc.path
        problems.append(error(Mark(where), path_problem(where)))
        return None, None
    return doc, _validate(doc, problems)


def _validate(doc: Document, problems: list[Diagnostic]) -> OverlayModel | None:
    """The overlay's model, or None; every problem goes to `problems`. The patches are
    read from the raw data, so that their problems are reported even when another field
    of the overlay is wrong (one run reports every problem)."""
    model, diagnostics, _ = validate_model(doc, OverlayModel)
    problems.extend(doc.problems + diagnostics)
    before = len(problems)
    problems += selector_problems(doc, "patches", ("target", "labelSelector"))
    problems += selector_problems(doc, "targets", ("jobs", "labelSelector"))
    patches = doc.data.get("patches") if isinstance(doc.data, dict) else None
    for index, item in enumerate(patches if isinstance(patches, list) else []):
        if not isinstance(item, dict):
            continue
        patch = item.get("patch")
        for key in ("apiVersion", "kind"):
            if isinstance(patch, dict) and key in patch:
                problems.append(error(doc.key_mark(("patches", index, "patch", key)),
                                      f"patches[{index}].patch: {key} cannot be patched"))
    read_cleanly = not any(d.severity == "error" for d in doc.problems)
    return model if model is not None and len(problems) == before and read_cleanly else None
