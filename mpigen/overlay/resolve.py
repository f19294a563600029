"""Resolving overlays: names and folders to loaded overlays, their bases followed, cycles refused.

An overlay lives in its own folder, `overlays/<name>/`, as one YAML document of kind
Overlay (mpigen.formats.overlay). The folder name is the overlay's name and the name of
its output folder. Its bases are other overlays, applied first, in order.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from mpigen.errors import Diagnostic, InputError, Mark, Warn, error
from mpigen.formats.config import CONFIG_FILE
from mpigen.formats.monitoring import MonitoringSettings
from mpigen.formats.overlay import OverlayModel
from mpigen.kube.names import folder_name_problem
from mpigen.load.document import Document
from mpigen.load.trust import foreign, refusal
from mpigen.overlay.file import OVERLAYS_FOLDER, overlay_file, read_overlay


@dataclass
class Overlay:
    """A loaded overlay: its name (the folder name), document and model, bases resolved."""

    name: str
    doc: Document
    model: OverlayModel
    bases: list["Overlay"] = field(default_factory=list)

    @property
    def cluster(self) -> str | None:
        return self.inherited("cluster")

    @property
    def gitops(self) -> str | None:
        return self.inherited("gitops")

    @property
    def target(self) -> str | None:
        return self.inherited("target")

    @property
    def pod_security(self) -> str | None:
        return self.inherited("podSecurity")

    @property
    def create_namespaces(self) -> bool | None:
        return self.inherited("createNamespaces")

    @property
    def monitoring(self) -> MonitoringSettings | None:
        return self.inherited("monitoring")

    @property
    def trainer_version(self) -> str | None:
        owner = self.versions_owner("trainer")
        return owner.model.versions.trainer if owner else None

    @property
    def kueue_version(self) -> str | None:
        owner = self.versions_owner("kueue")
        return owner.model.versions.kueue if owner else None

    def versions_owner(self, key: str) -> "Overlay | None":
        """This overlay, else its nearest base, whose `versions:` sets `key` (each key of
        `versions:` is inherited on its own)."""
        for item in reversed(self.chain()):
            versions = item.model.versions
            if versions is not None and getattr(versions, key) is not None:
                return item
        return None

    def inherited(self, key: str):
        """A setting of this overlay (a key of its file), else of its nearest base that has it."""
        for item in reversed(self.chain()):
            value = getattr(item.model, key)
            if value is not None:
                return value
        return None

    def chain(self) -> list["Overlay"]:
        """Bases depth first, in order, then this overlay; each overlay once. Each overlay
        is visited once (bases shared by several bases are not walked again: diamonds
        20 levels deep would be a million walks), without recursion."""
        order: list[Overlay] = []
        seen = {id(self)}
        stack = [(self, iter(self.bases))]
        while stack:
            item, bases = stack[-1]
            for base in bases:
                if id(base) not in seen:
                    seen.add(id(base))
                    stack.append((base, iter(base.bases)))
                    break
            else:
                stack.pop()
                order.append(item)
        return order


def resolve(specs: list[str], root: Path, marks: list[Mark] | None = None,
            warn: Warn | None = None) -> list[Overlay]:
    """The overlays named on the command line or in mpigen.yaml: a bare name (a folder
    under root/overlays, root being the repository: the folder of mpigen.yaml) or a path
    to an overlay folder or file. `marks` are where each spec is written (mpigen.yaml's
    lines), None for the command line. Warnings (of how a file reads) go to `warn`.
    Raises InputError."""
    loader = _Loader(root)
    where = marks or [None] * len(specs)
    found = [loader.load(_named(spec, root) or Path(spec), mark, bare_name(spec)) for spec, mark in zip(specs, where)]
    problems = loader.problems + _name_problems([overlay for overlay in found if overlay is not None])
    if any(p.severity == "error" for p in problems):
        raise InputError(problems)
    if problems and warn is not None:
        warn(problems)
    unique = []
    for overlay in found:
        if all(overlay is not u for u in unique):
            unique.append(overlay)
    return unique


def _name_problems(overlays: list[Overlay]) -> list[Diagnostic]:
    """An overlay's folder name names its output folder: it must be a name that can (see
    mpigen.kube.names), and unique, also to a file system that ignores case."""
    problems, names = [], {}
    for overlay in overlays:
        problem = folder_name_problem(overlay.name)
        if problem:
            problems.append(error(Mark(Path(overlay.doc.path).parent.as_posix()), problem))
            continue
        other = names.setdefault(overlay.name.casefold(), overlay)
        if other.doc.path == overlay.doc.path:
            continue
        if other.name == overlay.name:
            message = f"two overlays are named {overlay.name!r} (also {other.doc.path})"
        else:
            message = (f"overlays {other.name!r} ({other.doc.path}) and {overlay.name!r} differ only in case, which "
                       "macOS and Windows ignore")
        problems.append(error(overlay.doc.start, f"{message}; an overlay's folder name names its output folder, so "
                                                 "it must be unique"))
    return problems


def _named(spec: str, root: Path) -> Path | None:
    """A bare name (no '/', not starting with '.') names a folder under root/overlays,
    never a folder of the working folder."""
    name = bare_name(spec)
    return None if name is None else root / OVERLAYS_FOLDER / name


def bare_name(spec: str) -> str | None:
    """The spec when it is a bare name, else None (a path)."""
    return None if "/" in spec or spec.startswith(".") or not spec else spec


def _repository(file: Path, root: Path, problems: list[Diagnostic]) -> Path:
    """The repository an overlay file belongs to, where its bases' bare names are looked up
    (whatever the working folder): the folder holding the overlays/ folder the overlay is
    in; for an overlay kept elsewhere, the nearest folder above it holding mpigen.yaml, which
    must be the user's or trusted as the run's own is (mpigen.load.trust; else a problem);
    else root."""
    folder = Path(os.path.abspath(file.parent))  # as written: `..` goes up the path given, not a link's target
    if folder.parent.name == OVERLAYS_FOLDER:
        return Path(os.path.normpath(file.parent / os.pardir / os.pardir))
    for above in folder.parents:
        if os.path.isfile(above / CONFIG_FILE):
            other = foreign(above / CONFIG_FILE)
            if other is not None and other.trusted_by is None:
                problems.append(refusal(other, here=False))
            return above
    return root


class _Loader:
    """Overlays loaded once each (by their file's path as written), bases followed, cycles refused."""

    def __init__(self, root: Path):
        self.root = root
        self.cache: dict[Path, Overlay] = {}
        self.loading: list[tuple[Path, Path]] = []  # (real path, path as written) of the overlays being loaded
        self.problems: list[Diagnostic] = []

    def load(self, path: Path, referrer: Mark | None, name: str | None = None) -> Overlay | None:
        """The overlay at path (asked for by the bare `name`, or by a path when None), its
        bases loaded; None when it cannot be, with the reasons in self.problems."""
        file = overlay_file(path, referrer, self.problems, name)
        if file is None:
            return None
        # An overlay named by its folder or by its file is one overlay, named by the folder as
        # the path is written: folders whose files are links to one shared file are overlays
        # of their own, each its environment (a link's target names none). Cycles are found
        # on the files themselves, links followed, so that a link to a folder above ends too.
        key, real = Path(os.path.abspath(file)), file.resolve()
        if key in self.cache:
            return self.cache[key]
        walked = [r for r, _ in self.loading]
        if real in walked:
            names = [k.parent.name for _, k in self.loading[walked.index(real):]] + [key.parent.name]
            self.problems.append(error(referrer, f"overlay bases form a cycle: {' -> '.join(names)}; "
                                                 "remove one of the bases"))
            return None
        doc, model = read_overlay(file, self.problems)
        if doc is None:
            return None
        overlay = Overlay(key.parent.name, doc, model) if model is not None else None
        # Bases are followed even when this overlay has errors, so that one run reports all.
        bases = doc.data.get("bases")
        self.loading.append((real, key))
        for index, base in enumerate(bases if isinstance(bases, list) else []):
            if not isinstance(base, str):
                continue
            mark = doc.value_mark(("bases", index))
            base_path = (file.parent / base if bare_name(base) is None
                         else _named(base, _repository(file, self.root, self.problems)))
            loaded = self.load(base_path, mark, bare_name(base))
            if loaded is not None and overlay is not None:
                overlay.bases.append(loaded)
        self.loading.pop()
        if overlay is not None:
            self.cache[key] = overlay
        return overlay
