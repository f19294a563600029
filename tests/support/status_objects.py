"""The objects Kubernetes' own controllers, the kubelet and Kueue write for a job, ported from
their code for the tests of `mpigen status` (tests/unit/status):

- K8S = kubernetes/kubernetes (read through the search index, as tests.support.failure_policies;
  the Job conditions as since 1.31, where Complete follows SuccessCriteriaMet):
  a pod's status: pkg/registry/core/pod/storage/storage.go `assignPod` (PodScheduled True on
  binding), pkg/scheduler/schedule_one.go `handleSchedulingFailure` (PodScheduled False,
  Unschedulable, "0/N nodes are available: ..."), pkg/registry/core/pod/strategy.go
  `applySchedulingGatedCondition` (SchedulingGated, "Scheduling is blocked due to non-empty
  scheduling gates"), pkg/kubelet/status/generate.go (Initialized, ContainersReady, Ready:
  ContainersNotReady, PodCompleted), pkg/kubelet/kubelet_pods.go (container states,
  restartCount);
  a Job's status: pkg/controller/job/job_controller.go `syncJob` (active, ready, succeeded,
  failed; Suspended True "JobSuspended" "Job suspended"; SuccessCriteriaMet then Complete
  "CompletionsReached" "Reached expected number of succeeded pods"; FailureTarget then Failed
  "BackoffLimitExceeded" "Job has reached the specified backoff limit", the restarts of
  OnFailure pods counted, `pastBackoffLimitOnFailure`); a pod of a Job is `<job>-<5>` or,
  Indexed, `<job>-<index>-<5>` (utilrand's alphabet), labelled batch.kubernetes.io/job-name
  and owned by the Job (controller reference);
  a StatefulSet's status: pkg/controller/statefulset/stateful_set_control.go
  `updateStatefulSetStatus` (replicas, readyReplicas, currentReplicas), pods `<set>-<ordinal>`;
- KQ = kubernetes-sigs/kueue v0.19.2: a Workload `<kind>-<owner>-<sha1[:5]>`
  (pkg/controller/jobframework/workload_names.go `GetWorkloadNameForOwnerWithGVK`, `getHash`),
  owned by the job (reconciler.go `constructWorkload`), spec.queueName, the admission gate
  copied (`PropagateAdmissionGatedByAnnotation`); its conditions: QuotaReserved False
  "Pending" with the flavor assigner's message (pkg/scheduler/scheduler.go `requeueAndUpdate`,
  pkg/scheduler/flavorassigner/flavorassigner.go `Assignment.Message`, "insufficient unused
  quota for %s in flavor %s, %s more needed"), "Inadmissible" (pkg/controller/core/
  workload_controller.go "LocalQueue %s is terminating or missing"), "AdmissionGated"
  ("Admission is gated by: %s", `mayUpdateConditionForAdmissionGatedBy`); QuotaReserved True
  "QuotaReserved" "Quota reserved in ClusterQueue %s" (pkg/workload/workload.go
  `SetQuotaReservation`); after a preemption Evicted True "Preempted" (pkg/workload/evict
  `SetEvictedCondition`, the preemptor's message, pkg/scheduler/preemption/preemption.go
  `preemptionMessage`), then QuotaReserved False "Pending" with the same message, Requeued
  True and Admitted False "NoReservation" (pkg/controller/jobframework/reconciler.go step 6,
  `UnsetQuotaReservationWithCondition`, `SyncAdmittedCondition`); Admitted True "Admitted" "The workload is admitted"
  (admissionchecks.go `SyncAdmittedCondition`).
"""

from __future__ import annotations

import hashlib
import uuid

NOW = "2026-12-02T06:00:00Z"
SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # k8s.io/apimachinery/pkg/util/rand: no vowels, no 0 1 3
GATED = ("SchedulingGated", "Scheduling is blocked due to non-empty scheduling gates")
UNSCHEDULABLE = ("Unschedulable", "0/4 nodes are available: 4 Insufficient nvidia.com/gpu. "
                 "preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.")
# KQ pkg/scheduler/preemption/preemption.go preemptionMessage, InClusterQueueReason
PREEMPTED = ("Preempted to accommodate a workload (UID: 5c1e4b9a-0d1f-4c86-9a51-2f7e3b8d6a10, JobUID: "
             "0b9d7f3e-6a2c-4e1b-8f45-9c3d2a7e1b64) due to prioritization in the ClusterQueue; preemptor path: "
             "/gpus; preemptee path: /gpus")
