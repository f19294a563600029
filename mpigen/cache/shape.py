"""The shape of a file's result: everything the rest of a run takes from it but the bytes of its
documents (its problems and warnings with their places, its jobs, and where each object goes
and sorts), as one digest. Two results of one shape differ only in their documents' bytes, so
that what a repository renders changes only in those files (mpigen.project.incremental).

A result is the pipeline's: its `problems`, `per_env` (a list per environment of the results
of each blueprint document, each with its `diagnostics`, `name_mark`, `job` and `objects`:
mpigen.emit.rendered.RenderedObject) and `used` (the overlay patches it used)."""

from __future__ import annotations

import hashlib
import pickle


def shape(result) -> bytes | None:
    """The digest of the result's shape; None when its documents matter beyond their own
    files: an error (the run stops), or a cluster-scoped object that jobs share (which job's
    copy is written depends on the other files)."""
    per_env = []
    for results in result.per_env:
        docs = []
        for r in results:
            if any(o.shared for o in r.objects) or any(d.severity == "error" for d in r.diagnostics):
                return None
            docs.append((r.diagnostics, r.name_mark, r.job,
                         [(o.sort_key, o.path, o.env, o.running_workers, o.root) for o in r.objects]))
        per_env.append(docs)
    if any(d.severity == "error" for d in result.problems):
        return None
    data = pickle.dumps((result.problems, per_env, sorted(result.used)), protocol=pickle.HIGHEST_PROTOCOL)
    return hashlib.sha256(data).digest()
