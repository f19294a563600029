"""The published JSON Schema of the blueprint (mpigen.formats.schema.json_schema), read by a
JSON Schema 2020-12 validator of its own (the jsonschema library, as editors and CI read
schemas/blueprint.schema.json), says of each blueprint what the model says: valid or not, and
for an invalid field, at that field."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from mpigen.formats.blueprint import Blueprint
from mpigen.formats.config import ConfigModel
from mpigen.formats.overlay import OverlayModel
from mpigen.formats.schema import json_schema
from tests.support.blueprints import blueprint

BLUEPRINT_VALIDATOR = Draft202012Validator(json_schema(), format_checker=Draft202012Validator.FORMAT_CHECKER)

CASES = [
    pytest.param(blueprint(), None, id="minimal"),
    pytest.param(blueprint(namespace="ml", labels={"team": "vision"}, gpusPerWorker=2, slotsPerWorker=2,
                           env={"NCCL_DEBUG": "INFO"}, resources={"worker": {"cpu": 4, "memory": "8Gi"}}),
                 None, id="common-fields"),
    pytest.param(blueprint(workers=0), ("spec", "workers"), id="no-workers"),
    pytest.param(blueprint(workers="2"), ("spec", "workers"), id="workers-as-text"),
    pytest.param(blueprint(image=None), ("spec",), id="no-image"),
    pytest.param(blueprint("Job"), ("metadata", "name"), id="name-not-a-label"),
    pytest.param(blueprint(namespace="Team"), ("metadata", "namespace"), id="namespace-not-a-label"),
    pytest.param(blueprint(framework="pytorchh"), ("spec", "framework"), id="framework-unknown"),
    pytest.param(blueprint(wrokers=2), ("spec",), id="unknown-key"),
    pytest.param(blueprint(resources={"worker": {"cpu": "1GB"}}), ("spec", "resources", "worker", "cpu"),
                 id="quantity-misspelt"),
    pytest.param(blueprint(env={"1A": "x"}), ("spec", "env"), id="env-name"),
    pytest.param(blueprint(labels={"team": "a b"}), ("metadata", "labels", "team"), id="label-value"),
    pytest.param({**blueprint(), "kind": "MPIJob"}, ("kind",), id="kind"),
]


def model_error_loc(data: dict) -> tuple | None:
    try:
        Blueprint.model_validate(data)
    except ValidationError as exc:
        return tuple(str(part) for part in exc.errors()[0]["loc"])
    return None


@pytest.mark.parametrize("data, invalid_at", CASES)
def test_the_schema_and_the_model_agree(data, invalid_at):
    schema_errors = list(BLUEPRINT_VALIDATOR.iter_errors(data))
    assert (schema_errors == []) == (invalid_at is None), [e.message for e in schema_errors]
    assert (model_error_loc(data) is None) == (invalid_at is None)
    if invalid_at is not None:
        paths = {tuple(str(part) for part in error.absolute_path) for error in schema_errors}
        assert any(path[:len(invalid_at)] == invalid_at for path in paths), paths
        assert model_error_loc(data)[:len(invalid_at)] == invalid_at


@pytest.mark.parametrize("model", [Blueprint, OverlayModel, ConfigModel])
def test_each_published_schema_is_a_valid_2020_12_schema(model):
    schema = json_schema(model)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_a_mapping_with_constrained_keys_refuses_other_keys():
    """pydantic's patternProperties let any other key through; the published schema closes
    them (propertyNames), as the model does."""
    data = blueprint(labels={"-bad-key": "x"})
    assert list(BLUEPRINT_VALIDATOR.iter_errors(data)) and model_error_loc(data) is not None
