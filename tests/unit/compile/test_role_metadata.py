"""spec.podTemplatePatch.<role>.metadata: labels and annotations of one role's pods, over
metadata's, on every target's pod templates, and nowhere else; keys and values checked as
the API server's ValidateLabels and ValidateAnnotations do (a qualified name; a label value
of at most 63 characters), and mpigen's and the operator's keys refused, at their lines."""

from __future__ import annotations

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.rendering import by_kind, render_text

PATCH = {"worker": {"metadata": {"labels": {"team": "gold", "role": "rank"},
                                 "annotations": {"sidecar.istio.io/inject": "false"}}},
         "launcher": {"metadata": {"annotations": {"prometheus.io/scrape": "true"}}}}


def _templates(target: str) -> dict[str, dict]:
    """{role: pod template metadata} of a render under the target, by where each target puts them."""
    objects = by_kind(render_text(blueprint_text(labels={"team": "vision"}, podTemplatePatch=PATCH), target=target))
    if target == "static":
        templates = {"launcher": objects["Job"]["spec"]["template"], "worker": objects["StatefulSet"]["spec"]["template"]}
    elif target == "mpijob":
        specs = objects["MPIJob"]["spec"]["mpiReplicaSpecs"]
        templates = {"launcher": specs["Launcher"]["template"], "worker": specs["Worker"]["template"]}
    else:
        owner = objects["JobSet"] if target == "jobset" else objects["TrainingRuntime"]["spec"]["template"]
        jobs = {job["name"]: job["template"]["spec"]["template"] for job in owner["spec"]["replicatedJobs"]}
        templates = {"launcher": jobs["launcher"], "worker": jobs["worker" if target == "jobset" else "node"]}
    return {role: template.get("metadata", {}) for role, template in templates.items()}


@pytest.mark.parametrize("target", ["static", "mpijob", "jobset", "trainjob"])
def test_each_roles_labels_and_annotations_reach_its_pods_alone(target):
    meta = _templates(target)
    assert meta["worker"]["labels"]["team"] == "gold" and meta["worker"]["labels"]["role"] == "rank"
    assert meta["worker"]["annotations"]["sidecar.istio.io/inject"] == "false"
    assert "prometheus.io/scrape" not in meta["worker"].get("annotations", {})
    assert meta["launcher"]["labels"]["team"] == "vision" and "role" not in meta["launcher"]["labels"]
    assert meta["launcher"]["annotations"]["prometheus.io/scrape"] == "true"
    assert "sidecar.istio.io/inject" not in meta["launcher"]["annotations"]


def test_no_other_object_gets_a_roles_labels():
    objects = render_text(blueprint_text(labels={"team": "vision"}, podTemplatePatch=PATCH))
    for obj in objects:
        assert obj["metadata"].get("labels", {}).get("team") in (None, "vision")
        assert "role" not in obj["metadata"].get("labels", {})
    (workers,) = [o for o in objects if o["kind"] == "StatefulSet"]
    assert "role" not in workers["spec"]["selector"]["matchLabels"]
