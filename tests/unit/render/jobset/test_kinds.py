"""The JobSet's immutable paths (mpigen.render.jobset.kinds), on a JobSet the jobset target
renders, against what JobSet v0.12.0 refuses: its webhook's ValidateUpdate
(pkg/webhooks/jobset_webhook.go) keeps spec.replicatedJobs and spec.managedBy, but, while the
old or the new JobSet is suspended, lets a replicated job's pod template labels, annotations,
nodeSelector, tolerations and schedulingGates change; CEL rules `self == oldSelf`
(api/jobset/v1alpha2/jobset_types.go) keep network, successPolicy, failurePolicy,
startupPolicy and volumeClaimPolicies; suspend and ttlSecondsAfterFinished may change."""

from __future__ import annotations

import copy

import pytest

from mpigen.render.jobset.kinds import JOBSET
from tests.support.blueprints import blueprint_text
from tests.support.rendering import render_text

RENDERED = next(o for o in render_text(blueprint_text("train", namespace="team", workers=2, gpusPerWorker=1),
                                       target="jobset") if o["kind"] == "JobSet")


def edited(edit, suspend: bool = False) -> dict:
    obj = copy.deepcopy(RENDERED)
    if suspend:
        obj["spec"]["suspend"] = True
    edit(obj)
    return obj


def worker_pod(obj: dict) -> dict:
    job = next(job for job in obj["spec"]["replicatedJobs"] if job["name"] == "worker")
    return job["template"]["spec"]["template"]


def test_a_new_pod_template_of_a_running_jobset_is_refused_by_job():
    def image(obj):
        worker_pod(obj)["spec"]["containers"][0]["image"] = "example.com/train:2"

    assert JOBSET.immutable(RENDERED, edited(image)) == ["spec.replicatedJobs[worker]"]


@pytest.mark.parametrize("field, value", [("nodeSelector", {"pool": "a100"}),
                                          ("tolerations", [{"key": "gpu", "operator": "Exists"}]),
                                          ("schedulingGates", [{"name": "kueue"}])])
def test_kueues_pod_fields_may_change_while_it_is_suspended(field, value):
    def schedule(obj):
        worker_pod(obj)["spec"][field] = value
        worker_pod(obj)["metadata"].setdefault("labels", {})["kueue.x-k8s.io/podset"] = "worker"

    old = edited(lambda obj: None, suspend=True)
    assert JOBSET.immutable(old, edited(schedule, suspend=True)) == []
    assert JOBSET.immutable(RENDERED, edited(schedule)) == ["spec.replicatedJobs[worker]"]


def test_other_pod_fields_stay_while_it_is_suspended():
    def image(obj):
        worker_pod(obj)["spec"]["containers"][0]["image"] = "example.com/train:2"

    old = edited(lambda obj: None, suspend=True)
    assert JOBSET.immutable(old, edited(image, suspend=True)) == ["spec.replicatedJobs[worker]"]


def test_a_replicated_job_added_changes_the_list():
    def add(obj):
        obj["spec"]["replicatedJobs"].append({**copy.deepcopy(obj["spec"]["replicatedJobs"][1]), "name": "more"})

    assert JOBSET.immutable(RENDERED, edited(add)) == ["spec.replicatedJobs"]


@pytest.mark.parametrize("field, value", [("network", {"subdomain": "other"}),
                                          ("successPolicy", {"operator": "Any"}),
                                          ("failurePolicy", {"maxRestarts": 3}),
                                          ("startupPolicy", {"startupPolicyOrder": "InOrder"}),
                                          ("volumeClaimPolicies", [{"templates": []}]),
                                          ("managedBy", "example.com/other")])
def test_the_cel_and_webhook_immutable_fields(field, value):
    assert JOBSET.immutable(RENDERED, edited(lambda obj: obj["spec"].__setitem__(field, value))) == [f"spec.{field}"]


@pytest.mark.parametrize("field, value", [("suspend", True), ("ttlSecondsAfterFinished", 600)])
def test_suspend_and_ttl_may_change(field, value):
    assert JOBSET.immutable(RENDERED, edited(lambda obj: obj["spec"].__setitem__(field, value))) == []
