"""A file's result as its cache entry holds it, and back: the documents' texts moved after the
entry's summary, each object keeping its place there (mpigen.cache.store.CachedText), then
put where the run wants them.

A result is the pipeline's: `per_env`, a list per environment of the results of each
blueprint document, each with its `objects` (mpigen.emit.rendered.RenderedObject)."""

from __future__ import annotations

from dataclasses import replace

from mpigen.cache.store import THIS_ENTRY, CachedText


def packed(result) -> tuple[object, bytes]:
    """(the result as its entry holds it, the texts after it): each text but a shared object's
    (a cluster-scoped object keeps its text: jobs that render it the same share it) moved
    after the summary. The result given is left as it was."""
    texts = bytearray()

    def moved(o):
        data = o.text.encode("utf-8")
        texts.extend(data)
        return o._replace(text="", ref=CachedText(THIS_ENTRY, len(texts) - len(data), len(data), o.digest))

    per_env = [[replace(r, objects=[o if o.shared else moved(o) for o in r.objects]) if r.objects else r
                for r in results] for results in result.per_env]
    return replace(result, per_env=per_env), bytes(texts)


def placed(result, store):
    """A result read from the cache, its texts where the run wants them: left in the cache for
    a store that reads them from there (only those it writes or prints are read), put in one
    that must hold them itself (mpigen.emit.rendered.TextStore.adopt), read back without a store."""
    for results in result.per_env:
        for i, r in enumerate(results):
            if not r.objects:
                continue
            if store is None:
                objects = [o if o.ref is None else o._replace(text=o.ref.read().decode("utf-8"), ref=None)
                           for o in r.objects]
            else:
                objects = [o if o.ref is None or (ref := store.adopt(o.out_path, o.ref)) is o.ref
                           else o._replace(ref=ref) for o in r.objects]
            results[i] = replace(r, objects=objects)
    return result
