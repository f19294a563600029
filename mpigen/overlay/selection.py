"""Which jobs a selector picks (mpigen.formats.overlay.Target: a shell-style glob on
metadata.name and a Kubernetes label selector on metadata.labels, both when both are given):
what an overlay's patches and the target rules of overlays and mpigen.yaml (`targets`) select
alike, and a selector that does not parse, at its line."""

from __future__ import annotations

import fnmatch
import functools

from mpigen.errors import Diagnostic, error
from mpigen.formats.overlay import Target
from mpigen.kube.selectors import parse_selector, selector_matches
from mpigen.load.document import Document


def selects(target: Target, name: object, labels: object) -> bool:
    """Whether the selector picks the job of this metadata.name and metadata.labels (as read:
    anything but a string name or a mapping of labels is picked by no selector that asks for it)."""
    if target.name is not None and not (isinstance(name, str) and fnmatch.fnmatchcase(name, target.name)):
        return False
    if target.labelSelector is not None:
        if not isinstance(labels, dict) or not selector_matches(_terms(target.labelSelector), labels):
            return False
    return True


@functools.lru_cache(maxsize=1024)
def _terms(selector: str) -> tuple:
    """A selector parsed once, not once per blueprint (a 4,096-character one takes ~2 ms)."""
    return tuple(parse_selector(selector))


def selector_problems(doc: Document, key: str, selector_path: tuple) -> list[Diagnostic]:
    """The label selector of each item of the list `key` of the document's data (at
    `selector_path` within the item) that does not parse, at its value; read from the raw data,
    so that it is reported even when another field of the file is wrong."""
    items = doc.data.get(key) if isinstance(doc.data, dict) else None
    out = []
    for index, item in enumerate(items if isinstance(items, list) else []):
        selector = item
        for part in selector_path:
            selector = selector.get(part) if isinstance(selector, dict) else None
        if isinstance(selector, str) and selector:
            try:
                parse_selector(selector)
            except ValueError as exc:
                where = (key, index, *selector_path)
                out.append(error(doc.value_mark(where), f"{key}[{index}].{'.'.join(selector_path)}: {exc}"))
    return out
