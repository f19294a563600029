"""--with-crd: the MPIJob CustomResourceDefinition mpigen generates from its typed model
and the Kubernetes schemas (kubernetes-validate), checked as the API server would: a
valid CustomResourceDefinition, a structural schema, and every MPIJob mpigen renders
valid against it with nothing left for its defaults to fill in."""

from __future__ import annotations

import copy

import jsonschema
import pytest
import yaml

from tests.support.kubernetes_schema import validate
from tests.support.paths import GOLDEN

APIS = {"v2beta1": "kubeflow.org/v2beta1", "v1": "kubeflow.org/v1"}


def crd(api: str, kube_version: str = "1.30") -> dict:
    from mpigen.render.mpijob.crd import new_crd

    return new_crd(APIS[api], kube_version)


def openapi(definition: dict) -> dict:
    return definition["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("kube_version", ["1.25", "1.30", "1.37"])
def test_the_crd_is_a_valid_custom_resource_definition(api, kube_version):
    import kubernetes_validate

    kubernetes_validate.validate(crd(api, kube_version), f"{kube_version}.0", strict=True)


def structural_problems(node: dict, path: str = "") -> list[str]:
    """apiextensions-apiserver's structural-schema rules that a generator can break."""
    problems = []
    if not ("type" in node or node.get("x-kubernetes-int-or-string") or node.get("x-kubernetes-preserve-unknown-fields")):
        problems.append(f"{path}: no type")
    if "properties" in node and "additionalProperties" in node:
        problems.append(f"{path}: properties and additionalProperties")
    if node.get("x-kubernetes-int-or-string") and "type" in node:
        problems.append(f"{path}: int-or-string with a type")
    for key in ("$ref", "oneOf", "anyOf", "allOf", "not", "$schema", "definitions", "$defs"):
        if key in node:
            problems.append(f"{path}: {key}")
    if isinstance(node.get("type"), list) or node.get("type") == "null":
        problems.append(f"{path}: type {node['type']}")
    for name, child in node.get("properties", {}).items():
        problems += structural_problems(child, f"{path}.{name}")
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            problems += structural_problems(node[key], f"{path}[{key}]")
    return problems


@pytest.mark.parametrize("api", APIS)
def test_the_schema_is_structural(api):
    assert structural_problems(openapi(crd(api))) == []


def test_the_operators_names_scope_status_and_defaults():
    definition = crd("v2beta1")
    assert definition["metadata"]["name"] == "mpijobs.kubeflow.org"
    spec = definition["spec"]
    assert spec["group"] == "kubeflow.org" and spec["scope"] == "Namespaced"
    assert spec["names"] == {"kind": "MPIJob", "listKind": "MPIJobList", "plural": "mpijobs", "singular": "mpijob"}
    version, = spec["versions"]
    assert version["name"] == "v2beta1" and version["served"] and version["storage"]
    assert version["subresources"] == {"status": {}}
    fields = openapi(definition)["properties"]["spec"]["properties"]
    # MO@caa3c47 manifests/base/kubeflow.org_mpijobs.yaml (reference 4.10)
    assert fields["launcherCreationPolicy"]["default"] == "AtStartup"
    assert fields["mpiImplementation"] == {**fields["mpiImplementation"], "default": "OpenMPI",
                                           "enum": ["OpenMPI", "Intel", "MPICH"]}
    assert fields["runLauncherAsWorker"]["default"] is False and fields["slotsPerWorker"]["default"] == 1
    assert fields["sshAuthMountPath"]["default"] == "/root/.ssh"
    assert fields["runPolicy"]["properties"]["suspend"]["default"] is False
    assert openapi(definition)["properties"]["spec"]["required"] == ["mpiReplicaSpecs"]
    v1 = crd("v1")["spec"]["versions"][0]
    assert v1["name"] == "v1" and [c["name"] for c in v1["additionalPrinterColumns"]] == ["State", "Age"]


def json_schema(node: dict) -> dict:
    """The CRD schema as plain JSON Schema, to validate objects with jsonschema."""
    from mpigen.review.schemas import crd_json_schema

    return crd_json_schema(node)


def apply_defaults(obj, schema: dict):
    """Structural defaulting: a missing field with a default gets it."""
    if isinstance(obj, dict):
        for name, child in schema.get("properties", {}).items():
            if name not in obj and "default" in child:
                obj[name] = copy.deepcopy(child["default"])
            if name in obj:
                apply_defaults(obj[name], child)
        if isinstance(schema.get("additionalProperties"), dict):
            for name in obj:
                if name not in schema.get("properties", {}):
                    apply_defaults(obj[name], schema["additionalProperties"])
    elif isinstance(obj, list) and isinstance(schema.get("items"), dict):
        for item in obj:
            apply_defaults(item, schema["items"])
    return obj


@pytest.mark.parametrize("api", APIS)
def test_every_rendered_mpijob_validates_against_the_crd_with_its_defaults_written_out(api):
    schema = openapi(crd(api))
    # the MPIJobs (target mpijob also emits mpigen's ConfigMaps and ServiceAccounts next to them)
    jobs = [d for d in yaml.safe_load_all((GOLDEN / f"mpijob-{api}.yaml").read_text()) if d and d["kind"] == "MPIJob"]
    assert jobs
    for job in jobs:
        jsonschema.validate(job, json_schema(schema))
        if api == "v2beta1":  # every default the CRD declares is already in the object
            defaulted = apply_defaults(copy.deepcopy(job), schema)
            if "kueue.x-k8s.io/queue-name" in job["metadata"].get("labels", {}):
                # but runPolicy.suspend of a job queued with Kueue: Kueue's webhook suspends it
                # and Kueue resumes it on admission, so a value in Git would fight Kueue.
                assert "suspend" not in job["spec"]["runPolicy"]
                del defaulted["spec"]["runPolicy"]["suspend"]
            assert defaulted == job


def test_the_crd_schema_rejects_what_the_operator_would_refuse():
    schema = json_schema(openapi(crd("v2beta1")))
    job = next(d for d in yaml.safe_load_all((GOLDEN / "mpijob-v2beta1.yaml").read_text())
               if d and d["kind"] == "MPIJob")
    for path, value in ((("spec", "mpiImplementation"), "IntelMPI"), (("spec", "launcherCreationPolicy"), "Later"),
                        (("spec", "runPolicy", "cleanPodPolicy"), "Some"), (("spec", "slotsPerWorker"), "8")):
        bad = copy.deepcopy(job)
        node = bad
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def test_the_kubernetes_version_picks_the_pod_schema():
    """Fields Kubernetes added to PodSpec after 1.25 are in the 1.37 CRD and not in the 1.25 one."""
    def pod_fields(version):
        spec = openapi(crd("v2beta1", version))["properties"]["spec"]["properties"]["mpiReplicaSpecs"]
        return set(spec["additionalProperties"]["properties"]["template"]["properties"]["spec"]["properties"])

    old, new = pod_fields("1.25"), pod_fields("1.37")
    assert old < new and "resourceClaims" in new - old
