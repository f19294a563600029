"""The JobSet of one job (shared/reference/targets.md, section 1), with every field the
JobSet webhook and CRD would default written out, so that a synced JobSet never drifts:
- replicated jobs `keygen` (the default key strategy, mpigen.render.jobset.keygen),
  `worker` and `launcher`, each one Indexed Job, started in that order (dependsOn: the key
  Complete, the workers Ready);
- success when the launcher succeeds (JobSet then deletes the running workers); a failed
  pod fails its Job (backoffLimit 0), and a failed Job restarts the whole JobSet, at most
  runPolicy.backoffLimit times, unless runPolicy.failurePolicy's rules (by default: a
  disrupted pod restarts it without counting) end it or restart it uncounted
  (mpigen.render.parts.failure_policy); the keygen's Job has the disruption rule alone (a
  preempted key step is a disruption like any other; the blueprint's exit-code rules are about
  its program); activeDeadlineSeconds, on the workers' and the launcher's
  Jobs, ends the run at once, also while the launcher waits for workers that never start;
- Kueue: the queue and priority labels on the JobSet alone (one workload), topology requests
  on the rank pod templates, MultiKueue through spec.managedBy.
"""

from __future__ import annotations

from mpigen.compile.mpijob import MPIJob
from mpigen.compile.names import object_meta
from mpigen.kube.labels import MULTIKUEUE
from mpigen.render.jobset.keygen import keygen_pod
from mpigen.render.jobset.names import JOBSET_API, KEYGEN_JOB, LAUNCHER_JOB, WORKER_JOB, jobset_name
from mpigen.render.jobset.pods import launcher_pod, worker_pod
from mpigen.render.parts.failure_policy import (JOB_ACTIONS, disruption_policy, job_policy, pod_failure_policy,
                                                restart_rules)
from mpigen.render.parts.kueue_labels import label_workload, request_topology
from mpigen.render.parts.replicated import NETWORK, replicated_job

DEADLINE_RULE = "deadline"
RANK_JOBS = (WORKER_JOB, LAUNCHER_JOB)  # the Jobs the blueprint's failure rules are for
KEY_JOBS = frozenset({KEYGEN_JOB})  # the Jobs that get the disruption rule alone


def replicated_jobs(job: MPIJob, key_job: bool, wait_for_workers: bool) -> list[dict]:
    workers, launcher = worker_pod(job), launcher_pod(job)
    request_topology(job, workers, launcher)
    out = []
    policy = job_policy(job)
    if key_job:
        out.append(replicated_job(KEYGEN_JOB, 1, {"spec": keygen_pod(job)}, pod_failures=lambda template:
                                  pod_failure_policy(disruption_policy(policy), template, JOB_ACTIONS)))
    # The deadline bounds the whole run, the wait for the workers too.
    deadline = job.effective_active_deadline()

    def pod_failures(template: dict) -> dict:
        return pod_failure_policy(policy, template, JOB_ACTIONS)

    out.append(replicated_job(WORKER_JOB, job.workers, workers, (KEYGEN_JOB, "Complete") if key_job else None,
                              deadline=deadline, pod_failures=pod_failures))
    out.append(replicated_job(LAUNCHER_JOB, 1, launcher, (WORKER_JOB, "Ready") if wait_for_workers else None,
                              deadline=deadline, pod_failures=pod_failures))
    return out


def failure_policy(job: MPIJob, jobs: list[dict]) -> dict:
    """maxRestarts is the budget of the failures no rule takes; a deadline ends the run at
    once; then the rules of the blueprint's failure policy (mpigen.render.parts.failure_policy)."""
    policy = {"maxRestarts": job.effective_backoff_limit(), "restartStrategy": "Recreate"}
    rules = []
    if job.effective_active_deadline() is not None:
        rules.append({"name": DEADLINE_RULE, "action": "FailJobSet", "onJobFailureReasons": ["DeadlineExceeded"],
                      "targetReplicatedJobs": [WORKER_JOB, LAUNCHER_JOB]})
    templates = {rj["name"]: rj["template"]["spec"]["template"] for rj in jobs}
    rules += restart_rules(job_policy(job), templates, KEY_JOBS)
    if rules:
        policy["rules"] = rules
    return policy


def new_jobset(job: MPIJob, key_job: bool, wait_for_workers: bool) -> dict:
    ext = job.extensions
    meta = object_meta(job, jobset_name(job), {})
    label_workload(job, meta)
    spec: dict = {}
    if ext.multiKueue:
        spec["managedBy"] = MULTIKUEUE
    spec.update({
        "network": dict(NETWORK),
        "successPolicy": {"operator": "All", "targetReplicatedJobs": [LAUNCHER_JOB]},
        "startupPolicy": {"startupPolicyOrder": "AnyOrder"},
    })
    jobs = replicated_jobs(job, key_job, wait_for_workers)
    spec.update({"failurePolicy": failure_policy(job, jobs), "replicatedJobs": jobs})
    return {"apiVersion": JOBSET_API, "kind": "JobSet", "metadata": meta, "spec": spec}
