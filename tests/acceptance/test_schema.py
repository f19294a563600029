"""`mpigen schema` publishes a JSON Schema that accepts every example and rejects what the
validator rejects field by field; the schemas committed under schemas/ are exactly what it
prints, and every example names its schema on its first line for editors (the
`# yaml-language-server: $schema=` modeline)."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.paths import BLUEPRINTS, ROOT


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


# The committed schema of each kind, and the example files that name it.
SCHEMA_FILES = {"MPIJobBlueprint": "blueprint.schema.json", "Overlay": "overlay.schema.json",
                "Config": "config.schema.json"}
EXAMPLES = [*sorted(BLUEPRINTS.glob("*.yaml")), *sorted((ROOT / "overlays").rglob("*.yaml")), ROOT / "mpigen.yaml"]
MODELINE = re.compile(r"# yaml-language-server: \$schema=(\S+)\n")


@pytest.mark.parametrize("kind", SCHEMA_FILES)
def test_the_committed_schemas_are_what_mpigen_schema_prints(kind):
    done = run_mpigen("schema", "--kind", kind, cwd=ROOT)
    assert done.returncode == 0
    committed = (ROOT / "schemas" / SCHEMA_FILES[kind]).read_bytes()
    assert committed == done.stdout, f"schemas/{SCHEMA_FILES[kind]} is stale: run `make schemas`"


def test_schemas_holds_only_the_published_schemas():
    assert sorted(p.name for p in (ROOT / "schemas").iterdir()) == sorted(SCHEMA_FILES.values())


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_example_names_the_schema_of_its_kind_on_its_first_line(path):
    text = path.read_text(encoding="utf-8")
    modeline = MODELINE.match(text)
    assert modeline, f"{path.name}: the first line is not `# yaml-language-server: $schema=...`"
    target = (path.parent / modeline.group(1)).resolve()
    assert target.is_file(), f"{path.name}: {modeline.group(1)} does not exist"
    kinds = {doc["kind"] for doc in yaml.safe_load_all(text) if doc}
    assert [target] == [(ROOT / "schemas" / SCHEMA_FILES[kind]).resolve() for kind in kinds]
