"""Overlays: the changes one environment makes to blueprints before they are validated.

An overlay lives in its own folder, `overlays/<name>/`, as one YAML document of kind
Overlay. The folder name is the overlay's name and the name of its output folder.

    apiVersion: mpigen.dev/v1alpha1
    kind: Overlay
    bases: [gpu-cluster]                 # other overlays, applied first, in order
    namespace: ml-prod                   # every blueprint's namespace
    labels: {env: prod}                  # added to metadata.labels (never to selectors)
    annotations: {}
    patches:                             # JSON merge patches (RFC 7386) on the blueprint
      - target: {name: "resnet*", labelSelector: "team=vision"}
        patch: {spec: {workers: 16}}
    images:                              # like kustomize `images`
      - {name: horovod/horovod, newName: registry.example.com/horovod, newTag: 0.28.1-prod}

Order: bases first (each overlay once), then this overlay's namespace, labels and
annotations, then its patches (so a patch can override them for some blueprints), then
image rewrites (so they also apply to images set by patches).

Every value an overlay writes keeps its position in the overlay file, so a patch that
makes a blueprint invalid is reported at the overlay line, naming the blueprint.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, model_validator

from mpigen.formats.blueprint import DNS1123_LABEL, LabelKey, LabelValue
from mpigen.formats.config import CONFIG_FILE
from mpigen.errors import Diagnostic, InputError, Mark, error, warning
from mpigen.load.documents import (YAML_SUFFIXES, Document, Loc, Unreadable, display_path, load_file, stat_input,
                         unreadable_problem, value_at)
from mpigen.kube.names import folder_name_problem, path_problem
from mpigen.render.names import copy_data

OVERLAY_KIND = "Overlay"
OVERLAYS_FOLDER = "overlays"

# The repository part of an image reference: what `images[].name` matches.
_REPOSITORY = r"^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._/-][a-z0-9]+)*)*$"
_TAG = r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$"
_DIGEST = r"^[a-z0-9]+([+._-][a-z0-9]+)*:[0-9a-fA-F]{32,}$"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Target(_Model):
    name: Optional[str] = Field(None, min_length=1, max_length=253,
                                description="Blueprint names to patch, a shell-style glob (*, ?, [...]).",
                                examples=["resnet*"])
    labelSelector: Optional[str] = Field(None, min_length=1, max_length=4096,
                                         description="A Kubernetes label selector on the blueprint's labels.",
                                         examples=["team=vision,tier in (prod, batch)"])


class Patch(_Model):
    target: Target = Field(default_factory=Target, description="Which blueprints; all when empty.")
    patch: dict[str, Any] = Field(description="A JSON merge patch (RFC 7386) on the blueprint: mappings merge, "
                                              "lists and other values replace, null removes.")


class ImageRewrite(_Model):
    name: str = Field(pattern=_REPOSITORY, max_length=1024,
                      description="Repository to rewrite, as written in blueprints, without tag or digest.",
                      examples=["horovod/horovod"])
    newName: Optional[str] = Field(None, pattern=_REPOSITORY, max_length=1024, examples=["registry.example.com/horovod"])
    newTag: Optional[str] = Field(None, pattern=_TAG, examples=["0.28.1-prod"])
    digest: Optional[str] = Field(None, pattern=_DIGEST, max_length=1024, examples=["sha256:" + "0" * 64])

    @model_validator(mode="after")
    def _something_to_do(self) -> "ImageRewrite":
        if self.newName is None and self.newTag is None and self.digest is None:
            raise ValueError("an image rewrite needs newName, newTag or digest")
        if self.newTag is not None and self.digest is not None:
            raise ValueError("give newTag or digest, not both (a digest pins the image on its own)")
        return self


class OverlayModel(_Model):
    apiVersion: Literal["mpigen.dev/v1alpha1"]
    kind: Literal["Overlay"]
    bases: list[str] = Field(default_factory=list, description="Overlays applied before this one: names of "
                                                               "folders under the repository's overlays/, or "
                                                               "paths relative to this file's folder.")
    namespace: Optional[str] = Field(None, pattern=DNS1123_LABEL, max_length=63,
                                     description="Replaces every blueprint's namespace.", examples=["ml-prod"])
    labels: dict[LabelKey, LabelValue] = Field(
        default_factory=dict, description="Added to every blueprint's labels (never to selectors).",
        examples=[{"env": "prod"}])
    annotations: dict[LabelKey, str] = Field(default_factory=dict,
                                             description="Added to every blueprint's annotations.")
    patches: list[Patch] = Field(default_factory=list,
                                 description="JSON merge patches, applied in order to the blueprints they select.")
    images: list[ImageRewrite] = Field(default_factory=list,
                                       description="Image rewrites by repository, applied after the patches.")
    cluster: Optional[str] = Field(
        None, min_length=1, pattern=r"^\S+$",
        description="The cluster this environment runs on (an API server URL or an Argo CD cluster name): the "
                    "destination of its Argo CD Application.", examples=["https://prod.k8s.example.com"])
    gitops: Optional[Literal["none", "argocd", "flux"]] = Field(
        None, description="GitOps profile of this environment (the --gitops flag wins; default: mpigen.yaml's).",
        examples=["argocd"])


@dataclass
class Overlay:
    """A loaded overlay: its name (the folder name), document and model, bases resolved."""

    name: str
    doc: Document
    model: OverlayModel
    bases: list["Overlay"] = field(default_factory=list)

    @property
    def cluster(self) -> str | None:
        return self._inherited("cluster")

    @property
    def gitops(self) -> str | None:
        return self._inherited("gitops")

    def _inherited(self, key: str):
        """A setting of this overlay, else of its nearest base that has it."""
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


# --- loading -------------------------------------------------------------------------------

def resolve(specs: list[str], root: Path) -> list[Overlay]:
    """The overlays named on the command line or in mpigen.yaml: a bare name (a folder
    under root/overlays, root being the repository: the folder of mpigen.yaml) or a path
    to an overlay folder or file. Raises InputError."""
    loader = _Loader(root)
    found = [loader.load(_named(spec, root) or Path(spec), None) for spec in specs]
    problems = loader.problems + _name_problems([overlay for overlay in found if overlay is not None])
    if problems:
        raise InputError(problems)
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
    if "/" in spec or spec.startswith(".") or not spec:
        return None
    return root / OVERLAYS_FOLDER / spec


def _repository(file: Path, root: Path) -> Path:
    """The repository an overlay file belongs to, where its bases' bare names are looked up
    (whatever the working folder): the folder holding the overlays/ folder the overlay is
    in; for an overlay kept elsewhere, the nearest folder above it holding mpigen.yaml;
    else root."""
    folder = Path(os.path.abspath(file.parent))  # as written: `..` goes up the path given, not a link's target
    if folder.parent.name == OVERLAYS_FOLDER:
        return Path(os.path.normpath(file.parent / os.pardir / os.pardir))
    for above in folder.parents:
        if os.path.isfile(above / CONFIG_FILE):
            return above
    return root


class _Loader:
    def __init__(self, root: Path):
        self.root = root
        self.cache: dict[Path, Overlay] = {}
        self.loading: list[Path] = []
        self.problems: list[Diagnostic] = []

    def load(self, path: Path, referrer: Mark | None) -> Overlay | None:
        file = self._overlay_file(path, referrer)
        if file is None:
            return None
        key = file.resolve()  # an overlay named by its folder or by its file is one overlay
        if key in self.cache:
            return self.cache[key]
        if key in self.loading:
            cycle = " -> ".join(p.parent.name for p in self.loading[self.loading.index(key):] + [key])
            self.problems.append(error(referrer, f"overlay bases form a cycle: {cycle}; remove one of the bases"))
            return None
        try:
            docs = load_file(file, _FIX)
        except InputError as exc:
            self.problems.extend(exc.diagnostics)
            return None
        overlays = [d for d in docs if isinstance(d.data, dict) and d.data.get("kind") == OVERLAY_KIND]
        if len(overlays) != 1:
            where = overlays[1].start if len(overlays) > 1 else Mark(display_path(file))
            self.problems.append(error(where, f"an overlay file holds exactly one document of kind {OVERLAY_KIND} "
                                              f"(found {len(overlays)})"))
            return None
        doc = overlays[0]
        folder = Path(doc.path).parent.as_posix()
        if path_problem(doc.path):  # at the folder when its name is the culprit
            where = folder if path_problem(folder) else doc.path
            self.problems.append(error(Mark(where), path_problem(where)))
            return None
        model = _validate(doc, self.problems)
        name = key.parent.name
        overlay = Overlay(name, doc, model) if model is not None else None
        # Bases are followed even when this overlay has errors, so that one run reports all.
        bases = doc.data.get("bases")
        self.loading.append(key)
        for index, base in enumerate(bases if isinstance(bases, list) else []):
            if not isinstance(base, str):
                continue
            mark = doc.value_mark(("bases", index))
            base_path = _named(base, _repository(file, self.root)) or file.parent / base
            loaded = self.load(base_path, mark)
            if loaded is not None and overlay is not None:
                overlay.bases.append(loaded)
        self.loading.pop()
        if overlay is not None:
            self.cache[key] = overlay
        return overlay

    def _overlay_file(self, path: Path, referrer: Mark | None) -> Path | None:
        """The overlay file at path (a file, or a folder holding exactly one); None when
        there is none, with the reason in self.problems."""
        shown = display_path(path)
        try:
            mode = stat_input(path, shown, _FIX).st_mode
        except Unreadable as exc:
            if not exc.missing:
                self.problems.extend(exc.diagnostics)
                return None
            what = f"overlay {shown} not found" if referrer else "no such overlay"
            self.problems.append(error(referrer or Mark(shown),
                                       f"{what}; an overlay is a folder under {OVERLAYS_FOLDER}/ holding one file "
                                       f"of kind {OVERLAY_KIND}"))
            return None
        if stat.S_ISREG(mode):
            return path
        files = self._folder_files(path, shown)
        if files is None:
            return None
        if len(files) != 1:
            found = ", ".join(p.name for p in files) or "none"
            self.problems.append(error(referrer or Mark(shown),
                                       f"overlay folder {shown} must hold exactly one YAML file (the "
                                       f"{OVERLAY_KIND}); found: {found}"))
            return None
        return files[0]

    def _folder_files(self, folder: Path, shown: str) -> list[Path] | None:
        """The *.yaml/*.yml files of an overlay folder; None when one of them, or the
        folder, cannot be read (a FIFO or device is not opened: reading it could block)."""
        try:
            with os.scandir(folder) as entries:
                names = sorted(e.name for e in entries if e.name.endswith(YAML_SUFFIXES) and not e.name.startswith("."))
        except OSError as exc:
            self.problems.append(error(Mark(shown), unreadable_problem("folder", exc, _FIX)))
            return None
        files, readable = [], True
        for name in names:
            file = folder / name
            try:
                mode = stat_input(file, display_path(file), "or move it out of the overlay folder").st_mode
            except Unreadable as exc:
                self.problems.extend(exc.diagnostics)
                readable = False
                continue
            if stat.S_ISREG(mode):
                files.append(file)
        return files if readable else None


_FIX = "or stop using this overlay"


def _validate(doc: Document, problems: list[Diagnostic]) -> OverlayModel | None:
    """The overlay's model, or None; every problem goes to `problems`. The patches are
    read from the raw data, so that their problems are reported even when another field
    of the overlay is wrong (one run reports every problem)."""
    from mpigen.load.model import validate_model

    model, diagnostics, _ = validate_model(doc, OverlayModel)
    problems.extend(doc.problems + diagnostics)
    before = len(problems)
    patches = doc.data.get("patches") if isinstance(doc.data, dict) else None
    for index, item in enumerate(patches if isinstance(patches, list) else []):
        if not isinstance(item, dict):
            continue
        target, patch = item.get("target"), item.get("patch")
        selector = target.get("labelSelector") if isinstance(target, dict) else None
        if isinstance(selector, str) and selector:
            try:
                parse_selector(selector)
            except ValueError as exc:
                problems.append(error(doc.value_mark(("patches", index, "target", "labelSelector")),
                                      f"patches[{index}].target.labelSelector: {exc}"))
        for key in ("apiVersion", "kind"):
            if isinstance(patch, dict) and key in patch:
                problems.append(error(doc.key_mark(("patches", index, "patch", key)),
                                      f"patches[{index}].patch: {key} cannot be patched"))
    return model if model is not None and len(problems) == before and not doc.problems else None


# --- label selectors (k8s.io/apimachinery/pkg/labels) -------------------------------------

_SELECTOR_TERM = re.compile(r"""^\s*(?:
    (?P<not>!)\s*(?P<nkey>[^\s=!(),]+)
  | (?P<skey>[^\s=!(),]+)\s+(?P<setop>in|notin)\s*\((?P<values>[^()]*)\)
  | (?P<ekey>[^\s=!(),]+)\s*(?P<eqop>==|=|!=)\s*(?P<value>[^\s=!(),]*)
  | (?P<xkey>[^\s=!(),]+)
)\s*$""", re.VERBOSE)


def parse_selector(text: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """A label selector string as (key, operator, values) terms; raises ValueError."""
    terms = []
    for part in _split_terms(text):
        match = _SELECTOR_TERM.match(part)
        if not match:
            raise ValueError(f"cannot read {part.strip()!r}; write terms like key=value, key!=value, "
                             "key in (a,b), key notin (a,b), key or !key, separated by commas")
        if match["nkey"]:
            terms.append((match["nkey"], "!", ()))
        elif match["skey"]:
            values = tuple(v.strip() for v in match["values"].split(",") if v.strip())
            terms.append((match["skey"], match["setop"], values))
        elif match["ekey"]:
            terms.append((match["ekey"], "!=" if match["eqop"] == "!=" else "=", (match["value"],)))
        else:
            terms.append((match["xkey"], "exists", ()))
    if not terms:
        raise ValueError("empty selector; remove labelSelector to select every blueprint")
    return terms


def _split_terms(text: str) -> list[str]:
    """Commas separate terms, except inside the parentheses of `in (a, b)`."""
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    if len(parts) > 1 and any(not p.strip() for p in parts):
        raise ValueError("empty term between commas")
    return [p for p in parts if p.strip()]


def selector_matches(terms, labels: dict) -> bool:
    for key, op, values in terms:
        present = key in labels
        value = labels.get(key)
        if op == "=" and not (present and value == values[0]):
            return False
        if op == "!=" and present and value == values[0]:
            return False
        if op == "in" and not (present and value in values):
            return False
        if op == "notin" and present and value in values:
            return False
        if op == "exists" and not present:
            return False
        if op == "!" and present:
            return False
    return True


# --- applying ---------------------------------------------------------------------------

@dataclass
class Usage:
    """Which patches and image rewrites selected at least one blueprint (for warnings)."""

    used: set[tuple[str, str, int]] = field(default_factory=set)

    def unused(self, overlays: list[Overlay]) -> list[Diagnostic]:
        out = []
        for overlay in overlays:
            for item in overlay.chain():
                for index in range(len(item.model.patches)):
                    if (item.doc.path, "patches", index) not in self.used:
                        out.append(warning(item.doc.key_mark(("patches", index)),
                                           f"patches[{index}] selects no blueprint; check its target"))
                for index, rewrite in enumerate(item.model.images):
                    if (item.doc.path, "images", index) not in self.used:
                        out.append(warning(item.doc.key_mark(("images", index)),
                                           f"images[{index}]: no blueprint uses the image {rewrite.name}"))
        return out


def with_namespace(doc: Document, namespace: str) -> Document:
    """The blueprint with this namespace when it names none (Argo CD's destination
    namespace in a Config Management Plugin); overlays still apply on top."""
    data = doc.data
    if not isinstance(data, dict) or not isinstance(data.get("metadata"), dict) or "namespace" in data["metadata"]:
        return doc
    out = _Patched(doc)
    out.data["metadata"]["namespace"] = namespace
    return _PatchedDocument(doc, out.data, [])


def apply(overlay: Overlay, doc: Document, usage: Usage) -> Document:
    """The blueprint document as this overlay (and its bases) change it, with the marks of
    every value an overlay wrote pointing into that overlay's file."""
    if not isinstance(doc.data, dict):
        return doc
    out = _Patched(doc)
    for item in overlay.chain():
        _apply_one(item, out, usage)
    return out.document()


class _Patched:
    """A blueprint document being changed, and where each written value came from."""

    def __init__(self, doc: Document):
        self.base = doc
        self.data = copy_data(doc.data)
        self.writes: list[tuple[Loc, Document, Loc]] = []  # (blueprint loc, overlay doc, overlay loc)

    def set(self, loc: Loc, value: Any, source: Document, source_loc: Loc) -> None:
        node = self.data
        for part in loc[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node[loc[-1]] = copy_data(value)
        self.writes.append((loc, source, source_loc))

    def get(self, loc: Loc, default=None):
        return value_at(self.data, loc, default)

    def document(self) -> Document:
        if not self.writes:
            return self.base
        return _PatchedDocument(self.base, self.data, self.writes)


class _PatchedDocument(Document):
    """A blueprint document after overlays: its marks are the blueprint's, except where an
    overlay wrote a value, which is marked in the overlay file.

    The marks are only needed to report a problem, so each is looked up when asked for:
    the mark at a location comes from the last write at or above it (from that overlay's
    file), else from the blueprint. A lookup costs the depth of the location, whatever the
    number of writes and marks (merging them up front cost writes x marks)."""

    def __init__(self, base: Document, data, writes):
        self._base = base
        self._writes: dict[Loc, tuple[int, Loc, Document, Loc]] = {}  # location -> its last write
        for order, (loc, source, source_loc) in enumerate(writes):
            self._writes[tuple(loc)] = (order, tuple(loc), source, tuple(source_loc))
        reported = {r for r in base.reported if self._last_write(r) is None}
        for loc, source, source_loc in writes:
            if source.reported:
                m = len(source_loc)
                reported |= {loc + r[m:] for r in source.reported if r[:m] == source_loc}
        super().__init__(base.path, data, base.start, {}, {}, list(base.problems), reported)

    def key_mark(self, loc: Loc) -> Mark:
        return self._nearest_mark(loc, "key_marks")

    def value_mark(self, loc: Loc) -> Mark:
        return self._nearest_mark(loc, "value_marks")

    def _nearest_mark(self, loc: Loc, which: str) -> Mark:
        for end in range(len(loc), 0, -1):
            mark = self._mark_at(tuple(loc[:end]), which)
            if mark is not None:
                return mark
        return self.start

    def _mark_at(self, loc: Loc, which: str) -> Mark | None:
        """The mark written exactly at loc, or None."""
        write = self._last_write(loc)
        if write is None:
            return _mark_at(self._base, loc, which)
        _, where, source, source_loc = write
        return _mark_at(source, source_loc + loc[len(where):], which)

    def _last_write(self, loc: Loc):
        """The last write at loc or at a location above it, or None."""
        found = None
        for end in range(1, len(loc) + 1):
            write = self._writes.get(loc[:end])
            if write is not None and (found is None or write[0] > found[0]):
                found = write
        return found


def _mark_at(doc: Document, loc: Loc, which: str) -> Mark | None:
    if isinstance(doc, _PatchedDocument):
        return doc._mark_at(loc, which)
    return getattr(doc, which).get(loc)


def written_patch_problems(overlays: list[Overlay], reserved) -> list[Diagnostic]:
    """The problems of the values the patches of these overlays (and of their bases)
    state, as written (mpigen.validate.document.written_problems): a bad value is refused even when
    its patch selects no blueprint or a later patch replaces it. At the overlay's line."""
    from mpigen.validate.document import written_problems

    out: list[Diagnostic] = []
    seen: set[int] = set()
    for overlay in overlays:
        for item in overlay.chain():
            if id(item) not in seen:
                seen.add(id(item))
                for index in range(len(item.model.patches)):
                    out += written_problems(_PatchView(item.doc, ("patches", index, "patch")), reserved)
    return out


class _PatchView(Document):
    """One patch of an overlay document, as a part of a blueprint: its values without the
    nulls (which remove a value and state none), marked in the overlay file."""

    def __init__(self, doc: Document, loc: Loc):
        super().__init__(doc.path, _without_nulls(doc.get(loc)), doc.value_mark(loc))
        self._doc, self._loc = doc, loc

    def _nearest(self, marks, loc: Loc) -> Mark:
        which = self._doc.key_marks if marks is self.key_marks else self._doc.value_marks
        return self._doc._nearest(which, self._loc + tuple(loc))


def _without_nulls(value):
    if isinstance(value, dict):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    return value


def _apply_one(overlay: Overlay, out: _Patched, usage: Usage) -> None:
    model, doc = overlay.model, overlay.doc
    if model.namespace is not None:
        out.set(("metadata", "namespace"), model.namespace, doc, ("namespace",))
    for where in ("labels", "annotations"):
        for key, value in getattr(model, where).items():
            out.set(("metadata", where, key), value, doc, (where, key))
    for index, item in enumerate(model.patches):
        if _selected(item.target, out):
            usage.used.add((doc.path, "patches", index))
            _merge_patch(out, (), doc.data["patches"][index]["patch"], doc, ("patches", index, "patch"))
    image = out.get(("spec", "image"))
    if isinstance(image, str):
        for index, rewrite in enumerate(model.images):
            new = rewrite_image(image, rewrite)
            if new is not None:
                usage.used.add((doc.path, "images", index))
                out.set(("spec", "image"), new, doc, ("images", index))
                break


def _selected(target: Target, out: _Patched) -> bool:
    name = out.get(("metadata", "name"))
    if target.name is not None and not (isinstance(name, str) and fnmatch.fnmatchcase(name, target.name)):
        return False
    if target.labelSelector is not None:
        labels = out.get(("metadata", "labels"), {})
        if not isinstance(labels, dict) or not selector_matches(_terms(target.labelSelector), labels):
            return False
    return True


@functools.lru_cache(maxsize=1024)
def _terms(selector: str) -> tuple:
    """A selector parsed once, not once per blueprint (a 4,096-character one takes ~2 ms)."""
    return tuple(parse_selector(selector))


def _merge_patch(out: _Patched, loc: Loc, patch: dict, source: Document, source_loc: Loc) -> None:
    """RFC 7386 on out.data at loc: mappings merge key by key, null deletes, anything else
    (lists included) replaces the value whole."""
    for key, value in patch.items():
        here, there = loc + (key,), source_loc + (key,)
        current = out.get(here)
        if value is None:
            parent = out.get(loc)
            if isinstance(parent, dict) and key in parent:
                del parent[key]
                out.writes.append((here, source, there))
        elif isinstance(value, dict) and isinstance(current, dict):
            _merge_patch(out, here, value, source, there)
        elif isinstance(value, dict):
            out.set(here, {}, source, there)
            _merge_patch(out, here, value, source, there)
        else:
            out.set(here, value, source, there)


def split_image(image: str) -> tuple[str, str | None, str | None]:
    """repository, tag, digest of an image reference (registry ports are not tags)."""
    rest, _, digest = image.partition("@")
    slash = rest.rfind("/")
    colon = rest.rfind(":")
    if colon > slash:
        return rest[:colon], rest[colon + 1:], digest or None
    return rest, None, digest or None


def rewrite_image(image: str, rewrite: ImageRewrite) -> str | None:
    repository, tag, digest = split_image(image)
    if repository != rewrite.name:
        return None
    name = rewrite.newName or repository
    if rewrite.digest:
        return f"{name}@{rewrite.digest}"
    if rewrite.newTag:
        return f"{name}:{rewrite.newTag}"
    return name + (f":{tag}" if tag else "") + (f"@{digest}" if digest else "")
