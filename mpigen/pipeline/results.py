"""What the pipeline gives of one blueprint file, and that result's shape: everything the
checks across jobs and the ordering of environments take from it but the bytes of its
documents, as one digest.

Two results of one shape differ only in their documents' bytes, so that what a repository
renders changes only in those files (mpigen.project.incremental patches the output folder in
place at equal shape). The fields each part of the shape covers are named beside the types
(tests/unit/pipeline/test_results.py fails when a type gains a field neither covered nor
named as left out)."""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass, field

from mpigen.emit.rendered import RenderedObject
from mpigen.errors import Diagnostic, Mark
from mpigen.render.watched import Watched

Job = tuple[str, str]  # (namespace, name)
# An object a job references and does not write (a Trainer runtime the cluster has): its sort
# key (mpigen.emit.install_order), "<Kind> <namespace>/<name>", and where the blueprint names it.
Expected = tuple[tuple, str, Mark]
# An object a job writes under a name one of its fields gives (Target.names): its sort key, the
# field, and where the blueprint writes it.
Named = tuple[tuple, str, Mark]
UsedPatch = tuple[str, str, int]  # (overlay document's path, "patches" or "images", index): mpigen.overlay.apply.Usage


@dataclass
class DocResult:
    """What one blueprint document gives under one environment: its problems and warnings,
    where its metadata.name is written and its job (None: not valid), its objects, and the
    objects it says the cluster has (Expected), those a field of its names (Named), and, where the environment is monitored, what
    its alerts watch (mpigen.render.watched)."""

    diagnostics: list[Diagnostic]
    name_mark: Mark | None = None
    job: Job | None = None
    objects: list[RenderedObject] = field(default_factory=list)
    expects: list[Expected] = field(default_factory=list)
    named: list[Named] = field(default_factory=list)
    watched: Watched | None = None


@dataclass
class FileResult:
    """What one blueprint file gives: its loading problems, per environment the result of each
    blueprint document in it (in file order), the overlay patches it used, and its shape."""

    problems: list[Diagnostic]
    per_env: list[list[DocResult]]
    used: set[UsedPatch]
    shape: bytes | None = None  # shape(this result), made as it is computed where the run has a cache (which keeps it)


# The fields of each type that the shape covers, and those it leaves out: the documents' bytes
# (an object's text, where a store keeps it, and its sha256) and the shape itself.
FILE_SHAPE, FILE_LEFT_OUT = ("problems", "per_env", "used"), ("shape",)
DOC_SHAPE, DOC_LEFT_OUT = ("diagnostics", "name_mark", "job", "objects", "expects", "named", "watched"), ()
OBJECT_SHAPE, OBJECT_LEFT_OUT = (("sort_key", "path", "env", "running_workers", "root", "admitted", "cluster_scoped"),
                                 ("text", "ref", "digest"))


def shape(result: FileResult) -> bytes | None:
    """The digest of the result's shape; None when its documents matter beyond their own
    files: an error (the run stops), or a cluster-scoped object that jobs share (which job's
    copy is written depends on the other files)."""
    if any(d.severity == "error" for d in result.problems):
        return None
    per_env = []
    for results in result.per_env:
        docs = []
        for r in results:
            if any(o.shared for o in r.objects) or any(d.severity == "error" for d in r.diagnostics):
                return None
            docs.append(_parts(r, DOC_SHAPE, objects=[_parts(o, OBJECT_SHAPE) for o in r.objects]))
        per_env.append(docs)
    parts = _parts(result, FILE_SHAPE, per_env=per_env, used=sorted(result.used))
    return hashlib.sha256(pickle.dumps(parts, protocol=pickle.HIGHEST_PROTOCOL)).digest()


def _parts(item: object, names: tuple[str, ...], **given: object) -> tuple:
    """The values of these fields of `item`, in order (those `given` as given)."""
    return tuple(given[name] if name in given else getattr(item, name) for name in names)
