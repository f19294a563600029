"""A rendered static job (a workers StatefulSet and a launcher batch Job, the v1alpha2 MPI
Operator's objects) and a rendered MPIJob (kubeflow.org/v2beta1) in the cluster at a moment of
their life (tests.support.status_moments), with the statuses their controllers write:

- static: the StatefulSet controller's pods `<set>-<ordinal>` and status, the Job
  controller's pods and status (tests.support.status_objects); a suspended Job has no pods;
  Kueue's StatefulSet integration gates the workers' pods while the job waits (KQ v0.19.2
  pkg/controller/jobs/statefulset: the pod-group Workload; pkg/controller/jobs/pod gates
  kueue.x-k8s.io/admission); `completed` scales the workers to 0 (mpigen.render.static);
- MO = kubeflow/mpi-operator caa3c47 (v0.8.2) pkg/controller/mpi_job_controller.go: the
  worker pods `<job>-worker-<i>` owned by the MPIJob (`newWorker`: the template's labels with
  `defaultLabels` and the replica index; `newLauncherPodTemplate` likewise), none while suspended
  (`syncHandler`: workers are created only when not suspended); the launcher Job
  `<job>-launcher` owned by it (`newLauncherJob`: labelled app=<job>, backoffLimit runPolicy.backoffLimit,
  suspended with the MPIJob); `updateMPIJobStatus` and `updateMPIJobFailedStatus`: Created
  True MPIJobCreated "MPIJob NS/NAME is created."; Suspended True MPIJobSuspended "MPIJob
  suspended" and Running False "MPIJob NS/NAME is suspended."; Suspended False
  MPIJobResumed "MPIJob resumed"; Running True MPIJobRunning "MPIJob NS/NAME is running."
  once the launcher's pod runs and every worker does; Succeeded True MPIJobSucceeded
  "MPIJob NS/NAME successfully completed."; Failed with the launcher Job's reason and message
  (and, for BackoffLimitExceeded, "/" and the last failed launcher pod's reason, ": " and its
  message, when such a pod is left); replicaStatuses."""

from __future__ import annotations

import copy

from tests.support.status_moments import BY_KUEUE, SUSPENDED, lives, pod_life
from tests.support.status_objects import (condition, job_pod_name, job_status, left_after, live, pod,
                                          statefulset_status)


def _life_for_restarts(moment: str) -> int:
    return 1 if moment == "restarted" else 0


def launcher_world(job: dict, life: str | None, moment: str, owner: dict | None = None) -> list[dict]:
    """A launcher batch Job and its pod: restarts in place under OnFailure (restarted: once;
    failed: past backoffLimit, its pod then deleted by the Job controller)."""
    namespace = job["metadata"]["namespace"]
    in_place = job["spec"]["template"]["spec"].get("restartPolicy") == "OnFailure"
    pods = []
    if life is not None and not job["spec"].get("suspend"):
        restarts = _life_for_restarts(moment)
        if moment == "failed" and in_place:
            life, restarts = "running", job["spec"].get("backoffLimit", 6) + 1
        name = job_pod_name(job["metadata"]["name"], None)
        pods.append(pod(name, namespace, job["spec"]["template"], job, life, restarts=restarts,
                        labels={"batch.kubernetes.io/job-name": job["metadata"]["name"]}))
    job["status"] = job_status(job, pods)
    return [job, *left_after(job["status"], pods)]


def static_world(rendered: list[dict], moment: str) -> list[dict]:
    objects = [live(copy.deepcopy(o)) for o in rendered]
    sts = next(o for o in objects if o["kind"] == "StatefulSet")
    launcher = next(o for o in objects if o["kind"] == "Job")
    launcher["spec"]["suspend"] = moment in BY_KUEUE  # Kueue's webhook; Git's `completed` leaves it
    worker_life, launcher_life = lives(moment, ["worker", "launcher"], set(), all_at_once=True)
    if moment in BY_KUEUE:
        worker_life = "gated"
    if moment == "stopped":
        sts["spec"]["replicas"], launcher_life = 0, "running"
    pods = [pod(f"{sts['metadata']['name']}-{i}", sts["metadata"]["namespace"], sts["spec"]["template"], sts,
                pod_life(worker_life, i)) for i in range(sts["spec"]["replicas"])] if worker_life else []
    sts["status"] = statefulset_status(sts, pods)
    rest = [o for o in objects if o is not launcher]
    return [*rest, *pods, *launcher_world(launcher, launcher_life, moment)]


def operator_labels(job: str, role: str) -> dict:
    """MO `defaultLabels` (pkg/apis/kubeflow/v2beta1/constants.go keys), on the pod templates."""
    return {"training.kubeflow.org/operator-name": "mpi-operator", "training.kubeflow.org/job-name": job,
            "training.kubeflow.org/job-role": role}


