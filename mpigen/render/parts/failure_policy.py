"""A blueprint's failure policy in its controllers' terms: the child Jobs' podFailurePolicy
and the JobSet's failurePolicy rules that act on the Jobs it fails.

Sources (shared/reference/operations.md section 1, docs/targets.md "Failure policies"):
- kubernetes/kubernetes pkg/controller/job/pod_failure_policy.go `matchPodFailurePolicy`:
  the first rule that matches a failed pod decides; FailJob fails the Job with reason
  `PodFailurePolicy` and the message "... matching FailJob rule at index <i>"
  (job_controller.go: the FailureTarget, then the Failed condition, carry them), Count
  counts the pod against backoffLimit, Ignore replaces it uncounted;
- kubernetes-sigs/jobset v0.12.0 pkg/controllers/failure_policy.go: a failed child Job is
  matched against the JobSet's rules in order by its Failed condition's reason
  (onJobFailureReasons), message (onJobFailureMessagePatterns, RE2) and replicated job; no
  rule matching means RestartJobSet, counted against maxRestarts.

So the JobSet tells the Job rules apart by the index in the Job's failure message: each rule
whose action is FailJob or RestartWithoutCounting fails the Job (FailJob), and a JobSet rule
for that index fails the JobSet or restarts it without counting. Restart is the Job's Count:
with backoffLimit 0 the Job fails (BackoffLimitExceeded) and the JobSet restarts, counted.
"""

from __future__ import annotations

from mpigen.compile.mpijob import MPIJob
from mpigen.formats.failure_policy import DISRUPTION, FailurePolicy, FailureRule

FAILED_BY_POLICY = "PodFailurePolicy"  # batch/v1 JobReasonPodFailurePolicy
# What the child Job does with a pod that matches a rule, when the JobSet restarts the job.
JOB_ACTIONS = {"FailJob": "FailJob", "RestartWithoutCounting": "FailJob", "Restart": "Count", "Ignore": "Ignore"}
# What the JobSet does with a Job that a rule failed.
SET_ACTIONS = {"FailJob": "FailJobSet", "RestartWithoutCounting": "RestartJobSetAndIgnoreMaxRestarts"}
# The Job launcher of the static target restarts the launcher alone: a new pod, counted or not.
LAUNCHER_ACTIONS = {"FailJob": "FailJob", "RestartWithoutCounting": "Ignore", "Restart": "Count", "Ignore": "Ignore"}
DISRUPTION_RULE = "disruption"


def written_policy(job: MPIJob) -> FailurePolicy | None:
    return job.source.runPolicy.failurePolicy


def job_policy(job: MPIJob) -> FailurePolicy:
    """The policy of a job whose restarts are a JobSet's: the blueprint's, else the default
    (a disruption restarts the job without counting)."""
    return written_policy(job) or FailurePolicy()


def disruption_policy(policy: FailurePolicy) -> FailurePolicy:
    """The policy of a Job that runs no rank (the SSH key's): the disruption rule alone. The
    blueprint's rules are about its program; one on exit codes without a containerName would
    otherwise match the key step's ssh-keygen or kubectl."""
    return FailurePolicy(disruptions=policy.disruptions)


def containers_of(template: dict) -> set[str]:
    spec = template.get("spec", {})
    return {c["name"] for c in (*spec.get("containers", []), *spec.get("initContainers", []))}


def applies(rule: FailureRule, containers: set[str]) -> bool:
    """A rule about a named container goes only to the Jobs whose pods have it (the API server
    refuses a containerName the pod template does not have)."""
    return rule.onExitCodes is None or rule.onExitCodes.containerName in (None, *containers)


def pod_rule(rule: FailureRule, actions: dict[str, str]) -> dict:
    """One batch/v1 PodFailurePolicyRule."""
    out: dict = {"action": actions[rule.action]}
    if rule.onExitCodes is not None:
        codes = rule.onExitCodes
        out["onExitCodes"] = {**({"containerName": codes.containerName} if codes.containerName else {}),
                              "operator": codes.operator, "values": list(codes.values)}
    else:
        out["onPodConditions"] = [{"type": c.type, "status": c.status} for c in rule.onPodConditions]
    return out


