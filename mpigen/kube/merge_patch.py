"""JSON merge patch (RFC 7386), as `kubectl patch --type merge` applies it."""

from __future__ import annotations

from typing import Any, Callable

from mpigen.kube.data import copy_data

Written = Callable[[tuple], None]


def merge_patch(target: Any, patch: Any, written: Written | None = None) -> Any:
    """The target with the patch applied: mappings merge key by key, null removes, anything
    else (lists included) replaces the value whole. Neither argument is changed, and the
    result shares no list or mapping with the patch.

    `written`, when given, is called with the location (a tuple of keys) of every value the
    patch sets or removes, in order: a mapping merged into a mapping is not itself written,
    a mapping that replaces anything else is, before the values inside it."""
    return _merge(target, patch, written, ())


def _merge(target: Any, patch: Any, written: Written | None, loc: tuple) -> Any:
    if not isinstance(patch, dict):
        if written is not None:
            written(loc)
        return copy_data(patch)
    if isinstance(target, dict):
        result = dict(target)
    else:
        result = {}
        if written is not None:
            written(loc)
    for key, value in patch.items():
        if value is None:
            if key in result:
                del result[key]
                if written is not None:
                    written(loc + (key,))
        else:
            result[key] = _merge(result.get(key), value, written, loc + (key,))
    return result
