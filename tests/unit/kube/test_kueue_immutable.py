"""Kueue's webhook rules on the labels and annotations of a job that runs or has finished (not
suspended), each case taken from Kueue v0.19.2's source
(https://github.com/kubernetes-sigs/kueue/tree/v0.19.2): pkg/controller/jobframework/validation.go
(ValidateJobOnUpdate and the functions it calls) and its validation_test.go,
pkg/util/webhook/validation_admissiongatedby.go, pkg/controller/jobs/job/job_webhook.go; the
priority class as v0.14.0 refused it (validation.go, ValidateUpdateForWorkloadPriorityClassName
= ValidateImmutableField)."""

from __future__ import annotations

import pytest

from mpigen.kube.kueue_immutable import (ALL_RULES, BATCH_JOB_RULES, JOB_RULES, STATEFULSET_RULES, kept_metadata,
                                         refused_changes)

QUEUE = "kueue.x-k8s.io/queue-name"
PRIORITY = "kueue.x-k8s.io/priority-class"
MAX_EXEC = "kueue.x-k8s.io/max-exec-time-seconds"
PREBUILT = "kueue.x-k8s.io/prebuilt-workload-name"
ELASTIC = "kueue.x-k8s.io/elastic-job"
GATES = "kueue.x-k8s.io/admission-gated-by"
SYNC_COMPLETIONS = "kueue.x-k8s.io/job-completions-equal-parallelism"


def job(labels: dict | None = None, annotations: dict | None = None) -> dict:
    return {"metadata": {"name": "train", "labels": labels or {}, "annotations": annotations or {}}}


def refused(old: dict, new: dict, rules=JOB_RULES) -> list[tuple[str, str]]:
    return [(rule.where, rule.key) for rule, _ in refused_changes(old, new, rules)]


@pytest.mark.parametrize("old, new, expected", [
    # validateUpdateForQueueName: lq1 -> lq2 on a job that is not suspended (validation_test.go)
    (job({QUEUE: "lq1"}), job({QUEUE: "lq2"}), [("labels", QUEUE)]),
    (job(), job({QUEUE: "lq1"}), [("labels", QUEUE)]),  # a queue added to a running job
    (job({QUEUE: "lq1"}), job(), [("labels", QUEUE)]),  # ... or removed
    # ValidateUpdateForWorkloadPriorityClassName: never removed, not added to a running job
    (job({QUEUE: "q", PRIORITY: "high"}), job({QUEUE: "q"}), [("labels", PRIORITY)]),
    (job({QUEUE: "q"}), job({QUEUE: "q", PRIORITY: "high"}), [("labels", PRIORITY)]),
    # a new value: refused by v0.14 on a job that is not suspended (accepted from v0.15 on)
    (job({QUEUE: "q", PRIORITY: "high"}), job({QUEUE: "q", PRIORITY: "low"}), [("labels", PRIORITY)]),
    # validateUpdateForMaxExecTime: immutable unless both sides are suspended
    (job({MAX_EXEC: "3600"}), job({MAX_EXEC: "7200"}), [("labels", MAX_EXEC)]),
    # validateUpdateForPrebuiltWorkload: label or annotation, while not suspended (validation_test.go)
    (job(annotations={PREBUILT: "workload-name"}), job(annotations={PREBUILT: "workload-name-new"}),
     [("annotations", PREBUILT)]),
    (job({PREBUILT: "w"}), job({PREBUILT: "w2"}), [("labels", PREBUILT)]),
    # validatedUpdateForEnabledWorkloadSlice: whether it is "true"
    (job(annotations={ELASTIC: "true"}), job(), [("annotations", ELASTIC)]),
    (job(annotations={ELASTIC: "false"}), job(annotations={ELASTIC: "no"}), []),
    # ValidateAdmissionGatedByAnnotationOnUpdate: gates only removed
    (job(), job(annotations={GATES: "example.com/gate"}), [("annotations", GATES)]),
    (job(annotations={GATES: "example.com/a"}), job(annotations={GATES: "example.com/a, example.com/b"}),
     [("annotations", GATES)]),
    (job(annotations={GATES: "example.com/a,example.com/b"}), job(annotations={GATES: "example.com/b"}), []),
    (job(annotations={GATES: "example.com/a"}), job(), []),
    # what Kueue lets change in place
    (job({QUEUE: "q", "team": "a"}), job({QUEUE: "q", "team": "b"}), []),
    (job({QUEUE: "q"}, {"argocd.argoproj.io/sync-wave": "0"}), job({QUEUE: "q"}, {"argocd.argoproj.io/sync-wave": "1"}),
     []),
    (job(annotations={SYNC_COMPLETIONS: "true"}), job(annotations={SYNC_COMPLETIONS: "false"}), []),  # not a JobSet's
])
def test_the_rules_of_every_job_kind(old, new, expected):
    assert refused(old, new) == expected


@pytest.mark.parametrize("old, new, expected", [
    # job_webhook.go validatePartialAdmissionUpdate: strconv.ParseBool of the annotation
    (job(annotations={SYNC_COMPLETIONS: "true"}), job(annotations={SYNC_COMPLETIONS: "false"}),
     [("annotations", SYNC_COMPLETIONS)]),
    (job(annotations={SYNC_COMPLETIONS: "True"}), job(annotations={SYNC_COMPLETIONS: "1"}), []),
    (job(annotations={SYNC_COMPLETIONS: "false"}), job(annotations={SYNC_COMPLETIONS: "nonsense"}), []),
])
def test_a_batch_job_also_keeps_completions_equal_to_parallelism(old, new, expected):
    assert refused(old, new, BATCH_JOB_RULES) == expected


def test_a_statefulset_keeps_its_queue_and_priority_class_only():
    """statefulset_webhook.go ValidateUpdate: queue-name, the priority class, the admission gates."""
    old = job({QUEUE: "q", PRIORITY: "high", MAX_EXEC: "1"})
    new = job({QUEUE: "r", MAX_EXEC: "2"})
    assert refused(old, new, STATEFULSET_RULES) == [("labels", QUEUE), ("labels", PRIORITY)]


def test_each_refusal_gives_kueue_s_reason():
    (_, removed), = refused_changes(job({PRIORITY: "high"}), job(), JOB_RULES)
    assert "never lets a WorkloadPriorityClass be removed" in removed
    (_, queue), = refused_changes(job({QUEUE: "a"}), job({QUEUE: "b"}), JOB_RULES)
    assert "validateUpdateForQueueName" in queue


def test_kept_metadata_is_exactly_the_keys_kueue_may_refuse_to_change():
    obj = job({QUEUE: "q", PRIORITY: "high", "team": "a", "mpigen.dev/run": "abc123"},
              {GATES: "example.com/a", "note": "x", "kueue.x-k8s.io/podset-required-topology": "rack"})
    assert kept_metadata(obj) == {"labels": {QUEUE: "q", PRIORITY: "high"}, "annotations": {GATES: "example.com/a"}}
    assert kept_metadata(job({"team": "a"})) == {}
    assert {(rule.where, rule.key) for rule in JOB_RULES + STATEFULSET_RULES} <= {
        (rule.where, rule.key) for rule in ALL_RULES}
