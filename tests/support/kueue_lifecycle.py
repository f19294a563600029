"""A namespace under Kueue, step by step as Kueue's code takes a job through its life, for the
objects a render gives: created, queued, held, admitted, resumed, stopped, deleted. Every
step is ported from kubernetes-sigs/kueue v0.19.2 (commit 8eab6877; "KQ" below), with the
file and line of the code it follows; the job kinds' own controllers are reduced to what
Kueue reads of them (the pods exist while the job is not suspended), and the GitOps appliers
to what decides a stop: which objects they create, update or prune
(tests.support.gitops_appliers).

- The job webhooks' create defaulting (KQ pkg/controller/jobs/jobset/jobset_webhook.go:84,
  mpijob/mpijob_webhook.go:100, trainjob/trainjob_webhook.go:80-101): a job with the label
  kueue.x-k8s.io/queue-name is suspended (jobframework/utils.go:131-158
  WorkloadShouldBeSuspended: "Jobs with queue names ... are default suspended"); the create
  validation checks the admission gate's format (jobframework/validation.go:81-93
  ValidateJobOnCreate, util/webhook/validation_admissiongatedby.go:36-43, 92-128).
- The update validation (jobframework/validation.go:107-119 ValidateJobOnUpdate): the queue
  name is immutable while the job is not suspended (validation.go:180-190
  validateUpdateForQueueName); an admission gate is never added, only removed
  (validation_admissiongatedby.go:45-89).
- The reconciler (jobframework/reconciler.go ReconcileGenericJob, 297-691):
  a job that is gone is finalized (loadJob 677-690, finalize 693-710, finalizeWorkloads
  732-745: the Workload's finalizer goes, and the garbage collector deletes the Workload
  its owner reference ties to the deleted job, reconciler.go:1630 SetControllerReference);
  a job without the queue label is ignored (364-368, manageJobsWithoutQueueName false, the
  default); step 1 finds the job's Workload (409; ensureOneWorkload 980) and copies the job's
  admission gate to it (1135-1140, UpdateAdmissionGatedBy 1154-1172,
  PropagateAdmissionGatedByAnnotation 1185-1212); step 1.1 stops the job of a Workload being
  deleted (450-461); step 3 creates the Workload of a job that has none (507-522,
  handleJobWithNoWorkload 1795; the gate copied as it is built, prepareWorkload 1697-1700); step 7 resumes a suspended job whose Workload is
  admitted ("Job admitted, unsuspending", 621-651); step 8 suspends a running job whose
  Workload is not admitted (653-668).
- The scheduler admits a Workload that is admissible (pkg/workload/workload.go:1249-1252
  IsAdmissible: no admission gate, HasAdmissionGate 1255-1265; active; no quota yet) when its
  ClusterQueue has room (`quota`: how many of the namespace's jobs fit at once).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
GATE = "kueue.x-k8s.io/admission-gated-by"
# The field each kind's IsSuspended reads (KQ jobs/jobset/jobset_controller.go:90,
# mpijob/mpijob_controller.go:88-90, trainjob/trainjob_controller.go:116-118).
SUSPEND = {"JobSet": ("spec", "suspend"), "MPIJob": ("spec", "runPolicy", "suspend"), "TrainJob": ("spec", "suspend")}
# What each job controller writes while the job is suspended (docs/gitops.md, "Stopped runs":
# JobSet v0.12.0 suspendJobs, Trainer v2.3.0 setSuspendedCondition, MPI Operator updateMPIJobStatus).
SUSPENDED_CONDITIONS = {
    "JobSet": [{"type": "Suspended", "status": "True", "reason": "SuspendedJobs", "message": "jobset is suspended"}],
    "TrainJob": [{"type": "Suspended", "status": "True", "reason": "Suspended", "message": "TrainJob is suspended"}],
    "MPIJob": [{"type": "Suspended", "status": "True", "reason": "MPIJobSuspended", "message": "MPIJob suspended"},
               {"type": "Running", "status": "False", "reason": "MPIJobSuspended", "message": "MPIJob suspended"}],
}
# k8s.io/apimachinery validation.IsDomainPrefixedPath, as validation_admissiongatedby.go:121 calls it.
DOMAIN_PREFIXED_PATH = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$")


class Refused(Exception):
    """The API server refused a request: Kueue's validating webhook said why."""


def _csv(value: str) -> list[str]:
    """KQ pkg/util/csv Parse: comma-separated, each trimmed."""
    return [part.strip() for part in value.split(",")]


def gate_format_errors(value: str) -> list[str]:
    """validation_admissiongatedby.go:92-128 validateAdmissionGatedByAnnotationFormat."""
    errors, seen = [], set()
    for gate in (_csv(value) if value else []):
        if not gate:
            errors.append("cannot contain empty gate names")
        elif gate in seen:
            errors.append(f"duplicate gate name: {gate}")
        else:
            seen.add(gate)
            if not DOMAIN_PREFIXED_PATH.match(gate):
                errors.append(f"{gate}: must be a domain-prefixed path")
            if len(gate) > 63:
                errors.append(f"{gate}: longer than 63")
    return errors


def gate_update_errors(old: str, new: str) -> list[str]:
    """validation_admissiongatedby.go:45-89 ValidateAdmissionGatedByAnnotationOnUpdate
    (absent and empty are both "")."""
    errors = []
    if not old and new:
        errors.append("cannot add admission gate after creation")
    if old and new and any(gate not in _csv(old) for gate in _csv(new)):
        errors.append("can only remove gates, not add new ones")
    return errors + gate_format_errors(new)


def _get(obj: dict, path: tuple[str, ...]):
    for key in path:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


