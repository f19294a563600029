"""The labels and annotations of a job that Kueue's webhook refuses to change once the job
runs or has finished, with Kueue's reason for each.

"Runs or has finished" is "not suspended": Kueue owns the suspend of a job it manages (its
webhook suspends the job on creation, admission resumes it), so a job that Git holds and
Kueue has admitted is not suspended, whatever the file says. The facts are Kueue v0.19.2's
(https://github.com/kubernetes-sigs/kueue/tree/v0.19.2, commit 8eab6877):

- pkg/controller/jobframework/validation.go, ValidateJobOnUpdate, which the webhook of every
  job kind Kueue manages runs on an update (the batch Job, JobSet, MPIJob v2beta1 and
  TrainJob webhooks: pkg/controller/jobs/<kind>/<kind>_webhook.go): the label queue-name is
  immutable while the job is not suspended (validateUpdateForQueueName; and never removed in
  a namespace with a default LocalQueue); priority-class is never removed, and never added to
  a job that is not suspended (ValidateUpdateForWorkloadPriorityClassName); max-exec-time-seconds
  is immutable unless the old and the new job are suspended (validateUpdateForMaxExecTime);
  prebuilt-workload-name (a label, or an annotation) while it is not suspended
  (validateUpdateForPrebuiltWorkload); whether the annotation elastic-job is "true" never
  changes (validatedUpdateForEnabledWorkloadSlice); a gate is never added to the annotation
  admission-gated-by, only removed (pkg/util/webhook/validation_admissiongatedby.go).
- A batch Job also keeps the annotation job-completions-equal-parallelism while it is not
  suspended (pkg/controller/jobs/job/job_webhook.go, validatePartialAdmissionUpdate).
- A StatefulSet (pkg/controller/jobs/statefulset/statefulset_webhook.go, ValidateUpdate),
  "suspended" while none of its replicas is ready: queue-name, priority-class and
  admission-gated-by, as above.

Kueue v0.14 (v0.14.0, commit 431c2e53) refused more: any change of priority-class on a job
that is not suspended (ValidateUpdateForWorkloadPriorityClassName was ValidateImmutableField);
v0.15.0 (commit 1929d830) lets a new value replace the old. mpigen writes for Kueue v0.14 and
later (the TrainJob integration's first release), so a new priority class counts as refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from mpigen.kube.labels import (KUEUE_ADMISSION_GATED_BY_ANNOTATION, KUEUE_COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION,
                                KUEUE_ELASTIC_JOB_ANNOTATION, KUEUE_MAX_EXEC_TIME_LABEL, KUEUE_PREBUILT_WORKLOAD,
                                KUEUE_PRIORITY_LABEL, KUEUE_QUEUE_LABEL)

# (old value, new value; "" when absent) -> why Kueue refuses the change on a job that is not
# suspended, or None when it accepts it.
Refusal = Callable[[str, str], str | None]


@dataclass(frozen=True)
class Rule:
    """One label or annotation key of a job and what Kueue's webhook refuses of its changes."""

    where: str  # "labels" or "annotations"
    key: str
    refused: Refusal


def _kept(reason: str) -> Refusal:
    """Any change refused."""
    return lambda old, new: None if old == new else reason


def _priority_class(old: str, new: str) -> str | None:
    if old == new:
        return None
    if not new:
        return "Kueue never lets a WorkloadPriorityClass be removed from a job (ValidateUpdateForWorkloadPriorityClassName)"
    if not old:
        return ("Kueue refuses to add a WorkloadPriorityClass to a job that is not suspended "
                "(ValidateUpdateForWorkloadPriorityClassName)")
    return ("Kueue v0.14 refuses a new WorkloadPriorityClass on a job that is not suspended "
            "(v0.15 and later accept it)")


def _csv(value: str) -> list[str]:
    """Kueue's pkg/util/csv Parse: comma-separated names, spaces trimmed."""
    return [] if not value.strip() else [name.strip() for name in value.split(",")]


