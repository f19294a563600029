"""`mpigen schema` publishes a JSON Schema that accepts every example and rejects what the
validator rejects field by field."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml

from tests.conftest import BLUEPRINTS, ROOT, run_mpigen


@pytest.fixture(scope="module")
def schema():
    done = run_mpigen("schema", cwd=ROOT)
    assert done.returncode == 0
    schema = json.loads(done.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


@pytest.mark.parametrize("path", sorted(BLUEPRINTS.glob("*.yaml")), ids=lambda p: p.name)
def test_examples_validate_against_the_schema(schema, path):
    for doc in yaml.safe_load_all(path.read_text()):
        jsonschema.validate(doc, schema)


@pytest.mark.parametrize("change", [
    {"workers": 0}, {"workers": "4"}, {"framework": "pytorchh"}, {"wrkers": 2}, {"gpusPerWorker": -1},
    {"env": {"BAD-NAME": "x"}}, {"datasets": [{"name": "d", "mountPath": "relative", "pvc": "c"}]},
    {"resources": {"worker": {"cpu": "lots"}}}, {"mainContainer": "Main"},
])
def test_the_schema_rejects_invalid_fields(schema, change):
    doc = yaml.safe_load((BLUEPRINTS / "tensorflow-mnist.yaml").read_text())
    doc["spec"].update(change)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)


def test_every_field_has_a_description(schema):
    def walk(node, where):
        if isinstance(node, dict):
            for name, prop in node.get("properties", {}).items():
                assert prop.get("description") or "$ref" in prop or "allOf" in prop, f"{where}.{name}"
            for key, value in node.items():
                walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for item in node:
                walk(item, where)

    walk(schema, "schema")


def test_schema_output_is_stable():
    assert run_mpigen("schema", cwd=ROOT).stdout == run_mpigen("schema", cwd=ROOT).stdout


@pytest.mark.parametrize("kind, files", [
    ("Overlay", sorted((ROOT / "overlays").glob("*/*.yaml"))),
    ("Config", [ROOT / "mpigen.yaml"]),
])
def test_overlay_and_config_schemas_accept_the_examples(kind, files):
    done = run_mpigen("schema", "--kind", kind, cwd=ROOT)
    assert done.returncode == 0
    schema = json.loads(done.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert files
    for path in files:
        jsonschema.validate(yaml.safe_load(path.read_text()), schema)
    bad = dict(yaml.safe_load(files[0].read_text()), unknown=1)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
