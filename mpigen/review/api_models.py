"""Rendered objects against pydantic models of their APIs (a kind's `model` in the table of
kinds: Kubeflow's, from the PyPI package kubeflow-trainer-api, generated from OpenAPI
schemas). The models drop keys they do not know; read
strictly, as the API server's strict field validation does, every key of the object that the
model did not keep is an unknown field. What the models serialise (quantities as floats,
defaults added) is never used: only whether the object validates, and which of its keys it
dropped."""

from __future__ import annotations

from pydantic import ValidationError


def validate_with_model(obj: dict, model_class: type) -> list[str]:
    """The problems of obj as model_class reads it, each `path: message`; none when it is valid."""
    try:
        model = model_class.from_dict(obj)
    except ValidationError as exc:
        # The models validate each nested object on its own: the location is within it.
        return [f"{'.'.join(str(p) for p in e['loc']) or 'object'} (of a {exc.title}): {e['msg']}"
                for e in exc.errors()]
    return [f"{'.'.join(str(p) for p in path)}: unknown field" for path in dropped(obj, model.to_dict())]


def dropped(given, kept, path: tuple = ()) -> list[tuple]:
    """The paths of the keys of `given` that `kept` (the model's dump of it) lacks."""
    if isinstance(given, dict):
        if not isinstance(kept, dict):
            return [path] if given else []
        return [p for key, value in given.items()
                for p in ([path + (key,)] if key not in kept else dropped(value, kept[key], path + (key,)))]
    if isinstance(given, list) and isinstance(kept, list) and len(given) == len(kept):
        return [p for i, (a, b) in enumerate(zip(given, kept)) for p in dropped(a, b, path + (i,))]
    return []