def _admission_gates(old: str, new: str) -> str | None:
    if not old and new:
        return "Kueue never adds an admission gate after creation (ValidateAdmissionGatedByAnnotationOnUpdate)"
    if old and new and not set(_csv(new)) <= set(_csv(old)):
        return "Kueue only removes admission gates, never adds one (ValidateAdmissionGatedByAnnotationOnUpdate)"
    return None


def _go_bool(value: str) -> bool:
    """Go's strconv.ParseBool, an unparsable value false (as Kueue reads the annotation)."""
    return value in ("1", "t", "T", "TRUE", "true", "True")


QUEUE = Rule("labels", KUEUE_QUEUE_LABEL, _kept(
    "Kueue keeps the queue of a job that is not suspended (validateUpdateForQueueName)"))
PRIORITY_CLASS = Rule("labels", KUEUE_PRIORITY_LABEL, _priority_class)
MAX_EXEC_TIME = Rule("labels", KUEUE_MAX_EXEC_TIME_LABEL, _kept(
    "Kueue keeps the maximum execution time of a job that is not suspended (validateUpdateForMaxExecTime)"))
PREBUILT_WORKLOAD = tuple(Rule(where, KUEUE_PREBUILT_WORKLOAD, _kept(
    "Kueue keeps the prebuilt workload of a job that is not suspended (validateUpdateForPrebuiltWorkload)"))
    for where in ("labels", "annotations"))
ELASTIC_JOB = Rule("annotations", KUEUE_ELASTIC_JOB_ANNOTATION, lambda old, new: None if (old == "true") == (
    new == "true") else "Kueue never turns workload slicing on or off (validatedUpdateForEnabledWorkloadSlice)")
ADMISSION_GATED_BY = Rule("annotations", KUEUE_ADMISSION_GATED_BY_ANNOTATION, _admission_gates)
COMPLETIONS_EQUAL_PARALLELISM = Rule(
    "annotations", KUEUE_COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION,
    lambda old, new: None if _go_bool(old) == _go_bool(new) else
    "Kueue keeps it while the Job is not suspended (validatePartialAdmissionUpdate)")

# The rules of ValidateJobOnUpdate: every job kind Kueue manages.
JOB_RULES = (QUEUE, PRIORITY_CLASS, MAX_EXEC_TIME, *PREBUILT_WORKLOAD, ELASTIC_JOB, ADMISSION_GATED_BY)
BATCH_JOB_RULES = JOB_RULES + (COMPLETIONS_EQUAL_PARALLELISM,)
STATEFULSET_RULES = (QUEUE, PRIORITY_CLASS, ADMISSION_GATED_BY)
ALL_RULES = BATCH_JOB_RULES  # every key of every kind's rules


def _value(obj: dict, rule: Rule) -> str:
    meta = obj.get("metadata")
    found = meta.get(rule.where) if isinstance(meta, dict) else None
    value = found.get(rule.key) if isinstance(found, dict) else None
    return value if isinstance(value, str) else ""


def refused_changes(old: dict, new: dict, rules: tuple[Rule, ...]) -> list[tuple[Rule, str]]:
    """(rule, Kueue's reason) of each key whose change from old to new Kueue's webhook refuses
    on a job that is not suspended."""
    found = []
    for rule in rules:
        reason = rule.refused(_value(old, rule), _value(new, rule))
        if reason is not None:
            found.append((rule, reason))
    return found


def kept_metadata(obj: dict) -> dict:
    """The labels and annotations of the object that Kueue may refuse to change on a job of any
    kind (those of ALL_RULES it has): {"labels": {...}, "annotations": {...}}, each only if any."""
    kept: dict = {}
    for rule in ALL_RULES:
        meta = obj.get("metadata")
        found = meta.get(rule.where) if isinstance(meta, dict) else None
        if isinstance(found, dict) and rule.key in found:
            kept.setdefault(rule.where, {})[rule.key] = found[rule.key]
    return kept
