"""What each target's controller says of a run: finished (succeeded, or failed with its reason
and the pod that failed), suspended, and the restarts it counted, read from the conditions and
status fields the controllers write:

- static, a batch Job launcher beside a workers StatefulSet (the v1alpha2 MPI Operator's
  objects): the Job controller's conditions Complete and Failed, reasons BackoffLimitExceeded,
  DeadlineExceeded and PodFailurePolicy (kubernetes/kubernetes pkg/controller/job/
  job_controller.go, k8s.io/api batch/v1 types.go `JobReasonBackoffLimitExceeded`...), its
  status.failed counted against spec.backoffLimit, with the restarts in place of pods with
  restartPolicy OnFailure (job_controller.go `pastBackoffLimitOnFailure`); spec.suspend;
- mpijob, kubeflow.org/v2beta1 (kubeflow/mpi-operator caa3c47 pkg/controller/
  mpi_job_controller.go `updateMPIJobStatus`, `updateMPIJobFailedStatus`; reasons in
  mpi_job_controller_status.go): conditions Succeeded, Failed (the launcher Job's reason, with
  the last failed launcher pod's for BackoffLimitExceeded; MPIJobEvicted for evicted workers),
  Suspended; the launcher Job's status.failed against runPolicy.backoffLimit;
- jobset (JobSet v0.12.0 api/jobset/v1alpha2/jobset_types.go, pkg/constants/constants.go,
  pkg/controllers/jobset_controller.go and failure_policy.go): conditions Completed, Failed
  (reasons FailedJobs, ReachedMaxRestarts, FailJobSetFailurePolicyAction; the message ends
  "(first failed job: NAME)", `messageWithFirstFailedJob`), Suspended; status.
  restartsCountTowardsMax against failurePolicy.maxRestarts;
- trainjob (Kubeflow Trainer v2.3.0 pkg/apis/trainer/v1alpha1/trainjob_types.go,
  pkg/runtime/framework/plugins/jobset/jobset.go `Status`: the JobSet's Completed and Failed
  conditions copied as Complete and Failed, reason and message unchanged;
  pkg/controller/trainjob_controller.go `setSuspendedCondition`), and the JobSet it owns for
  the restarts and the failed Job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mpigen.render.watched import Watched
from mpigen.status.pods import condition, failure_of, is_true, last_failed, named, restarts
from mpigen.status.runs import Run

FIRST_FAILED_JOB = re.compile(r"\(first failed job: ([^)]+)\)$")


@dataclass(frozen=True)
class Reading:
    finished: str | None = None   # succeeded or failed
    reason: str | None = None
    failing_pod: str | None = None
    pod_failure: str | None = None  # what the failing pod says of its failure
    suspended: bool = False
    scaled_down: bool = False     # static: the workers scaled to 0 (`completed`)
    restarts: int | None = None


def _why(found: dict) -> str:
    return f"{found.get('reason', '')}: {found.get('message', '')}".strip(": ")


def _uid_owned(objects: list[dict], owner: dict) -> list[dict]:
    uid = owner["metadata"].get("uid")
    return [o for o in objects if any(ref.get("uid") == uid for ref in o["metadata"].get("ownerReferences") or [])]


def _failed(reason: str, pods: list[dict], used: int | None) -> Reading:
    """Failed, with the pod that failed last among `pods` (none: the Job controller deleted
    its pods, as it does of the active ones once backoffLimit is passed, job_controller.go
    `deleteActivePods`)."""
    pod = last_failed(pods)
    return Reading("failed", reason, pod["metadata"]["name"] if pod else None, failure_of(pod) if pod else None,
                   restarts=used)


def job_restarts(job: dict | None, pods: list[dict], watched: Watched) -> int | None:
    """The failures the Job controller counts against backoffLimit."""
    if job is None:
        return None
    counted = (job.get("status") or {}).get("failed", 0)
    return counted + (restarts(pods) if watched.restarts_counted else 0)


def static(run: Run, watched: Watched) -> Reading:
    launcher = run.top
    pods = named(run.pods, watched.launcher_pods)
    scaled_down = any(s["spec"].get("replicas", 1) == 0 for s in run.of_kind("StatefulSet"))
    if launcher is None:
        return Reading(scaled_down=scaled_down)
    used = job_restarts(launcher, pods, watched)
    if is_true(launcher, "Complete"):
        return Reading("succeeded", restarts=used)
    if is_true(launcher, "Failed"):
        found = condition(launcher, "Failed")
        return _failed(_why(found), pods, _spent(found.get("reason"), used, watched))
    return Reading(suspended=launcher["spec"].get("suspend") is True, scaled_down=scaled_down, restarts=used)


def _spent(reason: str | None, used: int | None, watched: Watched) -> int | None:
    """The failures counted once the Job failed for them: past backoffLimit, the whole budget
    (its pods deleted, their restarts are no longer there to count)."""
    if reason is not None and reason.startswith("BackoffLimitExceeded") and watched.restart_budget is not None:
        return max(used or 0, watched.restart_budget)
    return used


def mpijob(run: Run, watched: Watched) -> Reading:
    top = run.top
    launcher = next((j for j in run.jobs if watched.launcher_jobs and re.fullmatch(watched.launcher_jobs,
                                                                                    j["metadata"]["name"])), None)
    launcher_pods = named(run.pods, watched.launcher_pods)
    used = job_restarts(launcher, launcher_pods, watched) if watched.restart_budget is not None else None
    suspended = top["spec"].get("runPolicy", {}).get("suspend") is True or is_true(top, "Suspended")
    if is_true(top, "Succeeded"):
        return Reading("succeeded", restarts=used)
    if is_true(top, "Failed"):
        failed = condition(top, "Failed")
        pods = launcher_pods if failed.get("reason") != "MPIJobEvicted" else named(run.pods, watched.worker_pods)
        return _failed(_why(failed), pods, _spent(failed.get("reason"), used, watched))
    return Reading(suspended=suspended, restarts=used)


def jobset(run: Run, watched: Watched) -> Reading:
    return _jobset_reading(run, run.top, run.top, "Completed")


def trainjob(run: Run, watched: Watched) -> Reading:
    """The TrainJob's conditions, the restarts of the JobSet the Trainer made of it."""
    return _jobset_reading(run, run.top, next(iter(run.of_kind("JobSet")), None), "Complete")


def _jobset_reading(run: Run, top: dict, js: dict | None, complete: str) -> Reading:
    """`top`'s conditions (`complete`, Failed, Suspended), `js`'s restartsCountTowardsMax
    (omitempty: absent is 0)."""
    used = ((js.get("status") or {}).get("restartsCountTowardsMax", 0)) if js is not None else None
    suspended = top["spec"].get("suspend") is True or is_true(top, "Suspended")
    if is_true(top, complete):
        return Reading("succeeded", restarts=used)
    if is_true(top, "Failed"):
        found = condition(top, "Failed")
        return _failed(_why(found), _jobset_failed_pods(run, found.get("message", "")), used)
    return Reading(suspended=suspended, restarts=used)


def _jobset_failed_pods(run: Run, message: str) -> list[dict]:
    """The pods of the Job the message names first, else every pod of the run."""
    first = FIRST_FAILED_JOB.search(message)
    job = next((j for j in run.jobs if first and j["metadata"]["name"] == first.group(1)), None)
    return _uid_owned(run.pods, job) if job is not None else run.pods


READERS = {"static": static, "mpijob": mpijob, "jobset": jobset, "trainjob": trainjob}