KUEUE_GATE = "kueue.x-k8s.io/admission"  # the scheduling gate Kueue's pod integrations add (KQ pkg/controller/jobs/pod)


def uid(name: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, name))


def owner_ref(owner: dict, controller: bool = True) -> dict:
    return {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": owner["metadata"]["name"],
            "uid": owner["metadata"]["uid"], "controller": controller, "blockOwnerDeletion": True}


def live(obj: dict, owner: dict | None = None) -> dict:
    """An object as the API server stores it: a uid, owned by `owner` when given."""
    meta = obj["metadata"]
    meta.setdefault("uid", uid(f"{obj['kind']}/{meta.get('namespace', '')}/{meta['name']}"))
    meta.setdefault("creationTimestamp", NOW)
    if owner is not None:
        meta["ownerReferences"] = [owner_ref(owner)]
    return obj


def condition(kind: str, status: str, reason: str, message: str = "") -> dict:
    return {"type": kind, "status": status, "reason": reason, "message": message, "lastTransitionTime": NOW}


# --- pods (the scheduler, the API server's binding, the kubelet) -----------------------------
def pod(name: str, namespace: str, template: dict, owner: dict, life: str, *, labels: dict | None = None,
        restarts: int = 0, exit_code: int = 1) -> dict:
    """A pod of `template` at a point of its life: gated, unschedulable, creating (bound, its
    containers not started), running (Ready), succeeded, failed (its container exited
    `exit_code`)."""
    spec = dict(template.get("spec", {}))
    if life == "gated":
        spec["schedulingGates"] = [{"name": KUEUE_GATE}]
    metadata = {"name": name, "namespace": namespace,
                "labels": {**template.get("metadata", {}).get("labels", {}), **(labels or {})}}
    obj = live({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}, owner)
    obj["status"] = _pod_status(spec, life, restarts, exit_code)
    return obj


