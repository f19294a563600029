"""The pretend cluster's Job and JobSet controllers acting on a failed pod, as their sources do
(the rules ported in tests/support/failure_policies.py, each citing its source):

1. the pod fails: its containers' processes end (SIGTERM, as the kubelet stops a pod being
   evicted, or a container's own exit code), and a disrupted pod carries the condition
   DisruptionTarget=True, which the eviction API, preemption and the taint manager add
   before they delete the pod (kubernetes/kubernetes pkg/registry/core/pod/storage/
   eviction.go, pkg/scheduler/framework/preemption, pkg/controller/tainteviction);
2. its Job's podFailurePolicy decides (K8S pod_failure_policy.go `matchPodFailurePolicy`):
   Ignore replaces the pod, uncounted; otherwise the failure counts against backoffLimit, 0
   in every rendered Job, and the Job fails: reason PodFailurePolicy with the rule's message
   for FailJob (K8S job_controller.go, the FailureTarget then Failed condition), else
   BackoffLimitExceeded;
3. the JobSet's failurePolicy decides (JS v0.12.0 pkg/controllers/failure_policy.go): the
   first rule a failed Job matches; FailJobSet fails it, RestartJobSetAndIgnoreMaxRestarts
   bumps status.restarts only, RestartJobSet (also when no rule matches) bumps restarts and
   restartsCountTowardsMax, or fails it (ReachedMaxRestarts) once that reached maxRestarts;
4. a restart with restartStrategy Recreate deletes every Job and creates them again under
   the same names (jobset_controller.go: Jobs whose restart-attempt is below status.restarts
   are deleted; shouldCreateJob): the pods of the keygen and worker Jobs run again
   (restart_job), in the JobSet's order; the launcher's is the test's to run.
Modelled: which Job fails first (the one whose pod the test fails), and the time between.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass

from tests.support.e2e.pods import Pod
from tests.support.e2e.readiness import wait_ready
from tests.support.failure_policies import (FailedJob, FailedPod, jobset_decision, match_pod_failure_policy,
                                            restart_counts)

DISRUPTED = ("DisruptionTarget", "True")
BACKOFF_MESSAGE = "Job has reached the specified backoff limit"  # K8S job_controller.go


@dataclass
class JobSetStatus:
    """The fields of the JobSet's status the failure policy writes."""
    restarts: int = 0
    restarts_counted: int = 0  # restartsCountTowardsMax
    phase: str = "Running"  # Running, Restarting, Failed
    rule: str | None = None  # the failure policy rule that decided last


def exit_code(returncode: int) -> int:
    """A container's exit code as the kubelet reports it: 128 + the signal that ended it."""
    return 128 - returncode if returncode < 0 else returncode


def end_pod(cluster, pod: Pod, code: int | None) -> dict[str, int]:
    """The pod's containers end: with SIGTERM, or (code) their program exits with that code.
    Their exit codes, by container name, in the pod's status order."""
    for process in cluster.running.get(pod.name, []):
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except OSError:
                process.terminate()
            process.wait(10)
    codes = {}
    containers = pod.spec["containers"]
    for container, process in zip(containers, cluster.running.get(pod.name, [])[-len(containers):]):
        if code is not None:  # the container's program, run again as the one that exits with `code`
            process = cluster.run_container(pod, container, ["/bin/sh", "-c", f"exit {code}"])
            process.wait(10)
        codes[container["name"]] = exit_code(process.returncode)
    return codes


def fail_pod(cluster, job: str, pod: Pod, status: JobSetStatus, *, code: int | None = None,
             disrupted: bool = False) -> JobSetStatus:
    """What the Job and JobSet controllers make of the pod of Job `job` failing (above)."""
    conditions = [DISRUPTED] if disrupted else []  # set before the pod is deleted
    failed = FailedPod(pod.namespace, pod.name, end_pod(cluster, pod, code), conditions)
    spec = cluster.jobset()["spec"]
    job_spec = next(rj for rj in spec["replicatedJobs"] if rj["name"] == job)["template"]["spec"]
    message, counts, action = match_pod_failure_policy(job_spec.get("podFailurePolicy"), failed)
    if not counts:  # Ignore: the Job replaces the pod
        return status
    assert job_spec["backoffLimit"] == 0
    failed_job = FailedJob(job, "PodFailurePolicy", message, time.time()) if message is not None else \
        FailedJob(job, "BackoffLimitExceeded", BACKOFF_MESSAGE, time.time())
    decision, rule = jobset_decision(spec.get("failurePolicy"), [failed_job])
    phase, counted = restart_counts(decision, status.restarts_counted, spec["failurePolicy"]["maxRestarts"])
    restarts = status.restarts + (phase == "Restarting")
    return JobSetStatus(restarts, counted, phase, rule)


def recreate(cluster, timeout: float = 60) -> None:
    """Recreate: every Job's pods again, each once its dependency is reached (the keygen's
    Complete, the workers' Ready); the launcher's is left to the test."""
    for rj in cluster.jobset()["spec"]["replicatedJobs"]:
        if rj["name"] == "launcher":
            continue
        for pod in cluster.jobs[rj["name"]]:
            for process in cluster.running.get(pod.name, []):
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
        pods = cluster.restart_job(rj["name"])
        deadline = time.monotonic() + timeout
        for pod in pods:
            if any(d["name"] == rj["name"] for later in cluster.jobset()["spec"]["replicatedJobs"]
                   for d in later.get("dependsOn", []) if d["status"] == "Complete"):
                assert cluster.wait_pod(pod, timeout) is None
            else:
                assert wait_ready(pod, pod.container, deadline), f"{pod.name} is not Ready after the restart"
