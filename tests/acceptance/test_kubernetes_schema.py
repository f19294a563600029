"""Every rendered object validates against the Kubernetes OpenAPI schema of v1.30 in strict
mode (unknown fields are errors), using the schemas the kubernetes-validate package ships;
the gang schedulers' PodGroups, custom resources that schema does not know, are checked
against the operator's facts (shared/reference/mpi-operator.md 2.7 and 4.8) instead."""

from __future__ import annotations

import re

import pytest
import yaml

from tests.support.blueprints import blueprint_text, example_blueprints
from tests.support.kubernetes_schema import schema_failures, validate
from tests.support.paths import BLUEPRINTS, GOLDEN
from tests.support.rendering import render_text

# Custom resources: not in the Kubernetes OpenAPI schema (kubernetes-validate has no schema
# for them); the PodGroups are checked by test_golden_pod_groups_are_the_operators.
CUSTOM_KINDS = ("PodGroup",)
# Custom resources the repository's environments render (mpigen.yaml's targets rule gives the
# Kueue example jobset), checked against the schema the table of kinds gives (mpigen.review.schemas).
TABLE_KINDS = ("JobSet",)


def golden_objects():
    return list(yaml.safe_load_all((GOLDEN / "static.yaml").read_text()))


def overlay_objects():
    """The repository render and the overlays in every GitOps profile: every example under
    every overlay (placement, patched datasets, rewritten images, overlay labels and
    annotations, run names, waves, the scale-down wrapper and its Role rule)."""
    paths = [p for folder in sorted(GOLDEN.glob("overlays*")) for p in sorted(folder.rglob("*.yaml"))
             if p.name != "kustomization.yaml"]
    assert len(paths) >= 4 * 48
    return [(path.relative_to(GOLDEN).as_posix(), yaml.safe_load(path.read_text())) for path in paths]


def test_golden_objects_validate_strictly():
    """Every object of golden/static.yaml but the PodGroups, in one pass: the failures listed."""
    cases = [(f"static.yaml#{index}", o) for index, o in enumerate(golden_objects()) if o["kind"] not in CUSTOM_KINDS]
    assert cases
    failures = schema_failures(cases)
    assert not failures, "\n".join(failures)


def test_overlay_objects_validate_strictly():
    """Every object of golden/overlays*/ but the PodGroups and kustomization.yaml, in one pass;
    the Kueue example's JobSet (mpigen.yaml's targets rule) against the table of kinds."""
    cases = [(path, obj) for path, obj in overlay_objects() if obj["kind"] not in CUSTOM_KINDS]
    assert any(obj["kind"] in TABLE_KINDS for _, obj in cases)
    failures = schema_failures(cases, TABLE_KINDS)
    assert not failures, "\n".join(failures)


# --- PodGroups: the operator's, per gang scheduler (mpi-operator.md 2.7 kube-batch, 4.8) ---------

POD_GROUP_API = {"volcano": "scheduling.volcano.sh/v1beta1", "scheduler-plugins": "scheduling.x-k8s.io/v1alpha1",
                 "kube-batch": "scheduling.incubator.k8s.io/v1alpha1"}
# The spec fields each scheduler's PodGroup has, as the operator fills them (minMember always).
POD_GROUP_FIELDS = {"volcano": {"minMember", "queue", "priorityClassName", "minResources"},
                    "scheduler-plugins": {"minMember", "minResources", "scheduleTimeoutSeconds"},
                    "kube-batch": {"minMember", "priorityClassName"}}
# A Kubernetes quantity (k8s.io/apimachinery resource.Quantity), unsigned: resources are not negative.
QUANTITY = re.compile(r"(\d+(\.\d*)?|\.\d+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?\d+)?")


