"""A queued job's place in Kueue, from what Kueue v0.19.2 writes
(https://github.com/kubernetes-sigs/kueue/tree/v0.19.2):

- the job it manages (the object with the label kueue.x-k8s.io/queue-name) is suspended by its
  webhook on creation and resumed once its Workload is admitted
  (pkg/controller/jobframework/defaults.go `ApplyDefaultForSuspend`, reconciler.go
  `ReconcileGenericJob` step 7 "Job admitted, unsuspending");
- the Workload's conditions (apis/kueue/v1beta2/workload_types.go): `Admitted` True once its
  quota is reserved and its admission checks passed (pkg/workload/workload.go
  `SetAdmittedCondition`, `IsAdmitted`); `QuotaReserved` False with the reason and message of
  why not: `Pending` and the scheduler's message (pkg/scheduler/scheduler.go `requeueAndUpdate`:
  `UnsetQuotaReservationWithCondition(wl, "Pending", e.inadmissibleMsg)`), or `Inadmissible`
  when its LocalQueue or ClusterQueue is missing or stopped
  (pkg/controller/core/workload_controller.go `reconcileOnLocalQueueActiveState`,
  `reconcileOnClusterQueueActiveState`: "LocalQueue %s is terminating or missing", ...),
  with the granular reasons (WaitingForQuota, Misconfigured, ...) under the
  UnadmittedWorkloadsObservability gate (`UnadmittedWorkloadReasonWithFallback`); `Evicted`
  True when Kueue took its admission back (pkg/workload/evict);
- the annotation kueue.x-k8s.io/admission-gated-by keeps a Workload from admission while it is
  non-empty (pkg/workload/workload.go `HasAdmissionGate`, `IsAdmissible`); mpigen writes it
  for `state: held` (mpigen.render.kueue.HELD_GATE) and Kueue copies it to the Workload
  (reconciler.go `UpdateAdmissionGatedBy`);
- the visibility API's pending workloads carry `positionInLocalQueue`
  (apis/visibility/v1beta2/types.go `PendingWorkload`), which the reading of the cluster
  gives as Seen.positions.
"""

from __future__ import annotations

from dataclasses import dataclass

from mpigen.kube.labels import KUEUE_ADMISSION_GATED_BY_ANNOTATION, KUEUE_QUEUE_LABEL
from mpigen.status.pods import condition, is_true
from mpigen.status.runs import Run

ADMITTED, QUOTA_RESERVED, EVICTED = "Admitted", "QuotaReserved", "Evicted"


@dataclass(frozen=True)
class Waiting:
    """A job Kueue does not let run yet."""

    state: str                 # queued or held
    queue: str | None
    position: int | None = None
    reason: str | None = None  # QuotaReserved False's reason: message (inadmissible, or the scheduler's why)
    gate: str | None = None    # held: the admission gate


def queue_of(run: Run) -> str | None:
    """The LocalQueue the run's managed objects name."""
    return next((obj["metadata"]["labels"][KUEUE_QUEUE_LABEL] for obj in run.objects
                 if KUEUE_QUEUE_LABEL in (obj["metadata"].get("labels") or {})), None)


def gate_of(run: Run) -> str | None:
    """The admission gate on a managed object or its Workload (None: none, or empty)."""
    for obj in run.objects:
        if KUEUE_QUEUE_LABEL in (obj["metadata"].get("labels") or {}) or obj["kind"] == "Workload":
            gate = (obj["metadata"].get("annotations") or {}).get(KUEUE_ADMISSION_GATED_BY_ANNOTATION)
            if gate:
                return gate
    return None


def waiting(run: Run, positions: dict[str, int], queue: str | None) -> Waiting | None:
    """Held or queued, when the run is managed by Kueue and a Workload of it is not admitted
    (or Kueue has not made one yet); None: admitted, or not queued."""
    queue = queue_of(run) or queue
    if queue is None:
        return None
    workloads = run.workloads
    pending = [wl for wl in workloads if not is_true(wl, ADMITTED)]
    if workloads and not pending:
        return None
    gate = gate_of(run)
    if gate is not None:
        return Waiting("held", queue, gate=gate)
    position = next((positions[wl["metadata"]["name"]] for wl in pending if wl["metadata"]["name"] in positions), None)
    return Waiting("queued", queue, position, next((r for r in map(_why, pending) if r), None))


def _why(workload: dict) -> str | None:
    """QuotaReserved False's reason and message; after an eviction, the Evicted condition's
    reason first (the job reconciler clears the reservation with the eviction's message,
    reconciler.go step 6 "handle eviction", until the scheduler writes its own)."""
    reserved = condition(workload, QUOTA_RESERVED)
    if reserved is None or reserved.get("status") != "False":
        return None
    why = f"{reserved.get('reason', '')}: {reserved.get('message', '')}".strip(": ")
    evicted = condition(workload, EVICTED)
    if evicted is not None and evicted.get("status") == "True":
        if evicted.get("message") == reserved.get("message"):
            return f"evicted ({evicted.get('reason', '')}): {evicted.get('message', '')}"
        return f"evicted ({evicted.get('reason', '')}); {why}"
    return why
