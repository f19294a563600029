"""Every blueprint number mpigen writes into an int32 field of a Kubernetes or custom
resource object is bounded by int32 (formats.types.INT32_MAX) in the published schema, so
the API server never refuses it.

Where each blueprint number goes is the table below; whether a destination is int32 is read
from outside mpigen's formats: Kubernetes' own kinds from the OpenAPI schema
kubernetes-validate ships (`format: int32`), the MPIJob's from the CRD model mpigen
publishes (mpigen/render/mpijob/crd.py, kubeflow/mpi-operator's Go types), JobSet's and the
Trainer's from their Go types (cited at each). An integer field the table lacks fails, so a
new one cannot forget its bound."""

from __future__ import annotations

import json
from importlib.resources import files

import pytest

from mpigen.formats.config import ConfigModel
from mpigen.formats.overlay import OverlayModel
from mpigen.formats.schema import json_schema
from mpigen.formats.types import INT32_MAX
from mpigen.render.mpijob import crd

KUBERNETES_SCHEMA = files("kubernetes_validate") / "kubernetes-json-schema" / "v1.37.0-local-strict" / "_definitions.json"
# kubernetes-sigs/jobset 08dfbdfd682714a9ab929633eca8dc95315187e7, api/jobset/v1alpha2/jobset_types.go:
# line 187 `TTLSecondsAfterFinished *int32`, line 483 `MaxRestarts int32`; ReplicatedJob `Replicas int32`.
JOBSET = {"JobSetSpec.ttlSecondsAfterFinished": "int32", "FailurePolicy.maxRestarts": "int32"}
# kubeflow/trainer 8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3, pkg/apis/trainer/v1alpha1/:
# trainjob_types.go:139 `ActiveDeadlineSeconds int64`, :279 `NumNodes *int32`, :290 `NumProcPerNode *int32`;
# trainingruntime_types.go:161 `ScheduleTimeoutSeconds *int32`.
TRAINER = {"TrainJobSpec.activeDeadlineSeconds": "int64", "Trainer.numNodes": "int32",
           "Trainer.numProcPerNode": "int32", "CoschedulingPodGroupPolicySource.scheduleTimeoutSeconds": "int32"}
QUANTITY = "a resource quantity (a string to the API server), never an int32"

# blueprint field -> where mpigen writes it: ("kubernetes", definition, property), ("mpijob",
# model, property), ("jobset" | "trainer", "Type.field"), or ("quantity",) / ("label",).
DESTINATIONS: dict[str, list[tuple[str, ...]]] = {
    "spec.workers": [("kubernetes", "io.k8s.api.apps.v1.StatefulSetSpec", "replicas"),
                     ("kubernetes", "io.k8s.api.batch.v1.JobSpec", "parallelism"),
                     ("mpijob", "ReplicaSpec", "replicas"), ("trainer", "Trainer.numNodes")],
    "spec.gpusPerWorker": [("quantity",)],
    "spec.slotsPerWorker": [("mpijob", "V2beta1Spec", "slotsPerWorker"), ("mpijob", "V1Spec", "slotsPerWorker"),
                            ("trainer", "Trainer.numProcPerNode")],
    "spec.resources.worker.*": [("quantity",)],
    "spec.resources.launcher.*": [("quantity",)],
    "spec.runPolicy.backoffLimit": [("kubernetes", "io.k8s.api.batch.v1.JobSpec", "backoffLimit"),
                                    ("mpijob", "RunPolicy", "backoffLimit"), ("jobset", "FailurePolicy.maxRestarts")],
    "spec.runPolicy.activeDeadlineSeconds": [("kubernetes", "io.k8s.api.batch.v1.JobSpec", "activeDeadlineSeconds"),
                                             ("mpijob", "RunPolicy", "activeDeadlineSeconds"),
                                             ("trainer", "TrainJobSpec.activeDeadlineSeconds")],
    "spec.runPolicy.ttlSecondsAfterFinished": [
        ("kubernetes", "io.k8s.api.batch.v1.JobSpec", "ttlSecondsAfterFinished"),
        ("mpijob", "RunPolicy", "ttlSecondsAfterFinished"), ("jobset", "JobSetSpec.ttlSecondsAfterFinished")],
    "spec.placement.worker.tolerations.[].tolerationSeconds": [
        ("kubernetes", "io.k8s.api.core.v1.Toleration", "tolerationSeconds")],
    "spec.placement.launcher.tolerations.[].tolerationSeconds": [
        ("kubernetes", "io.k8s.api.core.v1.Toleration", "tolerationSeconds")],
    "spec.sharedMemory": [("quantity",)],
    "spec.datasets.[].emptyDir.sizeLimit": [("quantity",)],
    "spec.datasets.[].ephemeral.size": [("quantity",)],
    "spec.network.rdma.count": [("quantity",)],
    "spec.scheduling.gang.minAvailable": [("mpijob", "SchedulingPolicy", "minAvailable")],
    "spec.scheduling.gang.scheduleTimeoutSeconds": [
        ("mpijob", "SchedulingPolicy", "scheduleTimeoutSeconds"),
        ("trainer", "CoschedulingPodGroupPolicySource.scheduleTimeoutSeconds")],
    "spec.security.runAsUser": [("kubernetes", "io.k8s.api.core.v1.PodSecurityContext", "runAsUser")],
    "spec.security.runAsGroup": [("kubernetes", "io.k8s.api.core.v1.PodSecurityContext", "runAsGroup")],
    "spec.security.fsGroup": [("kubernetes", "io.k8s.api.core.v1.PodSecurityContext", "fsGroup")],
    "spec.ssh.port": [("kubernetes", "io.k8s.api.core.v1.ContainerPort", "containerPort")],
    "spec.runPolicy.failurePolicy.rules.[].onExitCodes.values.[]": [
        ("kubernetes", "io.k8s.api.batch.v1.PodFailurePolicyOnExitCodesRequirement", "values")],
    "spec.run": [("label",)],  # a label value: a number is written as its string
}