def golden_pod_groups() -> list[tuple[str, dict]]:
    """Every PodGroup in golden/: the streams and the folders of every target, profile and overlay."""
    out = []
    for path in sorted(GOLDEN.rglob("*.yaml")):
        for index, obj in enumerate(o for o in yaml.safe_load_all(path.read_text()) if o):
            if obj["kind"] == "PodGroup":
                out.append((f"{path.relative_to(GOLDEN).as_posix()}#{index}", obj))
    return out


def test_golden_pod_groups_are_the_operators():
    examples = example_blueprints()
    gang = {name: data["spec"]["scheduling"]["gang"] for name, data in examples.items()
            if data["spec"].get("scheduling", {}).get("gang")}
    groups = golden_pod_groups()
    assert gang and groups
    # every gang-scheduled example has its PodGroup in the static golden output
    assert sorted(o["metadata"]["name"] for path, o in groups if path.startswith("static.yaml#")) == sorted(gang)
    for where, group in groups:
        labels = group["metadata"].get("labels", {})
        job = labels["mpigen.dev/job"]
        scheduler = gang[job]["scheduler"]
        assert group["apiVersion"] == POD_GROUP_API[scheduler], where
        # named after the job: the MPIJob's name, or under a GitOps profile the run's <job>-<run>
        instance = f"{job}-{labels['mpigen.dev/run']}" if "mpigen.dev/run" in labels else job
        assert group["metadata"]["name"] == instance, where
        assert group["metadata"]["namespace"], where
        assert set(group) == {"apiVersion", "kind", "metadata", "spec"}, where
        spec = group["spec"]
        assert "minMember" in spec and set(spec) <= POD_GROUP_FIELDS[scheduler], (where, set(spec))
        assert type(spec["minMember"]) is int and spec["minMember"] >= 1, where
        for name, value in spec.get("minResources", {}).items():
            assert isinstance(name, str) and isinstance(value, str) and QUANTITY.fullmatch(value), (where, name, value)
        if scheduler == "volcano" and gang[job].get("queue"):
            assert spec["queue"] == gang[job]["queue"], where  # schedulingPolicy.queue
        if scheduler == "scheduler-plugins":
            assert spec["scheduleTimeoutSeconds"] == gang[job].get("scheduleTimeoutSeconds", 0), where


VARIANTS = [
    {},
    {"gpusPerWorker": 8, "gpuResource": "amd.com/gpu", "mainContainer": "trainer", "env": {"A": "1"}},
    {"mpiImplementation": "MPICH", "datasets": [
        {"name": "a", "mountPath": "/a", "pvc": "claim"},
        {"name": "b", "mountPath": "/b", "nfs": {"server": "s", "path": "/p"}, "readOnly": False},
        {"name": "c", "mountPath": "/c", "hostPath": "/mnt/c"}]},
    {"launcherCommand": ["sh", "-c", "mpirun hostname"], "command": None,
     "runPolicy": {"activeDeadlineSeconds": 60, "backoffLimit": 0, "cleanPodPolicy": "All"}},
    {"placement": {"worker": {"nodeSelector": {"pool": "gpu"}, "tolerations": [
        {"operator": "Exists"}, {"key": "k", "value": "v", "effect": "NoExecute", "tolerationSeconds": 30}]},
        "launcher": {"tolerations": [{"key": "dedicated", "operator": "Equal", "value": "cpu"}]}}},
]


@pytest.mark.parametrize("spec", VARIANTS)
def test_variants_validate_strictly(spec):
    for obj in render_text(blueprint_text(**spec)):
        validate(obj)


def test_the_validator_is_strict():
    import kubernetes_validate

    obj = golden_objects()[0]
    assert obj["kind"] not in CUSTOM_KINDS
    obj["metadata"]["nmae"] = "typo"
    with pytest.raises(kubernetes_validate.ValidationError):
        validate(obj)


def test_every_example_is_covered():
    names = {o["metadata"]["labels"]["mpigen.dev/job"] for o in golden_objects()}
    assert len(names) == len(list(BLUEPRINTS.glob("*.yaml")))
