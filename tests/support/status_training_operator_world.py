"""A rendered kubeflow.org/v1 MPIJob (`--mpijob-api kubeflow.org/v1`) in the cluster at a
moment of its life (tests.support.status_moments), as the Kubeflow training-operator writes it:
TO = kubeflow/trainer tag v1.9.0, pkg/controller.v1/mpi/mpijob_controller.go and mpijob.go,
pkg/controller.v1/common/job.go, pkg/apis/kubeflow.org/v1/common_types.go.

- pods, no batch Job: the workers `<job>-worker-<i>` (`getOrCreateWorker`, `newWorker`) and the
  launcher, a bare pod `<job>-launcher` (`ReconcilePods`, `newLauncher`), each owned by the
  MPIJob (NewControllerRef) and labelled with its template's labels, `GenLabels`
  (training.kubeflow.org/operator-name mpijob-controller, job-name) and the replica type
  (`defaultReplicaLabels`: replica-type worker or launcher), the workers their replica-index,
  the launcher job-role master (`IsMasterRole` is true for the Launcher);
- suspended (runPolicy.suspend): every pod deleted (common/job.go `ReconcileJobs`:
  `CleanUpResources` then Running False and Suspended True, reason MPIJobSuspended, "MPIJob
  NAME is suspended.");
- `updateMPIJobStatus`: Succeeded True MPIJobSucceeded "MPIJob NS/NAME successfully
  completed." once the launcher's pod succeeded; Failed True with the launcher pod's status
  reason, else MPIJobFailed, "MPIJob NS/NAME has failed"; Failed True MPIJobEvicted "N/M
  workers are evicted" for workers the kubelet evicted; Running True MPIJobRunning "MPIJob
  NS/NAME is running." once the launcher's pod and every worker run; Created True
  MPIJobCreated "MPIJob NAME is created." (`onOwnerCreateFunc`);
- finished (Succeeded or Failed), the pods Running or Pending deleted under cleanPodPolicy
  Running, which mpigen writes (common/job.go `DeletePodsAndServices`)."""

from __future__ import annotations

import copy

from tests.support.status_moments import SUSPENDED, lives, pod_life
from tests.support.status_objects import condition, live, pod
from tests.support.status_operator_world import evicted_pod

LABELS = "training.kubeflow.org/"


def _labels(job: str, role: str) -> dict:
    """TO GenLabels and defaultReplicaLabels (the launcher: job-role master, IsMasterRole)."""
    out = {LABELS + "operator-name": "mpijob-controller", LABELS + "job-name": job, LABELS + "replica-type": role}
    return {**out, LABELS + "job-role": "master"} if role == "launcher" else out


def mpijob_v1_world(rendered: list[dict], moment: str) -> list[dict]:
    mpijob = live(copy.deepcopy(next(o for o in rendered if o["kind"] == "MPIJob")))
    spec, meta = mpijob["spec"], mpijob["metadata"]
    name, namespace, replicas = meta["name"], meta["namespace"], spec["mpiReplicaSpecs"]
    spec["runPolicy"]["suspend"] = suspended = moment in SUSPENDED or spec["runPolicy"].get("suspend") is True
    worker_life, launcher_life = lives(moment, ["worker", "launcher"], set(), all_at_once=True)
    pods = []
    if not suspended and worker_life:
        pods = [pod(f"{name}-worker-{i}", namespace, replicas["Worker"]["template"], mpijob, pod_life(worker_life, i),
                    labels={**_labels(name, "worker"), LABELS + "replica-index": str(i)})
                for i in range(replicas["Worker"]["replicas"])]
        if moment == "evicted":
            pods[-1] = evicted_pod(pods[-1])
    if not suspended and launcher_life:
        pods.append(pod(f"{name}-launcher", namespace, replicas["Launcher"]["template"], mpijob, launcher_life,
                        labels=_labels(name, "launcher")))
    mpijob["status"] = _status(mpijob, pods, suspended)
    finished = any(c["type"] in ("Succeeded", "Failed") for c in mpijob["status"]["conditions"])
    if finished and spec["runPolicy"].get("cleanPodPolicy") == "Running":
        pods = [p for p in pods if p["status"]["phase"] not in ("Running", "Pending")]
    return [mpijob, *pods]


def _status(mpijob: dict, pods: list[dict], suspended: bool) -> dict:
    """TO updateMPIJobStatus, and ReconcileJobs' suspension."""
    name = mpijob["metadata"]["name"]
    where = f"{mpijob['metadata']['namespace']}/{name}"
    conditions = [condition("Created", "True", "MPIJobCreated", f"MPIJob {name} is created.")]
    if suspended:
        return {"conditions": conditions + [condition("Running", "False", "MPIJobSuspended", f"MPIJob {name} is suspended."),
                                            condition("Suspended", "True", "MPIJobSuspended",
                                                      f"MPIJob {name} is suspended.")]}
    launcher = next((p for p in pods if p["metadata"]["name"] == f"{name}-launcher"), None)
    workers = [p for p in pods if p is not launcher]
    phase = launcher["status"]["phase"] if launcher else None
    if phase == "Succeeded":
        conditions.append(condition("Succeeded", "True", "MPIJobSucceeded", f"MPIJob {where} successfully completed."))
    elif phase == "Failed":
        reason = launcher["status"].get("reason") or "MPIJobFailed"
        conditions.append(condition("Failed", "True", reason, f"MPIJob {where} has failed"))
    evicted = sum(1 for p in workers if p["status"]["phase"] == "Failed" and p["status"].get("reason") == "Evicted")
    if evicted:
        conditions.append(condition("Failed", "True", "MPIJobEvicted", f"{evicted}/{len(workers)} workers are evicted"))
    if phase == "Running" and all(p["status"]["phase"] == "Running" for p in workers):
        conditions.append(condition("Running", "True", "MPIJobRunning", f"MPIJob {where} is running."))
    return {"conditions": conditions}
