"""The GitOps profiles' objects validate strictly against the Kubernetes schema, and
`kubectl kustomize` builds the profile folders.

Expected values are worked out by hand from the blueprint text written in each test (and
from blueprints/*.yaml for the examples), never by rendering the same input twice and
comparing the code with itself. Rendering goes in-process through the real pipeline
(`render_paths`, the render fixture of conftest.py) or the real command line (the cli fixture).
"""

from __future__ import annotations

import json
import subprocess

import pytest
import yaml

from tests.support.blueprints import example_blueprints
from tests.support.gitops import (PROFILES, blueprint, example_objects, golden_prod, golden_stream,
                                  repository_example_objects)
from tests.support.paths import GOLDEN
from tests.support.rendering import extra_objects


# --- 10. Kubernetes schema and kustomize -------------------------------------------------------------

def _schema_cases():
    cases = []
    for profile in PROFILES:
        cases += [(f"{profile}/{o['kind']}/{o['metadata']['name']}", o) for o in golden_stream(profile)]
    cases += [(f"overlays/prod/{path}", obj) for path, obj in golden_prod()]
    return cases


ALL_CASES = _schema_cases()
# Not the PodGroups: custom resources, not in the Kubernetes OpenAPI schema (test_kubernetes_schema
# checks every golden PodGroup against the operator's facts instead).
SCHEMA_CASES = [(case, obj) for case, obj in ALL_CASES if obj["kind"] != "PodGroup"]
# The JobSet of the Kueue example in the repository's prod (mpigen.yaml's targets rule): a custom
# resource, checked against the schema of the table of kinds (mpigen.review.schemas) instead.
CUSTOM_KINDS = ("JobSet",)


def test_golden_profile_objects_validate_strictly():
    """Every object of the profiles' golden streams and of overlays/prod but the PodGroups, in one
    pass, the failures listed with their place; the JobSet against the table of kinds."""
    from tests.support.kubernetes_schema import schema_failures

    failures = schema_failures(SCHEMA_CASES, CUSTOM_KINDS)
    assert not failures, "\n".join(failures)


def test_golden_profile_cases_cover_every_example():
    pod_groups = sum(kind == "PodGroup" for data in example_blueprints().values() for kind, _ in extra_objects(data))
    for prefix in ("argocd/", "flux/", "overlays/prod/"):
        expected = repository_example_objects() if prefix == "overlays/prod/" else example_objects()
        assert len([c for c in ALL_CASES if c[0].startswith(prefix)]) == expected, prefix
        assert len([c for c in SCHEMA_CASES if c[0].startswith(prefix)]) == expected - pod_groups, prefix


@pytest.mark.parametrize("profile", PROFILES)
def test_profile_variants_validate_strictly(render, profile):
    from tests.support.kubernetes_schema import validate

    for text in (blueprint("a", runPolicy={"cleanPodPolicy": "All"}, state="completed", run=7,
                           labels={"team": "x"}, annotations={"owner": "y"}),
                 blueprint("b", command=None, launcherCommand=["sh", "-c", "mpirun hostname"],
                           runPolicy={"cleanPodPolicy": "Running", "backoffLimit": 0})):
        for obj in render(text, profile).objects:
            validate(obj)


def _key(obj: dict) -> tuple:
    return obj["kind"], obj["metadata"]["namespace"], obj["metadata"]["name"]


def _without_empty_annotations(objects: list[dict]) -> list[dict]:
    """kustomize drops an empty metadata.annotations mapping; mpigen writes none (tested above)."""
    out = json.loads(json.dumps(objects))
    for obj in out:
        if obj["metadata"].get("annotations") == {}:
            del obj["metadata"]["annotations"]
    return out


@pytest.mark.parametrize("folder, stream", [("argocd", "argocd"), ("flux", "flux"), ("overlays/prod", None)])
def test_kustomize_builds_the_profile_folders(kubectl, folder, stream):
    """What Argo CD or Flux would apply from the folder is exactly the rendered stream."""
    built = subprocess.run([kubectl, "kustomize", str(GOLDEN / folder)], capture_output=True, text=True, check=True)
    objects = sorted((o for o in yaml.safe_load_all(built.stdout) if o), key=_key)
    expected = golden_stream(stream) if stream else [obj for _, obj in golden_prod()]
    assert len(objects) == (example_objects() if stream else repository_example_objects())
    assert objects == sorted(_without_empty_annotations(expected), key=_key)


@pytest.mark.parametrize("state", ["running", "completed"])
def test_flux_writes_no_empty_annotations(render, state):
    for obj in render(blueprint("train", state=state), "flux").objects:
        assert obj["metadata"].get("annotations", None) != {}, obj["kind"]
