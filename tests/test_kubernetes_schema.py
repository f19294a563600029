"""Every rendered object validates against the Kubernetes OpenAPI schema of v1.30 in strict
mode (unknown fields are errors), using the schemas the kubernetes-validate package ships."""

from __future__ import annotations

import pytest
import yaml

from tests.conftest import BLUEPRINTS, GOLDEN, blueprint_text, render_text

KUBERNETES_VERSION = "1.30.0"


def validate(obj: dict) -> None:
    import kubernetes_validate

    kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)


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


@pytest.mark.parametrize("obj", golden_objects(), ids=lambda o: f"{o['kind']}/{o['metadata']['name']}")
def test_golden_objects_validate_strictly(obj):
    validate(obj)


@pytest.mark.parametrize("path, obj", overlay_objects(), ids=[path for path, _ in overlay_objects()])
def test_overlay_objects_validate_strictly(path, obj):
    validate(obj)


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
    obj["metadata"]["nmae"] = "typo"
    with pytest.raises(kubernetes_validate.ValidationError):
        validate(obj)


def test_every_example_is_covered():
    names = {o["metadata"]["labels"]["mpigen.dev/job"] for o in golden_objects()}
    assert len(names) == len(list(BLUEPRINTS.glob("*.yaml")))
