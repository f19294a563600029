"""JobSets read with Kubeflow's models strictly (mpigen.review.api_models): the models drop
keys they do not know and coerce values, so a misspelt field or a wrong type must still be
reported, at its path, as the API server's strict field validation would."""

from __future__ import annotations

import copy

import yaml
from kubeflow_trainer_api.models import JobsetV1alpha2JobSet

from mpigen.review.api_models import validate_with_model
from tests.support.paths import GOLDEN

JOBSET = next(o for o in yaml.safe_load_all((GOLDEN / "jobset.yaml").read_text()) if o and o["kind"] == "JobSet")


def validate_jobset(obj: dict) -> list[str]:
    return validate_with_model(obj, JobsetV1alpha2JobSet)


def changed(edit) -> dict:
    obj = copy.deepcopy(JOBSET)
    edit(obj)
    return obj


def test_a_rendered_jobset_is_valid():
    assert validate_jobset(JOBSET) == []


def test_unknown_fields_are_errors_at_their_path_however_deep():
    def misspell(obj):
        obj["spec"]["sucessPolicy"] = obj["spec"].pop("successPolicy")
        pod = obj["spec"]["replicatedJobs"][-1]["template"]["spec"]["template"]["spec"]
        pod["containers"][0]["imagePullPolice"] = "Always"

    assert sorted(validate_jobset(changed(misspell))) == [
        "spec.replicatedJobs.2.template.spec.template.spec.containers.0.imagePullPolice: unknown field",
        "spec.sucessPolicy: unknown field"]


def test_a_wrong_type_is_an_error():
    def wrong(obj):
        obj["spec"]["replicatedJobs"][0]["replicas"] = "one"

    problems = validate_jobset(changed(wrong))
    assert problems == ["replicas (of a JobsetV1alpha2ReplicatedJob): Input should be a valid integer"]