def _meta(obj: dict, where: str) -> dict:
    return obj["metadata"].get(where) or {}


@dataclass
class Workload:
    """The job's Workload: owned by the job (controller reference), with Kueue's finalizer."""

    owner_uid: int
    gate: str = ""
    admitted: bool = False
    deleting: bool = False


@dataclass
class Namespace:
    """The objects of one namespace, what Kueue keeps for each job, and what happened to pods."""

    quota: int = 1
    objects: dict = field(default_factory=dict)  # (kind, name) -> the stored object
    workloads: dict = field(default_factory=dict)  # (kind, name) of the owner -> Workload
    pods: dict = field(default_factory=dict)  # (kind, name) -> whether its pods run
    started: int = 0  # pods created for a job (a run started, or started over)
    stopped: int = 0  # pods deleted by a suspend or a deletion
    uids: int = 0

    # --- the API server with Kueue's webhooks -------------------------------------------
    def create(self, obj: dict) -> None:
        obj = copy.deepcopy(obj)
        kind = obj["kind"]
        if kind in SUSPEND and _meta(obj, "labels").get(QUEUE_LABEL):  # WorkloadShouldBeSuspended
            self._set_suspend(obj, True)
        if kind in SUSPEND:
            errors = gate_format_errors(_meta(obj, "annotations").get(GATE, ""))  # ValidateJobOnCreate
            if errors:
                raise Refused("; ".join(errors))
        self.uids += 1
        obj["metadata"]["uid"] = self.uids
        self.objects[(kind, obj["metadata"]["name"])] = obj

    def update(self, new: dict) -> None:
        key = (new["kind"], new["metadata"]["name"])
        old = self.objects[key]
        if new["kind"] in SUSPEND:
            errors = gate_update_errors(_meta(old, "annotations").get(GATE, ""), _meta(new, "annotations").get(GATE, ""))
            if not self.suspended(new) and _meta(old, "labels").get(QUEUE_LABEL) != _meta(new, "labels").get(QUEUE_LABEL):
                errors.append("metadata.labels[kueue.x-k8s.io/queue-name]: field is immutable")
            if errors:
                raise Refused("; ".join(errors))
        self.objects[key] = new

    def delete(self, key: tuple[str, str]) -> None:
        self.objects.pop(key, None)

    # --- Kueue --------------------------------------------------------------------------
    @staticmethod
    def suspended(obj: dict) -> bool:
        return _get(obj, SUSPEND[obj["kind"]]) is True

    @staticmethod
    def _set_suspend(obj: dict, value: bool) -> None:
        *parents, last = SUSPEND[obj["kind"]]
        target = obj
        for key in parents:
            target = target.setdefault(key, {})
        target[last] = value

    def reconcile(self, key: tuple[str, str]) -> None:
        """ReconcileGenericJob for one job."""
        job = self.objects.get(key)
        if job is None:  # loadJob: not found -> finalize: the Workload's finalizer goes, the GC deletes it
            self.workloads.pop(key, None)
            return
        if not _meta(job, "labels").get(QUEUE_LABEL):  # 364-368: ignored
            return
        wl = self.workloads.get(key)
        if wl is not None and wl.owner_uid != job["metadata"]["uid"]:
            self.workloads.pop(key)  # another object's of that name: the GC deletes it
            wl = None
        if wl is not None:  # step 1: ensureOneWorkload -> UpdateAdmissionGatedBy
            wl.gate = _meta(job, "annotations").get(GATE, "")
        if wl is not None and wl.deleting:  # step 1.1
            self._set_suspend(job, True)
            self.workloads.pop(key)
            return
        if wl is None:  # step 3: handleJobWithNoWorkload
            self.workloads[key] = Workload(job["metadata"]["uid"], _meta(job, "annotations").get(GATE, ""))
            return
        if self.suspended(job):  # step 7
            if wl.admitted:
                self._set_suspend(job, False)  # "Job admitted, unsuspending"
            return
        if not wl.admitted:  # step 8
            self._set_suspend(job, True)

    def schedule(self) -> None:
        """Admit each admissible Workload (IsAdmissible) while the quota has room."""
        for wl in self.workloads.values():
            used = sum(1 for w in self.workloads.values() if w.admitted)
            if not wl.admitted and not wl.gate and not wl.deleting and used < self.quota:
                wl.admitted = True

    # --- the job kinds' controllers ---------------------------------------------------
    def run_pods(self, key: tuple[str, str]) -> None:
        """A job that is not suspended has its pods; a suspended or deleted one has none."""
        job = self.objects.get(key)
        running = job is not None and not self.suspended(job)
        if running and not self.pods.get(key):
            self.started += 1
        if not running and self.pods.get(key):
            self.stopped += 1
        self.pods[key] = running
        if job is not None:
            job["status"] = {"conditions": [] if running else copy.deepcopy(SUSPENDED_CONDITIONS[job["kind"]])}

    def settle(self) -> None:
        """Every controller acts until nothing changes (a few rounds do)."""
        for _ in range(6):
            for key in sorted(set(self.objects) | set(self.workloads) | set(self.pods)):
                if key[0] in SUSPEND:
                    self.reconcile(key)
            self.schedule()
            for key in sorted(set(self.objects) | set(self.pods)):
                if key[0] in SUSPEND:
                    self.run_pods(key)

    # --- what a test reads ------------------------------------------------------------
    def jobs(self) -> list[dict]:
        return [obj for (kind, _), obj in sorted(self.objects.items()) if kind in SUSPEND]

    def quota_used(self) -> int:
        return sum(1 for wl in self.workloads.values() if wl.admitted)
