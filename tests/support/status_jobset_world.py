"""A rendered JobSet, and a TrainJob's, in the cluster at a moment of its life
(tests.support.status_moments), with the statuses their controllers write, ported from:

- JS = kubernetes-sigs/jobset v0.12.0 pkg/controllers/jobset_controller.go: child Jobs
  `<jobset>-<replicated job>-<index>` (pkg/util/placement/placement.go GenJobName), labelled
  by `labelAndAnnotateObject` (jobset-name, replicatedjob-name, job-index, restart-attempt)
  with the template's labels, owned by the JobSet (`constructJob`), created suspended while
  the JobSet is (`suspendJobs` suspends the active ones of a JobSet suspended after it ran,
  the keygen's Complete Job stays); a replicated job only once its dependsOn reached its status
  (`reconcileReplicatedJobs`); `calculateReplicatedJobStatuses` (ready: succeeded + ready >=
  min(parallelism, completions); active; suspended; succeeded and failed Jobs); conditions
  from pkg/constants/constants.go: Suspended True SuspendedJobs "jobset is suspended",
  False ResumeJobs "jobset is resumed" (`setJobSetSuspendedCondition`,
  `setJobSetResumedCondition`); RestartingJobSet False JobsReady "all jobs are ready" once
  every Job is ready after a restart; Completed True AllJobsCompleted "jobset completed
  successfully" (success policy, `setJobSetCompletedCondition`), terminalState; on a failed
  Job the failure policy (pkg/controllers/failure_policy.go, ported in
  tests.support.failure_policies): a restart counted in restarts and
  restartsCountTowardsMax, or Failed once they reached maxRestarts (ReachedMaxRestarts,
  "jobset failed due to reaching max number of restarts (first failed job: NAME)"); a
  finished JobSet deletes its active Jobs (`reconcile`: `deleteJobs(ownedJobs.active)`);
- TR = kubeflow/trainer v2.3.0: the JobSet made by tests.support.e2e.trainjob_cluster (the
  port of the Trainer's controller, owned by the TrainJob), suspended with it
  (plugins/jobset/jobset.go `Build`: `Suspend(trainJob.Spec.Suspend)`); the TrainJob's status
  (`Status`: the JobSet's Completed and Failed copied as Complete and Failed, jobsStatus from
  replicatedJobsStatus; trainjob_controller.go `setSuspendedCondition`: Suspended True
  Suspended "TrainJob is suspended", False Resumed "TrainJob is resumed").
"""

from __future__ import annotations

import copy

from tests.support.e2e.trainjob_cluster import expand_rendered
from tests.support.failure_policies import FailedJob, jobset_decision, restart_counts
from tests.support.status_moments import SUSPENDED, lives, pod_life
from tests.support.status_objects import condition, job_pod_name, job_status, left_after, live, pod

SUSPENDED_CONDITION = ("SuspendedJobs", "jobset is suspended")
RESUMED_CONDITION = ("ResumeJobs", "jobset is resumed")
FINISHING = {"keygen"}  # a replicated job others dependsOn with status Complete


def jobset_world(js: dict, moment: str, queued: bool, restarts: int = 0) -> list[dict]:
    """The JobSet, its child Jobs and their pods at `moment`."""
    js = live(copy.deepcopy(js)) if "uid" not in js["metadata"] else js
    suspended = moment in SUSPENDED
    js["spec"]["suspend"] = suspended
    max_restarts = js["spec"].get("failurePolicy", {}).get("maxRestarts", 0)
    attempt = max_restarts if moment == "failed" else (1 if moment == "restarted" else restarts)
    roles = [rj["name"] for rj in js["spec"]["replicatedJobs"]]
    ran = moment in ("stopped", "preempted")  # suspended after running: suspendJobs suspends the active Jobs
    steps = lives("running" if ran else moment, roles, FINISHING, all_at_once=False)
    jobs, pods = [], []
    for rj, life in zip(js["spec"]["replicatedJobs"], steps):
        if life is None and not (suspended and rj is js["spec"]["replicatedJobs"][0]):
            continue  # dependsOn: not created yet (a suspended JobSet's first Job is, suspended)
        for index in range(rj.get("replicas", 1)):
            job, job_pods = _child_job(js, rj, index, life, attempt, suspended and life != "succeeded")
            jobs.append(job)
            pods += job_pods
    js["status"] = _jobset_status(js, jobs, moment, queued, attempt)
    if moment in ("succeeded", "failed"):  # deleteJobs(ownedJobs.active)
        kept = [j for j in jobs if _finished(j)]
        pods = [p for p in pods if p["metadata"]["ownerReferences"][0]["uid"] in {j["metadata"]["uid"] for j in kept}]
        jobs = kept
    return [js, *jobs, *pods]


def _child_job(js: dict, rj: dict, index: int, life: str | None, attempt: int, suspended: bool):
    name = f"{js['metadata']['name']}-{rj['name']}-{index}"
    labels = {**rj["template"].get("metadata", {}).get("labels", {}),
              "jobset.sigs.k8s.io/jobset-name": js["metadata"]["name"],
              "jobset.sigs.k8s.io/replicatedjob-name": rj["name"], "jobset.sigs.k8s.io/job-index": str(index),
              "jobset.sigs.k8s.io/restart-attempt": str(attempt)}
    spec = copy.deepcopy(rj["template"]["spec"])
    spec["suspend"] = suspended
    job = live({"apiVersion": "batch/v1", "kind": "Job",
                "metadata": {"name": name, "namespace": js["metadata"]["namespace"], "labels": labels},
                "spec": spec}, js)
    pods = []
    if life is not None and not suspended:
        for p in range(spec.get("parallelism", 1)):
            pod_labels = {**labels, "batch.kubernetes.io/job-name": name,
                          "batch.kubernetes.io/job-completion-index": str(p)}
            pods.append(pod(job_pod_name(name, p, attempt), js["metadata"]["namespace"], spec["template"], job,
                            pod_life(life, p), labels=pod_labels))
    job["status"] = job_status(job, pods)
    return job, left_after(job["status"], pods)