def mpijob_world(rendered: list[dict], moment: str, queued: bool) -> list[dict]:
    mpijob = live(copy.deepcopy(next(o for o in rendered if o["kind"] == "MPIJob")))
    spec, meta = mpijob["spec"], mpijob["metadata"]
    suspended = moment in SUSPENDED
    spec["runPolicy"]["suspend"] = suspended
    worker_life, launcher_life = lives(moment, ["worker", "launcher"], set(), all_at_once=True)
    replicas = spec["mpiReplicaSpecs"]
    workers = [pod(f"{meta['name']}-worker-{i}", meta["namespace"], replicas["Worker"]["template"], mpijob,
                   pod_life(worker_life, i), labels={**operator_labels(meta["name"], "worker"),
                                                     "training.kubeflow.org/replica-index": str(i)})
               for i in range(replicas["Worker"]["replicas"])] if worker_life else []
    if moment == "evicted":
        workers[-1] = evicted_pod(workers[-1])
    launcher_spec = {"backoffLimit": spec["runPolicy"].get("backoffLimit", 6), "suspend": suspended,
                     "template": copy.deepcopy(replicas["Launcher"]["template"])}
    template_meta = launcher_spec["template"].setdefault("metadata", {})
    template_meta["labels"] = {**template_meta.get("labels", {}), **operator_labels(meta["name"], "launcher")}
    launcher_spec["template"].setdefault("spec", {})["restartPolicy"] = replicas["Launcher"].get("restartPolicy",
                                                                                                  "OnFailure")
    launcher = live({"apiVersion": "batch/v1", "kind": "Job",
                     "metadata": {"name": f"{meta['name']}-launcher", "namespace": meta["namespace"],
                                  "labels": {"app": meta["name"]}},
                     "spec": launcher_spec}, mpijob)
    launcher_objects = launcher_world(launcher, launcher_life, moment)
    mpijob["status"] = _mpijob_status(mpijob, launcher, launcher_objects[1:], workers, queued)
    return [mpijob, *launcher_objects, *workers]


def evicted_pod(worker: dict) -> dict:
    """The kubelet's eviction: the pod Failed, reason Evicted."""
    worker["status"] = {**worker["status"], "phase": "Failed", "reason": "Evicted",
                        "message": "The node was low on resource: memory. "}
    return worker


def _mpijob_status(mpijob: dict, launcher: dict, launcher_pods: list[dict], workers: list[dict],
                   queued: bool) -> dict:
    """MO updateMPIJobStatus."""
    where = f"{mpijob['metadata']['namespace']}/{mpijob['metadata']['name']}"
    conditions = [condition("Created", "True", "MPIJobCreated", f"MPIJob {where} is created.")]
    suspended = mpijob["spec"]["runPolicy"]["suspend"]
    if suspended:
        conditions.append(condition("Suspended", "True", "MPIJobSuspended", "MPIJob suspended"))
    elif queued:
        conditions.append(condition("Suspended", "False", "MPIJobResumed", "MPIJob resumed"))
    job_conditions = {c["type"]: c for c in launcher["status"].get("conditions", [])}
    phases = [p["status"]["phase"] for p in workers]
    running_launchers = sum(1 for p in launcher_pods if p["status"]["phase"] == "Running")
    evicted = sum(1 for p in workers if p["status"]["phase"] == "Failed" and p["status"].get("reason") == "Evicted")
    if "Complete" in job_conditions:
        conditions.append(condition("Succeeded", "True", "MPIJobSucceeded", f"MPIJob {where} successfully completed."))
    elif "Failed" in job_conditions:
        conditions.append(_failed(job_conditions["Failed"], launcher_pods))
    if evicted:
        conditions.append(condition("Failed", "True", "MPIJobEvicted", f"{evicted}/{len(workers)} workers are evicted"))
    if suspended:
        conditions.append(condition("Running", "False", "MPIJobSuspended", f"MPIJob {where} is suspended."))
    elif "Complete" not in job_conditions and "Failed" not in job_conditions and running_launchers >= 1 \
            and phases.count("Running") == len(workers):
        conditions.append(condition("Running", "True", "MPIJobRunning", f"MPIJob {where} is running."))
    return {"conditions": conditions, "replicaStatuses": {
        "Launcher": {"active": running_launchers, "failed": launcher["status"]["failed"],
                     "succeeded": int("Complete" in job_conditions)},
        "Worker": {"active": phases.count("Running"), "failed": phases.count("Failed"),
                   "succeeded": phases.count("Succeeded")}}}


def _failed(job_failed: dict, launcher_pods: list[dict]) -> dict:
    """MO updateMPIJobFailedStatus."""
    reason, message = job_failed["reason"] or "MPIJobFailed", job_failed["message"]
    failed = [p for p in launcher_pods if p["status"]["phase"] == "Failed"]
    if reason == "BackoffLimitExceeded" and failed:
        last = failed[-1]["status"]
        reason, message = f"{reason}/{last.get('reason', '')}", f"{message}: {last.get('message', '')}"
    return condition("Failed", "True", reason, message)
