"""Validate rendered objects the way an API server with strict field validation would:
Kubernetes' own kinds against the OpenAPI schemas of a Kubernetes version (the strict
JSON schemas kubernetes-validate ships: an unknown field is an error), MPIJobs against the
CustomResourceDefinition mpigen generates for that version (mpigen.render.mpijob.crd), JobSets,
TrainJobs and Trainer runtimes against Kubeflow's models of them (mpigen.review.kubeflow_models). A custom
resource with no schema at hand (a PodGroup: its CRD belongs to the scheduler) is
reported as skipped, as kubeconform does. The reports: mpigen.review.object_reports.
"""

from __future__ import annotations

from mpigen.render.mpijob.crd import new_crd
from mpigen.review.kubeflow_models import MODELS, validate_kubeflow
from mpigen.review.object_reports import ObjectReport, check_rendered


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


def _mpijob_validator(api: str, kube_version: str):
    import jsonschema

    definition = new_crd(api, kube_version)
    schema = crd_json_schema(definition["spec"]["versions"][0]["schema"]["openAPIV3Schema"])
    return jsonschema.Draft7Validator(schema)


def validate_object(obj: dict, kube_version: str, validators: dict) -> tuple[str, list[str]]:
    """(status, errors) of one object."""
    import kubernetes_validate

    api, kind = obj.get("apiVersion", ""), obj.get("kind", "")
    if kind == "MPIJob" and api in ("kubeflow.org/v2beta1", "kubeflow.org/v1"):
        if api not in validators:
            validators[api] = _mpijob_validator(api, kube_version)
        errors = sorted(validators[api].iter_errors(obj), key=lambda e: list(e.absolute_path))
        return ("invalid", [_describe(e) for e in errors]) if errors else ("valid", [])
    if (api, kind) in MODELS:
        problems = validate_kubeflow(obj)
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
