"""Applying overlays: the changes one environment makes to blueprints before they are validated.

Order: bases first (each overlay once), then this overlay's namespace, labels and
annotations, then its patches (so a patch can override them for some blueprints), then
image rewrites (so they also apply to images set by patches).

Every value an overlay writes keeps its position in the overlay file, so a patch that
makes a blueprint invalid is reported at the overlay line, naming the blueprint.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from mpigen.errors import Diagnostic, close_matches, warning
from mpigen.formats.overlay import ImageRewrite, Target
from mpigen.kube.image import split_image
from mpigen.load.document import Document
from mpigen.overlay.patched import Patched, PatchedDocument
from mpigen.overlay.resolve import Overlay
from mpigen.overlay.selection import selects


@dataclass
class Usage:
    """Which patches and image rewrites selected at least one blueprint (for warnings)."""

    used: set[tuple[str, str, int]] = field(default_factory=set)

    def unused(self, overlays: list[Overlay], jobs: dict[str, str] | None = None) -> list[Diagnostic]:
        """A warning for each patch and image rewrite that selected no blueprint; a patch's
        names the jobs nearest to its target.name (`jobs`: each job's name -> the file it is in)."""
        out = []
        for overlay in overlays:
            for item in overlay.chain():
                for index, patch in enumerate(item.model.patches):
                    if (item.doc.path, "patches", index) not in self.used:
                        out.append(warning(item.doc.key_mark(("patches", index)),
                                           f"patches[{index}] selects no blueprint; "
                                           f"{nearest_jobs(patch.target, jobs or {})}"))
                for index, rewrite in enumerate(item.model.images):
                    if (item.doc.path, "images", index) not in self.used:
                        out.append(warning(item.doc.key_mark(("images", index)),
                                           f"images[{index}]: no blueprint uses the image {rewrite.name}"))
        return out


def nearest_jobs(target: Target, jobs: dict[str, str], key: str = "target") -> str:
    """What to check of a selector that selects nothing (`key`: a patch's `target`, a target
    rule's `jobs`): a name that is a blueprint's file name rather than its job's, else the job
    names nearest to it; else the selector."""
    name = target.name
    if not jobs:
        return f"check its {key}"
    if name is None:
        return f"no blueprint's labels match labelSelector {target.labelSelector!r}; check its {key}"
    named = [job for job in sorted(jobs) if fnmatch.fnmatchcase(job, name)]
    if named:
        return (f"{key}.name {name!r} matches {', '.join(named[:3])}{', ...' if len(named) > 3 else ''}, whose "
                f"labels do not match labelSelector {target.labelSelector!r}; check its {key}")
    by_file = {PurePosixPath(path).stem: job for job, path in jobs.items()}
    if name in by_file and by_file[name] != name:
        job = by_file[name]
        return (f"{key}.name {name!r} is the file name of {jobs[job]}, whose job is named {job!r}: {key}.name "
                f"matches metadata.name; write name: {job}")
    nearest = close_matches(name, sorted(jobs), n=3, cutoff=0.5)
    if nearest:
        return (f"no job is named {name!r}; did you mean {' or '.join(repr(n) for n in nearest)}? ({key}.name "
                "matches metadata.name, a shell-style glob)")
    shown = sorted(jobs)[:5]
    more = f", ... ({len(jobs)} in all)" if len(jobs) > len(shown) else ""
    return f"no job is named like {name!r} ({key}.name matches metadata.name); the jobs: {', '.join(shown)}{more}"


def with_namespace(doc: Document, namespace: str) -> Document:
    """The blueprint with this namespace when it names none (Argo CD's destination
    namespace in a Config Management Plugin); overlays still apply on top."""
    data = doc.data
    if not isinstance(data, dict) or not isinstance(data.get("metadata"), dict) or "namespace" in data["metadata"]:
        return doc
    out = Patched(doc)
    out.data["metadata"]["namespace"] = namespace
    return PatchedDocument(doc, out.data, [])


def apply(overlay: Overlay, doc: Document, usage: Usage) -> Document:
    """The blueprint document as this overlay (and its bases) change it, with the marks of
    every value an overlay wrote pointing into that overlay's file."""
    if not isinstance(doc.data, dict):
        return doc
    out = Patched(doc)
    for item in overlay.chain():
        _apply_one(item, out, usage)
    return out.document()


def _apply_one(overlay: Overlay, out: Patched, usage: Usage) -> None:
    model, doc = overlay.model, overlay.doc
    if model.namespace is not None:
        out.set(("metadata", "namespace"), model.namespace, doc, ("namespace",))
    for where in ("labels", "annotations"):
        for key, value in getattr(model, where).items():
            out.set(("metadata", where, key), value, doc, (where, key))
    for index, item in enumerate(model.patches):
        if _selected(item.target, out):
            usage.used.add((doc.path, "patches", index))
            out.merge(doc.data["patches"][index]["patch"], doc, ("patches", index, "patch"))
    image = out.get(("spec", "image"))
    if isinstance(image, str):
        for index, rewrite in enumerate(model.images):
            new = rewrite_image(image, rewrite)
            if new is not None:
                usage.used.add((doc.path, "images", index))
                out.set(("spec", "image"), new, doc, ("images", index))
                break


def _selected(target: Target, out: Patched) -> bool:
    return selects(target, out.get(("metadata", "name")), out.get(("metadata", "labels"), {}))


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
