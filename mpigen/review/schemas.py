"""Validate rendered objects the way an API server with strict field validation would:
Kubernetes' own kinds against the OpenAPI schemas of a Kubernetes version (the strict
JSON schemas kubernetes-validate ships: an unknown field is an error), MPIJobs against the
CustomResourceDefinition mpigen generates for that version (mpigen.render.mpijob.crd). A custom
resource with no schema at hand (a PodGroup: its CRD belongs to the scheduler) is
reported as skipped, as kubeconform does.

Reports come as text (one line per object), JSON, or JUnit XML for CI; `validate --server`
(mpigen.review.live) reports the API server's answers in the same forms.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

STATUSES = ("valid", "invalid", "skipped")


@dataclass
class ObjectReport:
    file: str  # where the object is written (env/namespace/kind-name.yaml)
    source: str  # the blueprint it comes from
    apiVersion: str
    kind: str
    namespace: str
    name: str
    status: str
    errors: list[str] = field(default_factory=list)


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

    from mpigen.render.mpijob.crd import new_crd

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


def check_rendered(rendered, check) -> list[ObjectReport]:
    """A report per rendered object (pipeline.RenderedObject), each read back from the exact
    text mpigen writes; `check(object) -> (status, errors)`."""
    from mpigen.load.parser import parse

    reports = []
    for item in rendered:
        file = f"{item.env}/{item.path}" if item.env else item.path
        obj = parse(item.text, file)[0].data
        meta = obj.get("metadata", {})
        source = item.text.split("\n", 2)[1].removeprefix("# Source: ") if item.text.startswith("---\n# ") else ""
        status, errors = check(obj)
        reports.append(ObjectReport(file, source, obj.get("apiVersion", ""), obj.get("kind", ""),
                                    meta.get("namespace", ""), meta.get("name", ""), status, errors))
    return reports


def validate_rendered(rendered, kube_version: str) -> list[ObjectReport]:
    validators: dict = {}
    return check_rendered(rendered, lambda obj: validate_object(obj, kube_version, validators))


def summary(reports: list[ObjectReport]) -> dict[str, int]:
    return {"objects": len(reports), **{status: sum(r.status == status for r in reports) for status in STATUSES}}


def format_text(reports: list[ObjectReport], against: str) -> str:
    lines = []
    for r in reports:
        what = f"{r.file}: {r.kind} {r.namespace}/{r.name}" if r.namespace else f"{r.file}: {r.kind} {r.name}"
        if r.status == "valid":
            lines.append(f"{what} is valid")
        else:
            lines += [f"{what} is {r.status}: {error}" for error in r.errors]
    counts = summary(reports)
    lines.append(f"Summary: {counts['objects']} objects against {against}: {counts['valid']} valid, "
                 f"{counts['invalid']} invalid, {counts['skipped']} skipped")
    return "\n".join(lines) + "\n"


def format_json(reports: list[ObjectReport], against: str) -> str:
    return json.dumps({"against": against, "resources": [asdict(r) for r in reports],
                       "summary": summary(reports)}, indent=2) + "\n"


def format_junit(reports: list[ObjectReport], against: str) -> str:
    """One test suite per blueprint, one test case per object (JUnit XML, as CI systems read it)."""
    from xml.sax.saxutils import quoteattr, escape

    suites: dict[str, list[ObjectReport]] = {}
    for r in reports:
        suites.setdefault(r.source or r.file, []).append(r)
    counts = summary(reports)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<testsuites name={quoteattr(f"mpigen validate ({against})")} '
           f'tests="{counts["objects"]}" failures="{counts["invalid"]}" skipped="{counts["skipped"]}">']
    for source, items in suites.items():
        failures = sum(r.status == "invalid" for r in items)
        skipped = sum(r.status == "skipped" for r in items)
        out.append(f'  <testsuite name={quoteattr(source)} tests="{len(items)}" failures="{failures}" '
                   f'skipped="{skipped}">')
        for r in items:
            name = quoteattr(f"{r.kind} {r.namespace}/{r.name}" if r.namespace else f"{r.kind} {r.name}")
            head = f'    <testcase classname={quoteattr(r.file)} name={name}'
            if r.status == "valid":
                out.append(head + "/>")
            elif r.status == "skipped":
                out.append(head + f'><skipped message={quoteattr(r.errors[0])}/></testcase>')
            else:
                out.append(head + f'><failure message={quoteattr(r.errors[0])}>'
                           f'{escape(chr(10).join(r.errors))}</failure></testcase>')
        out.append("  </testsuite>")
    out.append("</testsuites>")
    return "\n".join(out) + "\n"


FORMATS = {"text": format_text, "json": format_json, "junit": format_junit}