def rule_indices(policy: FailurePolicy, template: dict) -> dict[int, int]:
    """Of each of the policy's rules that a Job with this pod template gets, its index in
    the Job's podFailurePolicy."""
    containers = containers_of(template)
    kept = [number for number, rule in enumerate(policy.pod_rules()) if applies(rule, containers)]
    return {number: index for index, number in enumerate(kept)}


def pod_failure_policy(policy: FailurePolicy, template: dict, actions: dict[str, str]) -> dict:
    rules = policy.pod_rules()
    return {"rules": [pod_rule(rules[number], actions) for number in rule_indices(policy, template)]}


def restart_rules(policy: FailurePolicy, templates: dict[str, dict],
                  disruption_only: frozenset[str] = frozenset()) -> list[dict]:
    """The JobSet's rules for the Jobs (replicated job name -> pod template) the policy fails:
    one per rule that ends or restarts the job uncounted, and per index it has in the Jobs.
    The Jobs named in `disruption_only` have the disruption rule alone (disruption_policy)."""
    out = []
    indices = {name: rule_indices(disruption_policy(policy) if name in disruption_only else policy, template)
               for name, template in templates.items()}
    for number, rule in enumerate(policy.pod_rules()):
        if rule.action not in SET_ACTIONS:
            continue
        at: dict[int, list[str]] = {}
        for name in templates:
            if number in indices[name]:
                at.setdefault(indices[name][number], []).append(name)
        base = DISRUPTION_RULE if number == 0 else f"rule{number}"
        for index, names in at.items():
            out.append({"name": base if len(at) == 1 else f"{base}_{'_'.join(names)}",
                        "action": SET_ACTIONS[rule.action], "onJobFailureReasons": [FAILED_BY_POLICY],
                        "onJobFailureMessagePatterns": [f"matching FailJob rule at index {index}$"],
                        "targetReplicatedJobs": names})
    return out


def read_policy(set_spec: dict, job: str) -> dict | None:
    """The blueprint's failurePolicy that a JobSet spec mpigen wrote renders (the inverse of
    the above, read from replicated job `job`, which has every rule), or None for the default.
    Values of another shape are passed on as they are, for the blueprint's checks to report."""
    jobs = {rj.get("name"): rj for rj in _listed(set_spec.get("replicatedJobs")) if isinstance(rj, dict)}
    job_spec = _mapped(_mapped(_mapped(jobs.get(job)).get("template")).get("spec"))
    pod_rules = [rule for rule in _listed(_mapped(job_spec.get("podFailurePolicy")).get("rules"))
                 if isinstance(rule, dict)]
    if not pod_rules:
        return None
    set_actions = {pattern: rule.get("action")
                      for rule in _listed(_mapped(set_spec.get("failurePolicy")).get("rules")) if isinstance(rule, dict)
                      if job in _listed(rule.get("targetReplicatedJobs", [job]))
                      for pattern in _listed(rule.get("onJobFailureMessagePatterns")) if isinstance(pattern, str)}
    to_blueprint = {"FailJobSet": "FailJob", "RestartJobSetAndIgnoreMaxRestarts": "RestartWithoutCounting"}
    rules = []
    for index, rule in enumerate(pod_rules):
        action = rule.get("action")
        action = {"Count": "Restart", "Ignore": "Ignore"}.get(action, action) if isinstance(action, str) else action
        if action == "FailJob":  # what the JobSet does with the Job it fails
            action = to_blueprint.get(set_actions.get(f"matching FailJob rule at index {index}$"), "Restart")
        requirement = {k: v for k, v in rule.items() if k in ("onExitCodes", "onPodConditions")}
        conditions = requirement.get("onPodConditions")
        if isinstance(conditions, list):
            requirement["onPodConditions"] = [
                {k: v for k, v in c.items() if (k, v) != ("status", "True")} if isinstance(c, dict) else c
                for c in conditions]
        rules.append({"action": action, **requirement})
    first = rules[0]
    if first.get("onPodConditions") != [{"type": DISRUPTION}]:
        return {"disruptions": "Restart", "rules": rules}
    policy = {**({} if first["action"] == "RestartWithoutCounting" else {"disruptions": first["action"]}),
              **({"rules": rules[1:]} if rules[1:] else {})}
    return policy or None  # the default: nothing written


def _mapped(value) -> dict:
    return value if isinstance(value, dict) else {}


def _listed(value) -> list:
    return value if isinstance(value, list) else []