def integer_fields(schema: dict) -> dict[str, int | None]:
    """Each integer field of a published JSON schema, dotted, with its maximum."""
    defs = schema.get("$defs", {})
    found: dict[str, int | None] = {}

    def walk(node: dict, path: tuple[str, ...]) -> None:
        if "$ref" in node:
            return walk(defs[node["$ref"].split("/")[-1]], path)
        types = node.get("type")
        if types == "integer" or (isinstance(types, list) and "integer" in types):
            found[".".join(path)] = node.get("maximum")
        for key in ("anyOf", "oneOf", "allOf"):
            for option in node.get(key, []):
                walk(option, path)
        for name, child in node.get("properties", {}).items():
            walk(child, (*path, name))
        for key, step in (("items", "[]"), ("additionalProperties", "*")):
            if isinstance(node.get(key), dict):
                walk(node[key], (*path, step))

    walk(schema, ())
    return found


def destination_format(destination: tuple[str, ...]) -> str:
    """int32, int64 or what the destination is instead, from the sources named above."""
    source = destination[0]
    if source == "kubernetes":
        definitions = json.loads(KUBERNETES_SCHEMA.read_text())["$defs"]
        prop = definitions[destination[1]]["properties"][destination[2]]
        return prop["format"] if "format" in prop else prop["items"]["format"]  # a list's items
    if source == "mpijob":
        field = getattr(crd, destination[1]).model_fields[destination[2]]
        return field.json_schema_extra["format"]
    if source in ("jobset", "trainer"):
        return {"jobset": JOBSET, "trainer": TRAINER}[source][destination[1]]
    return QUANTITY if source == "quantity" else "a label value"


def test_every_integer_field_of_the_blueprint_says_where_it_goes():
    assert set(integer_fields(json_schema())) == set(DESTINATIONS)


@pytest.mark.parametrize("model", [OverlayModel, ConfigModel], ids=["overlay", "mpigen.yaml"])
def test_overlays_and_mpigen_yaml_write_no_number_of_their_own(model):
    """An overlay's numbers are blueprint fields (its patches), checked as the blueprint's."""
    assert integer_fields(json_schema(model)) == {}


@pytest.mark.parametrize("field", sorted(DESTINATIONS))
def test_a_field_written_into_an_int32_is_bounded_by_int32(field):
    formats = {destination_format(d) for d in DESTINATIONS[field]}
    maximum = integer_fields(json_schema())[field]
    if "int32" in formats:
        assert maximum is not None and maximum <= INT32_MAX, f"{field} goes into an int32 but allows {maximum}"
    else:
        assert formats <= {"int64", QUANTITY, "a label value"}, formats


def test_ttl_seconds_after_finished_is_bounded_by_int32():
    """10**12 was accepted and written into the Job's, JobSet's and MPIJob's int32 field."""
    assert integer_fields(json_schema())["spec.runPolicy.ttlSecondsAfterFinished"] == INT32_MAX == 2**31 - 1
