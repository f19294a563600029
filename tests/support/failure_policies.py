"""Failure policies as the API servers check them and as the controllers act on them,
transcribed from their sources without mpigen's code, for the tests and the pretend cluster:

- K8S = kubernetes/kubernetes (the search index's copy; the rules unchanged since
  podFailurePolicy went GA in 1.31): pkg/apis/batch/validation/validation.go
  (validateJobSpec, validatePodFailurePolicy, validatePodFailurePolicyRule,
  ...OnExitCodes, ...OnPodConditions) and pkg/controller/job/pod_failure_policy.go
  (matchPodFailurePolicy, matchOnExitCodes, matchOnPodConditions);
- JS = kubernetes-sigs/jobset v0.12.0: pkg/webhooks/jobset_webhook.go (validateFailurePolicy,
  validOnJobFailureReasons, ruleNameFmt), api/jobset/v1alpha2/jobset_types.go (the actions'
  enum, UniqueItems) and pkg/controllers/failure_policy.go (executeFailurePolicy,
  findFirstFailedPolicyRuleAndJob, ruleIsApplicable, the action appliers)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# K8S validation.go constants and sets.
MAX_RULES, MAX_VALUES, MAX_PATTERNS = 20, 255, 20
ACTIONS = {"Count", "FailIndex", "FailJob", "Ignore"}
OPERATORS = {"In", "NotIn"}
STATUSES = {"True", "False", "Unknown"}
# JS jobset_webhook.go and jobset_types.go.
JOB_FAILURE_REASONS = {"BackoffLimitExceeded", "DeadlineExceeded", "FailedIndexes", "MaxFailedIndexesExceeded",
                       "PodFailurePolicy"}
JOBSET_ACTIONS = {"FailJobSet", "RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts", "RestartJob",
                  "RestartJobAndIgnoreMaxRestarts"}
RULE_NAME = re.compile(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")
QUALIFIED_NAME = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                            r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")


def job_spec_errors(spec: dict) -> list[str]:
    """K8S validateJobSpec's podFailurePolicy part, and its restartPolicy rule."""
    policy = spec.get("podFailurePolicy")
    if policy is None:
        return []
    pod = spec["template"]["spec"]
    errors = [] if pod.get("restartPolicy") == "Never" else ["restartPolicy: only Never with podFailurePolicy"]
    rules = policy.get("rules", [])
    if len(rules) > MAX_RULES:
        errors.append("rules: too many")
    names = {c["name"] for c in (*pod.get("containers", []), *pod.get("initContainers", []))}
    for i, rule in enumerate(rules):
        errors += [f"rules[{i}]: {e}" for e in _rule_errors(rule, names)]
    return errors


def _rule_errors(rule: dict, containers: set[str]) -> list[str]:
    errors = []
    if rule.get("action") not in ACTIONS or rule.get("action") == "FailIndex":  # FailIndex needs backoffLimitPerIndex
        errors.append(f"action {rule.get('action')!r}")
    codes, conditions = rule.get("onExitCodes"), rule.get("onPodConditions")
    if (codes is None) == (not conditions):
        errors.append("one of onExitCodes and onPodConditions")
    if codes is not None:
        errors += _exit_code_errors(codes, containers)
    for pattern in conditions or []:
        if not QUALIFIED_NAME.match(pattern.get("type", "")) or pattern.get("status") not in STATUSES:
            errors.append(f"onPodConditions {pattern}")
    if conditions and len(conditions) > MAX_PATTERNS:
        errors.append("onPodConditions: too many")
    return errors


def _exit_code_errors(codes: dict, containers: set[str]) -> list[str]:
    errors = []
    if codes.get("operator") not in OPERATORS:
        errors.append("operator")
    if "containerName" in codes and codes["containerName"] not in containers:
        errors.append("containerName: must be one of the container or initContainer names in the pod template")
    values = codes.get("values", [])
    if not values or len(values) > MAX_VALUES:
        errors.append("values: count")
    if codes.get("operator") == "In" and 0 in values:
        errors.append("values: must not be 0 for the In operator")
    if len(set(values)) != len(values):
        errors.append("values: duplicate")
    if any(a > b for a, b in zip(values, values[1:])):
        errors.append("values: must be ordered")
    return errors


def jobset_errors(spec: dict) -> list[str]:
    """JS validateFailurePolicy, the actions' enum and UniqueItems, and K8S's rules for each
    replicated job's Job spec."""
    errors = [f"{rj['name']}: {e}" for rj in spec["replicatedJobs"] for e in job_spec_errors(rj["template"]["spec"])]
    jobs = {rj["name"] for rj in spec["replicatedJobs"]}
    rules = (spec.get("failurePolicy") or {}).get("rules", [])
    names = [rule.get("name", "") for rule in rules]
    if len(set(names)) != len(names):
        errors.append("rule names are not unique")
    for rule in rules:
        name = rule.get("name", "")
        if not (1 <= len(name) <= 128 and RULE_NAME.match(name)):
            errors.append(f"rule name {name!r}")
        if rule.get("action") not in JOBSET_ACTIONS or rule["action"].startswith("RestartJob") \
                and not rule["action"].startswith("RestartJobSet"):  # RestartJob*: alpha gate, off
            errors.append(f"action {rule.get('action')!r}")
        errors += [f"target {t}" for t in rule.get("targetReplicatedJobs", []) if t not in jobs]
        errors += [f"reason {r}" for r in rule.get("onJobFailureReasons", []) if r not in JOB_FAILURE_REASONS]
        for key in ("onJobFailureReasons", "onJobFailureMessagePatterns"):
            if len(set(rule.get(key, []))) != len(rule.get(key, [])):
                errors.append(f"{key}: not unique")
        for pattern in rule.get("onJobFailureMessagePatterns", []):
            re.compile(pattern)  # RE2; the patterns mpigen writes are in the common subset
    return errors


