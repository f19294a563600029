"""The large kustomization.yaml texts of a render, kept in the cache under the list of paths
they hold: at 10,000 jobs the root's lists 63,000 files, and emitting it costs half a second
of a render in which one blueprint changed (its list then rarely changes)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from mpigen.cache.fingerprint import build
from mpigen.cache.store import EntryStore
from mpigen.emit.layout import kustomization_text

# Shorter lists cost less to emit than to look up.
LARGE = 1000
_DOMAIN = b"mpigen kustomization.yaml of resources\n"  # apart from every file's key (mpigen.cache.fingerprint)


def kustomizations(cache: Path | None, large: int = LARGE) -> Callable[[list[str]], str]:
    """kustomization_text, its large texts kept in the cache folder `cache` (None: no cache).
    An entry is the text of exactly its list (the key is a digest of the list in JSON, so no
    two lists share one); anything else found under a key is ignored. Lists shorter than
    `large` are emitted each time."""
    if cache is None:
        return kustomization_text
    store = EntryStore(cache, build().hex()[:16], frozenset())

    def text(paths: list[str]) -> str:
        if len(paths) < large:
            return kustomization_text(paths)
        key = hashlib.sha256(_DOMAIN + json.dumps(paths).encode("utf-8")).digest()
        found = store.get(key)
        if isinstance(found, str):
            return found
        made = kustomization_text(paths)
        store.put(key, made)
        return made

    return text
