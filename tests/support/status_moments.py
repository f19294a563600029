"""The moments of a job's life the tests of `mpigen status` put it in, and what each step's
pods are at each (the controllers' order of creation decides which exist):

- created: the run's objects applied and resumed, its first step's pods unschedulable (no
  node has the GPUs: the scheduler's PodScheduled False, Unschedulable);
- queued, inadmissible, held: suspended by Kueue's webhook on creation, its Workload pending
  (QuotaReserved False: Pending, Inadmissible, AdmissionGated): no pods, but the static
  target's workers, which Kueue's StatefulSet integration lets exist, gated; preempted: the
  same after Kueue evicted the running job for another (its Workload Evicted, requeued);
- keygen, workers, launcher: admitted, the steps before it done (the keygen's pod
  Succeeded, the workers' Ready), this step's pods starting (the keygen's running, one worker
  Ready and the others being created, the launcher's being created); a JobSet creates a
  later step only once the one it dependsOn reached its status, the operators create them
  all at once (their later pods wait, created);
- running; restarted (running after one restart counted against the budget);
  succeeded, failed (the launcher's pod); evicted (running, and a worker's pod evicted by
  the kubelet: phase Failed, reason Evicted, kubernetes/kubernetes pkg/kubelet/eviction/
  eviction_manager.go `evictPod`, helpers.go "The node was low on resource: %v. ");
- stopped: Git says `completed` (suspend, or the static workers scaled to 0).
"""

from __future__ import annotations

MOMENTS = ("absent", "created", "queued", "inadmissible", "held", "preempted", "keygen", "workers", "launcher", "running",
           "restarted", "succeeded", "failed", "evicted", "stopped")
BY_KUEUE = {"queued": "pending", "inadmissible": "inadmissible", "held": "held", "preempted": "preempted"}  # the Workload's state
SUSPENDED = {*BY_KUEUE, "stopped"}
STARTING = {"created": "unschedulable", "keygen": "running", "workers": "partial", "launcher": "creating"}
WORKER_ROLES = ("worker", "node")


def git_state(moment: str) -> str:
    """What the blueprint says at this moment."""
    return {"held": "held", "stopped": "completed"}.get(moment, "running")


def lives(moment: str, roles: list[str], finishing: set[str], all_at_once: bool) -> list[str | None]:
    """Each step's pods' life (None: the step's Job or pods not created): unschedulable,
    gated, creating, partial (the first Ready, the others being created), running,
    succeeded, failed."""
    if moment in SUSPENDED:
        return [None] * len(roles)
    if moment not in STARTING:
        out = ["succeeded" if role in finishing else "running" for role in roles]
        if moment in ("succeeded", "failed"):
            out[-1] = moment
        return out
    worker = next(i for i, role in enumerate(roles) if role in WORKER_ROLES)
    at = {"created": 0, "keygen": 0, "workers": worker, "launcher": len(roles) - 1}[moment]
    out: list[str | None] = []
    for i, role in enumerate(roles):
        if i < at:
            out.append("succeeded" if role in finishing else "running")
        elif i == at:
            out.append(STARTING[moment])
        else:
            out.append(("unschedulable" if moment == "created" else "creating") if all_at_once else None)
    return out


def pod_life(life: str, index: int) -> str:
    """One pod's life within its step's."""
    if life == "partial":
        return "running" if index == 0 else "creating"
    return life
