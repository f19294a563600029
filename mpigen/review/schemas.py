"""Validate rendered objects the way an API server with strict field validation would:
Kubernetes' own kinds against the OpenAPI schemas of a Kubernetes version (the strict JSON
schemas kubernetes-validate ships: an unknown field is an error), and the kinds the table of
kinds (mpigen.render.targets.kind_facts) gives a schema or a model against it: a schema (the
CustomResourceDefinition mpigen generates for that version) as JSON Schema, a model with
mpigen.review.api_models. A custom resource with neither at hand (a PodGroup: its CRD belongs
to the scheduler) is reported as skipped, as kubeconform does. The reports:
mpigen.review.object_reports.
"""

from __future__ import annotations

from typing import Callable

from mpigen.render.targets import kind_facts
from mpigen.review.api_models import validate_with_model
from mpigen.review.object_reports import ObjectReport, check_rendered

Validator = Callable[[dict], list[str]]  # an object -> its problems, each `path: message`


def crd_json_schema(node: dict) -> dict:
    """A CRD's structural schema as plain JSON Schema: unknown fields are errors (the API
    server would prune them, and with strict field validation refuse them)."""
    out = {k: v for k, v in node.items() if not k.startswith("x-kubernetes") and k not in ("nullable", "format")}
    if node.get("x-kubernetes-int-or-string"):
        out["type"] = ["integer", "string"]
    if "properties" in node:
        out["properties"] = {k: crd_json_schema(v) for k, v in node["properties"].items()}
        if not node.get("x-kubernetes-preserve-unknown-fields"):
            out["additionalProperties"] = False
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            out[key] = crd_json_schema(node[key])
    return out


def _schema_validator(schema: dict) -> Validator:
    import jsonschema

    validator = jsonschema.Draft7Validator(crd_json_schema(schema))
    return lambda obj: [_describe(e) for e in sorted(validator.iter_errors(obj), key=lambda e: list(e.absolute_path))]


def _validator(api: str, kind: str, kube_version: str) -> Validator | None:
    """The table's validator of a kind: its schema's, else its model's; None without either."""
    facts = kind_facts(api, kind)
    schema = facts.schema(api, kube_version) if facts is not None and facts.schema is not None else None
    if schema is not None:
        return _schema_validator(schema)
    model = facts.model(api) if facts is not None and facts.model is not None else None
    if model is not None:
        return lambda obj: validate_with_model(obj, model)
    return None


def validate_object(obj: dict, kube_version: str, validators: dict) -> tuple[str, list[str]]:
    """(status, errors) of one object; validators holds the table's, made once per (apiVersion, kind)."""
    import kubernetes_validate

    api, kind = obj.get("apiVersion", ""), obj.get("kind", "")
    if (api, kind) not in validators:
        validators[api, kind] = _validator(api, kind, kube_version)
    if validators[api, kind] is not None:
        problems = validators[api, kind](obj)
        return ("invalid", problems) if problems else ("valid", [])
    skipped = "skipped", [f"no schema for {api} {kind} (a custom resource whose CRD mpigen does not generate)"]
    try:
        kubernetes_validate.validate(obj, f"{kube_version}.0", strict=True)
    except kubernetes_validate.SchemaNotFoundError:
        return skipped
    except kubernetes_validate.ValidationError as exc:
        # kubernetes-validate finds a schema by kind and the group's first word, so a custom
        # resource can meet a Kubernetes kind of the same name (scheduling.volcano.sh's
        # PodGroup and scheduling.k8s.io's, since 1.35): its apiVersion then is the error.
        if list(exc.absolute_path) == ["apiVersion"]:
            return skipped
        return "invalid", [_describe(exc)]
    return "valid", []


def _describe(error) -> str:
    where = ".".join(str(p) for p in error.absolute_path) or "object"
    return f"{where}: {error.message}"


def validate_rendered(rendered, kube_version: str) -> list[ObjectReport]:
    validators: dict = {}
    return check_rendered(rendered, lambda obj: validate_object(obj, kube_version, validators))