@dataclass
class FailedPod:
    """What matchPodFailurePolicy reads of a failed pod: its containers' exit codes and its conditions."""
    namespace: str
    name: str
    exit_codes: dict[str, int] = field(default_factory=dict)  # terminated containers, in status order
    conditions: list[tuple[str, str]] = field(default_factory=list)  # (type, status)


def match_pod_failure_policy(policy: dict | None, pod: FailedPod) -> tuple[str | None, bool, str | None]:
    """K8S matchPodFailurePolicy: (the Job's failure message for FailJob, whether the failure
    counts against backoffLimit, the action); the first matching rule decides."""
    if policy is None:
        return None, True, None
    for index, rule in enumerate(policy.get("rules", [])):
        codes, action = rule.get("onExitCodes"), rule["action"]
        if codes is not None:
            matched = _matching_container(pod, codes)
            if matched is not None and action in ("Ignore", "Count", "FailJob"):
                message = (f"Container {matched} for pod {pod.namespace}/{pod.name} failed with exit code "
                           f"{pod.exit_codes[matched]} matching {action} rule at index {index}")
                return _result(action, message)
        elif rule.get("onPodConditions") is not None:
            condition = _matching_condition(pod, rule["onPodConditions"])
            if condition is not None and action in ("Ignore", "Count", "FailJob"):
                message = f"Pod {pod.namespace}/{pod.name} has condition {condition} matching {action} rule at index {index}"
                return _result(action, message)
    return None, True, None


def _result(action: str, message: str) -> tuple[str | None, bool, str]:
    if action == "Ignore":
        return None, False, action
    if action == "Count":
        return None, True, action
    return message, True, action


def _matching_container(pod: FailedPod, codes: dict) -> str | None:
    """K8S matchOnExitCodes/getMatchingContainerFromList: the first terminated container, by
    name if one is given, whose non-zero exit code satisfies the operator."""
    for name, code in pod.exit_codes.items():
        if codes.get("containerName") not in (None, name) or code == 0:
            continue
        inside = code in codes["values"]
        if (codes["operator"] == "In" and inside) or (codes["operator"] == "NotIn" and not inside):
            return name
    return None


def _matching_condition(pod: FailedPod, patterns: list[dict]) -> str | None:
    """K8S matchOnPodConditions: the pod's conditions in order, against every pattern."""
    for kind, status in pod.conditions:
        if any(p["type"] == kind and p["status"] == status for p in patterns):
            return kind
    return None


@dataclass
class FailedJob:
    """What the JobSet controller reads of a failed child Job: its Failed condition and its replicated job."""
    replicated_job: str
    reason: str
    message: str
    time: float


def jobset_decision(failure_policy: dict | None, failed: list[FailedJob]) -> tuple[str, str | None]:
    """JS executeFailurePolicy: (the action, the matching rule's name). No policy fails the
    JobSet; the first rule that any failed Job matches wins (the Job that failed first among
    those it matches); none matching means RestartJobSet."""
    if failure_policy is None:
        return "FailJobSet", None
    for rule in failure_policy.get("rules", []):
        if any(_applicable(rule, job) for job in failed):
            return rule["action"], rule.get("name")
    return "RestartJobSet", None


def _applicable(rule: dict, job: FailedJob) -> bool:
    """JS ruleIsApplicable: reason, message pattern (regexp.MatchString: a search), replicated job."""
    reasons, patterns = rule.get("onJobFailureReasons", []), rule.get("onJobFailureMessagePatterns", [])
    targets = rule.get("targetReplicatedJobs", [])
    return ((not reasons or job.reason in reasons)
            and (not patterns or any(re.search(p, job.message) for p in patterns))
            and (not targets or job.replicated_job in targets))


def restart_counts(action: str, restarts_counted: int, max_restarts: int) -> tuple[str, int]:
    """JS's appliers: (the JobSet's outcome, its restartsCountTowardsMax after the action).
    RestartJobSet fails the JobSet with ReachedMaxRestarts once the count reached maxRestarts."""
    if action == "FailJobSet":
        return "Failed", restarts_counted
    if action == "RestartJobSetAndIgnoreMaxRestarts":
        return "Restarting", restarts_counted
    if restarts_counted >= max_restarts:
        return "Failed", restarts_counted
    return "Restarting", restarts_counted + 1
