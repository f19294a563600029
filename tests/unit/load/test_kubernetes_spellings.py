"""The table of Kubernetes spellings (mpigen.load.kubernetes_spellings) against the Blueprint
model, and the errors it gives: each suggested field exists in the model, each spelling is
a key the model does not have where people write it, and the errors of a blueprint written
with Kubernetes' habits name the blueprint's fields."""

from __future__ import annotations

from typing import get_args

import pytest
from pydantic import BaseModel

from mpigen.formats.blueprint import Blueprint
from mpigen.kube.quantity import readings
from mpigen.load.kubernetes_spellings import SPELLINGS, spelled_field, wrong_type_hint
from mpigen.load.model import validate_model
from mpigen.load.parser import parse


def _model_in(annotation):
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def model_at(path: str):
    """The model a field path names in the Blueprint (`spec.datasets[]` is a dataset), or
    None for a field that holds no model (a mapping of names, a number); KeyError when the
    path is not a field of the Blueprint."""
    model = Blueprint
    for part in path.split("."):
        name = part.removesuffix("[]")
        if model is None or name not in model.model_fields:
            raise KeyError(path)
        model = _model_in(model.model_fields[name].annotation)
    return model


@pytest.mark.parametrize("spelling", SPELLINGS, ids=lambda s: f"{s.where}.{s.key}")
def test_every_spelling_maps_to_a_field_of_the_blueprint(spelling):
    model_at(spelling.field)  # the suggested field exists
    where = model_at(spelling.where)
    assert where is not None, f"{spelling.where} holds no model: no key there is unknown"
    assert spelling.key not in where.model_fields, f"{spelling.key} is a field of {spelling.where}: never unknown"
    assert spelling.why and spelling.field != f"{spelling.where}.{spelling.key}"


def test_the_table_has_each_place_and_key_once():
    places = [(s.where, s.key) for s in SPELLINGS]
    assert len(places) == len(set(places))
    needed = {("spec", "replicas"), ("spec", "nodeSelector"), ("spec", "tolerations"), ("spec", "affinity"),
              ("spec", "gpus"), ("spec", "limits"), ("spec", "requests"), ("spec", "volumes"),
              ("spec", "volumeMounts"), ("spec", "serviceAccountName"), ("spec.resources", "limits")}
    assert needed <= set(places)
    assert spelled_field("spec", "replicas") == "spec.workers" and spelled_field("spec", "workers") is None


BLUEPRINT = """\
apiVersion: mpigen.dev/v1alpha1
kind: MPIJobBlueprint
metadata:
  name: llama
spec:
  framework: pytorch
  image: nvcr.io/nvidia/pytorch:24.01-py3
  replicas: 4
  gpus: 8
  nodeSelector: {pool: a100}
  command: [python, train.py]
  env:
    - name: NCCL_DEBUG
      value: INFO
    - name: OMP_NUM_THREADS
      value: "8"
  resources:
    worker: {cpu: 8, memory: 64GB}
    limits: {cpu: 8}
"""


def test_a_blueprint_written_with_kubernetes_habits_is_told_the_blueprint_fields():
    (doc,) = parse(BLUEPRINT, "llama.yaml")
    model, diagnostics, _ = validate_model(doc, Blueprint)
    assert model is None
    said = {(d.mark.line, d.mark.column): d.message for d in diagnostics}
    assert said == {
        (8, 3): "spec: unknown key 'replicas'; did you mean spec.workers? (a blueprint's spelling of replicas: the "
                "number of worker pods; the launcher is one more)",
        (9, 3): "spec: unknown key 'gpus'; did you mean spec.gpusPerWorker? (a blueprint's spelling of gpus: the "
                "GPUs of each worker, of spec.gpuResource)",
        (10, 3): "spec: unknown key 'nodeSelector'; did you mean spec.placement.worker.nodeSelector? (a blueprint's "
                 "spelling of nodeSelector: spec.placement.launcher.nodeSelector for the launcher)",
        (13, 5): "spec.env: expected a mapping, got a list; a blueprint writes spec.env as a mapping of name to value, "
                 "not Kubernetes' list of name/value pairs: env: {NCCL_DEBUG: INFO, OMP_NUM_THREADS: \"8\"}",
        (18, 30): "spec.resources.worker.memory: string '64GB' is not a Kubernetes quantity such as 16, 500m, 64Gi or "
                  "1.5; did you mean '64Gi' (64 x 2^30 bytes) or '64G' (64 x 10^9 bytes)?",
        (19, 5): "spec.resources: unknown key 'limits'; did you mean spec.resources.worker? (a blueprint's spelling "
                 "of limits: the workers' cpu and memory (requests and limits both; GPUs are spec.gpusPerWorker))",
    }  # and no "required key 'workers' is missing": the replicas line says it


def test_the_mapping_suggested_for_an_env_list_reads_back_as_the_pairs_written():
    import yaml

    pairs = [{"name": "A", "value": "true"}, {"name": "B", "value": "1.5"}, {"name": "C", "value": "x: y"}]
    hint = wrong_type_hint("spec.env", pairs)
    assert yaml.safe_load(hint.split("pairs: ", 1)[1]) == {"env": {"A": "true", "B": "1.5", "C": "x: y"}}
    assert wrong_type_hint("spec.env", "A=1") is None and wrong_type_hint("spec.image", pairs) is None


@pytest.mark.parametrize("written, meant", [
    ("64GB", [("64Gi", "64 x 2^30 bytes"), ("64G", "64 x 10^9 bytes")]),
    ("500mb", [("500Mi", "500 x 2^20 bytes"), ("500M", "500 x 10^6 bytes")]),
    ("512MiB", [("512Mi", "")]),
    ("1gi", [("1Gi", "")]),
    ("64Gi", []),
])
def test_a_size_in_bytes_names_both_readings(written, meant):
    assert readings(written) == meant