def _pod_status(spec: dict, life: str, restarts: int, exit_code: int) -> dict:
    if life in ("gated", "unschedulable"):
        reason, message = GATED if life == "gated" else UNSCHEDULABLE
        return {"phase": "Pending", "conditions": [condition("PodScheduled", "False", reason, message)]}
    names = [c["name"] for c in spec.get("containers", [])]
    bound = [condition("PodScheduled", "True", "")]
    if life == "creating":
        waiting = [{"name": n, "ready": False, "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}}}
                   for n in names]
        return {"phase": "Pending", "conditions": bound + [
            condition("Initialized", "True", ""), condition("Ready", "False", "ContainersNotReady",
                                                            f"containers with unready status: [{' '.join(names)}]")],
                "containerStatuses": waiting}
    if life == "running":
        running = [{"name": n, "ready": True, "restartCount": restarts, "state": {"running": {"startedAt": NOW}}}
                   for n in names]
        return {"phase": "Running", "conditions": bound + [condition("Initialized", "True", ""),
                                                           condition("ContainersReady", "True", ""),
                                                           condition("Ready", "True", "")],
                "containerStatuses": running}
    code = 0 if life == "succeeded" else exit_code
    ended = [{"name": n, "ready": False, "restartCount": restarts,
              "state": {"terminated": {"exitCode": code, "reason": "Completed" if code == 0 else "Error"}}} for n in names]
    return {"phase": "Succeeded" if code == 0 else "Failed",
            "conditions": bound + [condition("Ready", "False", "PodCompleted")], "containerStatuses": ended}


def suffix(seed: str) -> str:
    """Five characters of utilrand's alphabet (deterministic here, random in the controllers)."""
    digest = hashlib.sha1(seed.encode()).digest()
    return "".join(SUFFIX_ALPHABET[b % len(SUFFIX_ALPHABET)] for b in digest[:5])


def job_pod_name(job: str, index: int | None, attempt: int = 0) -> str:
    """A Job's pod (generateName `<job>-` or, Indexed, `<job>-<index>-`)."""
    stem = f"{job}-{index}" if index is not None else job
    return f"{stem}-{suffix(f'{stem}/{attempt}')}"


# --- a batch Job (K8S job_controller.go) -----------------------------------------------------
def job_status(job: dict, pods: list[dict]) -> dict:
    """What syncJob writes of its pods: the counts, then Suspended, Complete or Failed."""
    spec = job["spec"]
    phases = [p["status"]["phase"] for p in pods]
    ready = sum(1 for p in pods if any(c["type"] == "Ready" and c["status"] == "True" for c in p["status"]["conditions"]))
    failed = phases.count("Failed")
    if spec["template"]["spec"].get("restartPolicy") == "OnFailure":  # pastBackoffLimitOnFailure
        failed += sum(s.get("restartCount", 0) for p in pods for s in p["status"].get("containerStatuses", []))
    status = {"active": sum(1 for ph in phases if ph not in ("Succeeded", "Failed")), "ready": ready,
              "succeeded": phases.count("Succeeded"), "failed": phases.count("Failed"), "conditions": []}
    if spec.get("suspend"):
        status["conditions"].append(condition("Suspended", "True", "JobSuspended", "Job suspended"))
    elif status["succeeded"] >= spec.get("completions", 1):
        status["conditions"] += [condition(kind, "True", "CompletionsReached", "Reached expected number of succeeded pods")
                                 for kind in ("SuccessCriteriaMet", "Complete")]
    elif failed > spec.get("backoffLimit", 6):
        status["conditions"] += [condition(kind, "True", "BackoffLimitExceeded",
                                           "Job has reached the specified backoff limit")
                                 for kind in ("FailureTarget", "Failed")]
        status["failed"] += status["active"]  # deleteActivePods: the pods it deletes count as failed
        status["active"] = status["ready"] = 0
    if not status["conditions"]:
        del status["conditions"]
    return status


def left_after(status: dict, pods: list[dict]) -> list[dict]:
    """The pods a Job keeps: none active once it failed (job_controller.go deleteActivePods)."""
    failed = any(c["type"] == "Failed" for c in status.get("conditions", []))
    return [p for p in pods if not failed or p["status"]["phase"] in ("Succeeded", "Failed")]


def statefulset_status(sts: dict, pods: list[dict]) -> dict:
    ready = sum(1 for p in pods if p["status"]["phase"] == "Running")
    return {"replicas": len(pods), "readyReplicas": ready, "currentReplicas": len(pods),
            "observedGeneration": 1}


# --- Kueue's Workload (KQ) -------------------------------------------------------------------
def workload_name(owner: dict) -> str:
    group = owner["apiVersion"].rpartition("/")[0]
    meta = owner["metadata"]
    digest = hashlib.sha1("\n".join([owner["kind"], group, meta["name"], meta["uid"]]).encode()).hexdigest()
    return f"{owner['kind'].lower()}-{meta['name']}-{digest[:5]}"


def workload(owner: dict, queue: str, state: str, cluster_queue: str = "gpus") -> dict:
    """The Workload of a job Kueue manages, `state` one of pending, inadmissible, held,
    preempted, admitted."""
    meta = owner["metadata"]
    gate = (meta.get("annotations") or {}).get("kueue.x-k8s.io/admission-gated-by")
    wl = live({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
               "metadata": {"name": workload_name(owner), "namespace": meta["namespace"],
                            "annotations": {"kueue.x-k8s.io/admission-gated-by": gate} if gate else {}},
               "spec": {"queueName": queue}}, owner)
    conditions = {
        "pending": [condition("QuotaReserved", "False", "Pending",
                              "couldn't assign flavors to pod set worker: insufficient unused quota for "
                              "nvidia.com/gpu in flavor a100, 8 more needed")],
        "inadmissible": [condition("QuotaReserved", "False", "Inadmissible",
                                   f"LocalQueue {queue} is terminating or missing")],
        "held": [condition("QuotaReserved", "False", "AdmissionGated", f"Admission is gated by: {gate}")],
        "preempted": [condition("Evicted", "True", "Preempted", PREEMPTED),
                      condition("QuotaReserved", "False", "Pending", PREEMPTED),
                      condition("Admitted", "False", "NoReservation", "The workload has no reservation"),
                      condition("Requeued", "True", "Preempted", PREEMPTED)],
        "admitted": [condition("QuotaReserved", "True", "QuotaReserved", f"Quota reserved in ClusterQueue {cluster_queue}"),
                     condition("Admitted", "True", "Admitted", "The workload is admitted")],
    }[state]
    wl["status"] = {"conditions": conditions}
    if state == "admitted":
        wl["status"]["admission"] = {"clusterQueue": cluster_queue}
    return wl
