"""A job under Kueue, as Git sees it: what Git may hold, stop and release of a queued job, and
what Kueue writes into a job's objects once they are created, which each GitOps profile must
re-apply without undoing. Read from Kueue v0.19.2
(https://github.com/kubernetes-sigs/kueue/tree/v0.19.2).

Git's word on a queued job (spec.state with spec.scheduling.queue):

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

What Kueue writes at admission, and how each GitOps profile re-applies it:

Kueue admits a workload by merging the flavour it chose into the pod templates of the job's
object and unsuspending it, and puts the templates back when it stops the job
(kubernetes-sigs/kueue v0.19.2: pkg/podset/podset.go Merge and RestorePodSpec, called by each
integration's RunWithPodSetsInfo and RestorePodSetsInfo). Merge writes exactly five fields of
each template: its labels and annotations, nodeSelector, tolerations and schedulingGates
(ADMITTED_FIELDS). Once the job runs, the object's own rules keep them as Kueue wrote them: a
JobSet refuses any change to spec.replicatedJobs unless it is suspended or being suspended
(kubernetes-sigs/jobset v0.12.0, pkg/webhooks/jobset_webhook.go ValidateUpdate), a started
Job any change to its template (Kubernetes' Job validation), and an MPIJob takes the change,
after which Kueue no longer finds the job equal to its workload and stops it.

A GitOps controller re-applying the render as Git has it would write the templates back:
- a client-side apply of a custom resource is a JSON merge patch (no strategic merge for
  custom resources), whose lists go whole: `spec.replicatedJobs` with the templates of Git;
- a server-side apply (Argo CD and Flux both force conflicts) puts back an atomic map or list
  whole: a nodeSelector or tolerations of the blueprint's own, without the flavour's.

So, for every object Kueue admits (the kind's `admission` fact, mpigen.render.kinds):
- argocd: its Application ignores the admitted fields (ignoreDifferences with `ignored_paths`,
  RespectIgnoreDifferences=true: Argo CD neither diffs them nor applies them, it copies their
  live values into what it applies: argo-cd v3.5, controller/sync.go normalizeTargetResources),
  and a custom resource is applied server-side, so that an apply sends the fields Git has and
  not a list whose unchanged entries the API server must compare whole;
- flux: Flux has no ignore rule, so a running object carries `ssa: IfNotPresent` (Flux creates
  it and then leaves it: fluxcd/kustomize-controller's "resources later mutated by other
  controllers"); a suspended one (`completed`) carries none, so that Git's suspend applies: a
  JobSet being suspended may change its templates, and Kueue restores its own fields as it
  stops the job.
"""

from __future__ import annotations

from mpigen.compile.mpijob import MPIJob
from mpigen.errors import Diagnostic, error, warning
from mpigen.formats.blueprint import Blueprint
from mpigen.kube.labels import (ARGOCD_SYNC_OPTIONS, FLUX_SSA, JOB_LABEL, KUEUE_ADMISSION_GATED_BY_ANNOTATION,
                                KUEUE_QUEUE_LABEL, MPIGEN_PREFIX)
from mpigen.kube.values import get
from mpigen.load.document import Document
from mpigen.render.kinds import Admission
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


# pkg/podset/podset.go (kueue v0.19.2) Merge: the fields of a pod template it writes.
ADMITTED_FIELDS = ("metadata.labels", "metadata.annotations", "spec.nodeSelector", "spec.tolerations",
                   "spec.schedulingGates")
SERVER_SIDE_APPLY = "ServerSideApply=true"


def ignored_paths(admission: Admission) -> tuple[str, ...]:
    """The jq paths of every field Kueue writes into the object (Argo CD's jqPathExpressions)."""
    return tuple(f"{template}.{field}" for template in admission.templates for field in ADMITTED_FIELDS)


def suspended(obj: dict, admission: Admission) -> bool:
    """Whether the object, as written, is suspended (Kueue's IsSuspended)."""
    return get(obj, *admission.suspend) is True


def reapplied_safely(obj: dict, admission: Admission, gitops: str) -> None:
    """The annotations that keep the profile's controller from undoing Kueue's admission."""
    annotations = obj["metadata"].setdefault("annotations", {})
    if gitops == "argocd" and admission.merge_patch:
        options = [o for o in annotations.get(ARGOCD_SYNC_OPTIONS, "").split(",") if o]
        if SERVER_SIDE_APPLY not in options:
            annotations[ARGOCD_SYNC_OPTIONS] = ",".join([*options, SERVER_SIDE_APPLY])
    elif gitops == "flux" and not suspended(obj, admission):
        annotations[FLUX_SSA] = "IfNotPresent"
    if not annotations:
        del obj["metadata"]["annotations"]