def _finished(job: dict) -> bool:
    return any(c["type"] in ("Complete", "Failed") and c["status"] == "True" for c in job["status"].get("conditions", []))


def _replicated_jobs_status(js: dict, jobs: list[dict]) -> list[dict]:
    """JS calculateReplicatedJobStatuses."""
    out = []
    for rj in js["spec"]["replicatedJobs"]:
        mine = [j for j in jobs if j["metadata"]["labels"]["jobset.sigs.k8s.io/replicatedjob-name"] == rj["name"]]
        done = [j for j in mine if _finished(j)]
        active = [j for j in mine if j not in done]
        count = {"name": rj["name"], "ready": 0, "succeeded": 0, "failed": 0, "active": 0, "suspended": 0}
        for job in active:
            pods_count = min(job["spec"].get("parallelism", 1), job["spec"].get("completions", 1))
            count["ready"] += job["status"]["succeeded"] + job["status"]["ready"] >= pods_count
            count["active"] += job["status"]["active"] > 0
            count["suspended"] += job["spec"].get("suspend") is True
        for job in done:
            key = "succeeded" if any(c["type"] == "Complete" for c in job["status"]["conditions"]) else "failed"
            count[key] += 1
        out.append({k: int(v) if isinstance(v, bool) else v for k, v in count.items()})
    return out


def _jobset_status(js: dict, jobs: list[dict], moment: str, queued: bool, attempt: int) -> dict:
    status = {"restarts": attempt, "replicatedJobsStatus": _replicated_jobs_status(js, jobs)}
    conditions = []
    if moment in SUSPENDED:
        conditions.append(condition("Suspended", "True", *SUSPENDED_CONDITION))
    elif queued:
        conditions.append(condition("Suspended", "False", *RESUMED_CONDITION))
    if moment == "restarted":
        conditions.append(condition("RestartingJobSet", "False", "JobsReady", "all jobs are ready"))
    if moment == "succeeded":
        conditions.append(condition("Completed", "True", "AllJobsCompleted", "jobset completed successfully"))
        status["terminalState"] = "Completed"
    if moment == "failed":
        conditions.append(_failure_policy(js, jobs, attempt))
        status["terminalState"] = "Failed"
    if attempt:
        status["restartsCountTowardsMax"] = attempt
    if conditions:
        status["conditions"] = conditions
    return status


def _failure_policy(js: dict, jobs: list[dict], counted: int) -> dict:
    """JS executeFailurePolicy on the failed launcher Job, once `counted` restarts counted."""
    failed = next(j for j in jobs if any(c["type"] == "Failed" for c in j["status"].get("conditions", [])))
    reason = next(c for c in failed["status"]["conditions"] if c["type"] == "Failed")
    role = failed["metadata"]["labels"]["jobset.sigs.k8s.io/replicatedjob-name"]
    action, _ = jobset_decision(js["spec"].get("failurePolicy"), [FailedJob(role, reason["reason"], reason["message"], 0)])
    outcome, _ = restart_counts(action, counted, js["spec"]["failurePolicy"]["maxRestarts"])
    assert outcome == "Failed", (action, outcome)
    base = ("ReachedMaxRestarts", "jobset failed due to reaching max number of restarts") if action == "RestartJobSet" \
        else ("FailJobSetFailurePolicyAction", "applying FailJobSet failure policy action")
    return condition("Failed", "True", base[0], f"{base[1]} (first failed job: {failed['metadata']['name']})")


def trainjob_world(rendered: list[dict], moment: str, queued: bool) -> list[dict]:
    """The TrainJob, the objects the Trainer makes of it, and its JobSet's world."""
    trainjob, made = expand_rendered(copy.deepcopy(rendered))
    trainjob = live(trainjob)
    trainjob["spec"]["suspend"] = moment in SUSPENDED
    js = next(o for o in made if o["kind"] == "JobSet")
    js["metadata"]["uid"] = f"{trainjob['metadata']['uid']}-jobset"
    world = jobset_world(js, moment, queued)
    status = {"conditions": []}
    if moment in SUSPENDED:
        status["conditions"].append(condition("Suspended", "True", "Suspended", "TrainJob is suspended"))
    elif queued:
        status["conditions"].append(condition("Suspended", "False", "Resumed", "TrainJob is resumed"))
    for found in js["status"].get("conditions", []):
        if found["type"] in ("Completed", "Failed") and found["status"] == "True":
            status["conditions"].append({**found, "type": "Complete" if found["type"] == "Completed" else "Failed"})
    status["jobsStatus"] = copy.deepcopy(js["status"]["replicatedJobsStatus"])
    trainjob["status"] = status
    others = [live(copy.deepcopy(o)) for o in rendered if o["kind"] != "TrainJob"]  # applied beside it
    others += [live(o) for o in made if o["kind"] in ("Secret", "ConfigMap")]
    return [trainjob, *others, *world]
