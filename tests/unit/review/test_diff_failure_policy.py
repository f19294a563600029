"""`mpigen diff` of a failure policy change (issue 33): rendered by the real targets, the
change is shown field by field, and where the object is running it is reported immutable:
a JobSet's failurePolicy (CEL `self == oldSelf`, JobSet v0.12.0 jobset_types.go) and its
replicated jobs, whose Jobs carry podFailurePolicy (the webhook's ValidateUpdate); a Job's
podFailurePolicy (Kubernetes ValidateJobSpecUpdate). Under a GitOps profile the change is a
new run, which replaces the objects instead."""

from __future__ import annotations

import json

import pytest

from mpigen.review.diff.compare import compare
from tests.support.blueprints import blueprint_text
from tests.support.golden_edits import only_job
from tests.support.rendering import render_text

FAIL_FAST = {"failurePolicy": {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [3]}}]}}


def files(target: str, run_policy: dict | None, gitops: str = "none") -> dict[str, str]:
    objects = render_text(blueprint_text("train", namespace="ml", runPolicy=run_policy), target=target, gitops=gitops)
    return {f"ml/{obj['kind'].lower()}-{obj['metadata']['name']}.yaml": json.dumps(obj) for obj in objects}


@pytest.mark.parametrize("target, immutable", [
    ("jobset", ["spec.replicatedJobs[worker]", "spec.replicatedJobs[launcher]", "spec.failurePolicy"]),
    ("static", ["spec.template", "spec.podFailurePolicy"]),
])
def test_a_policy_change_in_place_is_shown_and_immutable(target, immutable):
    report = compare(files(target, None), files(target, FAIL_FAST))
    job = only_job(report)
    assert sorted(f.path for f in job.immutable) == sorted(immutable)
    changed = [field.path for change in job.changed for field in change.fields]
    assert any("podFailurePolicy" in path for path in changed), changed
    assert "podFailurePolicy" in report.format("text")


@pytest.mark.parametrize("target", ["jobset", "trainjob", "static"])
def test_under_gitops_a_policy_change_is_a_new_run_and_nothing_immutable(target):
    report = compare(files(target, None, "argocd"), files(target, FAIL_FAST, "argocd"))
    job = only_job(report)
    assert job.new_run and not report.immutable()
