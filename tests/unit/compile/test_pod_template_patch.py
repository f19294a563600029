"""spec.podTemplatePatch: the escape hatch for pod spec and MPI container fields the
blueprint has no field for, applied last as JSON merge patches."""

from __future__ import annotations

import json

from tests.support.blueprints import blueprint_text
from tests.support.kubernetes_schema import validate
from tests.support.rendering import by_kind, render_text


def test_the_patchable_fields_are_kubernetes_1_30_fields():
    from importlib.resources import files

    from mpigen.formats.pod_template_patch import CONTAINER_FIELDS, POD_FIELDS

    folder = files("kubernetes_validate") / "kubernetes-json-schema" / "v1.30.0-local"
    definitions = json.loads((folder / "_definitions.json").read_text())["$defs"]
    assert set(POD_FIELDS) == set(definitions["io.k8s.api.core.v1.PodSpec"]["properties"])
    assert set(CONTAINER_FIELDS) == set(definitions["io.k8s.api.core.v1.Container"]["properties"])


def _schema_type(prop: dict) -> str:
    """A property of the 1.30 schema as mpigen.formats.pod_field_types writes a type: a $ref is
    the definition's name, an array [its items' type]."""
    ref = prop.get("$ref") or (prop.get("allOf") or [{}])[0].get("$ref")
    if ref is not None:
        return ref.rsplit(".", 1)[-1]
    types = prop["type"] if isinstance(prop["type"], str) else next(t for t in prop["type"] if t != "null")
    return f"[{_schema_type(prop['items'])}]" if types == "array" else types


def test_the_patch_field_types_are_kubernetes_1_30_types():
    """A patched value of another JSON type than its field's is refused by the API server's
    decoder: the table mpigen checks with is the schema's, field for field, where a definition
    the table does not expand stands as object."""
    from importlib.resources import files

    from mpigen.formats.pod_field_types import JSON_TYPES, TYPES
    from mpigen.formats.pod_template_patch import CONTAINER_FIELDS, POD_FIELDS

    folder = files("kubernetes_validate") / "kubernetes-json-schema" / "v1.30.0-local"
    definitions = json.loads((folder / "_definitions.json").read_text())["$defs"]
    assert set(TYPES["PodSpec"]) == set(POD_FIELDS) and set(TYPES["Container"]) == set(CONTAINER_FIELDS)
    for name, fields in TYPES.items():
        properties = definitions[f"io.k8s.api.core.v1.{name}"]["properties"]
        assert set(fields) == set(properties), name
        for key, kind in fields.items():
            schema = _schema_type(properties[key])
            unexpanded = kind.strip("[]") == "object" and schema.strip("[]") not in JSON_TYPES
            assert kind == schema or (unexpanded and kind.count("[") == schema.count("[")), (name, key, kind, schema)


PATCH = {"launcher": {"pod": {"priorityClassName": "batch", "securityContext": {"runAsNonRoot": True}},
                      "container": {"workingDir": "/workspace"}},
         "worker": {"pod": {"shareProcessNamespace": True, "terminationGracePeriodSeconds": 30},
                    "container": {"securityContext": {"capabilities": {"add": ["IPC_LOCK"]}}}}}


def test_the_patch_lands_in_the_rendered_pods_and_validates():
    objects = by_kind(render_text(blueprint_text(podTemplatePatch=PATCH)))
    launcher = objects["Job"]["spec"]["template"]["spec"]
    worker = objects["StatefulSet"]["spec"]["template"]["spec"]
    assert launcher["priorityClassName"] == "batch" and launcher["securityContext"] == {"runAsNonRoot": True}
    assert launcher["containers"][0]["workingDir"] == "/workspace"
    assert launcher["serviceAccountName"] == "job-launcher"  # the operator's still
    assert worker["shareProcessNamespace"] is True and worker["terminationGracePeriodSeconds"] == 30
    # merged into mpigen's least privilege
    assert worker["containers"][0]["securityContext"] == {"allowPrivilegeEscalation": False,
                                                          "capabilities": {"drop": ["ALL"], "add": ["IPC_LOCK"]}}
    assert worker["containers"][0]["command"] == ["sleep"]  # the operator's additions come after
    for obj in objects.values():
        validate(obj)


def test_null_removes_and_mappings_merge():
    patch = {"worker": {"container": {"securityContext": {"runAsUser": 1000, "runAsGroup": None}}}}
    objects = by_kind(render_text(blueprint_text(podTemplatePatch=patch)))
    assert objects["StatefulSet"]["spec"]["template"]["spec"]["containers"][0]["securityContext"] == {
        "allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}, "runAsUser": 1000}
