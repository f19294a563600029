"""A queued job's life in Git (spec.state with spec.scheduling.queue): what Kueue lets Git
hold, stop and release, read from Kueue v0.19.2
(https://github.com/kubernetes-sigs/kueue/tree/v0.19.2).

- Stop. Kueue owns the suspend of a job it manages: its webhooks suspend a job with a queue
  label on creation (pkg/controller/jobframework/defaults.go ApplyDefaultForSuspend), and its
  reconciler resumes a suspended job whose Workload is admitted
  (pkg/controller/jobframework/reconciler.go ReconcileGenericJob step 7, "Job admitted,
  unsuspending"), so a `suspend: true` from Git stops nothing: every re-apply suspends the job
  (its pods deleted) and Kueue resumes it (the run starts over). The queue label cannot be
  dropped from a running job (validation.go validateUpdateForQueueName), and a job without one
  would be ignored while its admitted Workload kept the quota (reconciler.go, "queue-name label
  is not set, ignoring the job"). Deleting the job is what Kueue honours: its Workload is owned
  by the job, the finalize path (reconciler.go finalize, finalizeWorkloads) drops the
  Workload's finalizer and the garbage collector deletes it, releasing the quota. So a queued
  job that is `completed` renders none of its objects, as `archived` does, and the GitOps
  controller prunes them; nothing in Git names the Workload (its name hashes the job's UID).
- Hold. The annotation kueue.x-k8s.io/admission-gated-by (beta and on since v0.19:
  pkg/features/kube_features.go AdmissionGatedBy) keeps a job's Workload from being admitted
  while it is non-empty (pkg/workload/workload.go HasAdmissionGate, IsAdmissible); Kueue takes
  it only at creation and lets it be removed, never added
  (pkg/util/webhook/validation_admissiongatedby.go): `held` writes it on the object Kueue
  manages, `running` leaves it out, and the reconciler copies its removal to the Workload
  (reconciler.go UpdateAdmissionGatedBy), which is then admitted. Its value is a list of
  domain-prefixed paths of at most 63 characters (validateAdmissionGatedByAnnotationFormat).
"""

from __future__ import annotations

from mpigen.compile.mpijob import MPIJob
from mpigen.errors import Diagnostic, error, warning
from mpigen.formats.blueprint import Blueprint
from mpigen.kube.labels import JOB_LABEL, KUEUE_ADMISSION_GATED_BY_ANNOTATION, KUEUE_QUEUE_LABEL, MPIGEN_PREFIX
from mpigen.load.document import Document
from mpigen.render.target import Lifecycle

HELD_GATE = MPIGEN_PREFIX + "held"  # the controller named in the gate: Git, through mpigen
STATE = ("spec", "state")


def renders_nothing(job: MPIJob, lifecycle: Lifecycle) -> bool:
    """An archived job, and a queued job that is completed: deleting its objects is the one
    stop Kueue honours (the module's docstring)."""
    return lifecycle.state == "archived" or (lifecycle.state == "completed" and job.extensions.queue is not None)


def hold(objects: list[dict]) -> None:
    """The admission gate on each object Kueue manages (the one with the queue label)."""
    for obj in objects:
        if KUEUE_QUEUE_LABEL in obj["metadata"].get("labels", {}):
            obj["metadata"].setdefault("annotations", {})[KUEUE_ADMISSION_GATED_BY_ANNOTATION] = HELD_GATE


def lifecycle_checks(doc: Document, blueprint: Blueprint, gitops: str) -> list[Diagnostic]:
    """`held` without a queue (nothing would hold the job), and a queued job `completed`
    without a GitOps profile (nothing prunes what the render no longer has)."""
    spec = blueprint.spec
    queue = spec.scheduling.queue
    if spec.state == "held" and queue is None:
        return [error(doc.value_mark(STATE),
                      "spec.state: held keeps a job in its Kueue queue, unadmitted (the annotation "
                      "kueue.x-k8s.io/admission-gated-by, which only Kueue reads); this job has no "
                      "spec.scheduling.queue, so it would start at once; set spec.scheduling.queue, or keep the job "
                      "out of the cluster with spec.state: archived")]
    if spec.state == "completed" and queue is not None and gitops == "none":
        name, namespace = blueprint.metadata.name, blueprint.metadata.namespace or "<namespace>"
        return [warning(doc.value_mark(STATE),
                        "spec.state: completed on a queued job renders none of its objects: Kueue resumes a "
                        "suspended job whose Workload is admitted, so only deleting the job stops it and releases "
                        "its quota; without a GitOps profile nothing prunes them: delete the job yourself (its "
                        "Workload goes with it), e.g. kubectl delete jobsets,mpijobs,trainjobs,statefulsets,jobs "
                        f"-n {namespace} -l {JOB_LABEL}={name}")]
    return []
