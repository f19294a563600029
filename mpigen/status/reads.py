"""What `mpigen status` lists from the API server for the targets of an environment: one list
call per kind and namespace, the kinds a job's objects are of (by the label `mpigen.dev/job`,
which mpigen writes on every object it renders and on its pod templates) and the kinds the
controllers create for them that carry no such label (listed whole and assigned to jobs by
their ownerReferences, mpigen.status.grouping):

- a JobSet's child Jobs carry the labels of the replicated job's Job template, which mpigen
  leaves bare (JobSet v0.12.0 pkg/controllers/jobset_controller.go `constructJob`,
  `labelAndAnnotateObject`: the template's labels plus jobset.sigs.k8s.io/*); the Trainer's
  JobSet carries the runtime's labels, not the TrainJob's (Trainer v2.3.0
  pkg/runtime/framework/plugins/jobset/jobset.go `Build`: `WithLabels(info.Labels)`);
- the MPI Operator's launcher Job and worker pods carry the operator's labels and the
  Launcher and Worker templates', which mpigen's mpijob target leaves without its own
  (kubeflow/mpi-operator caa3c47 pkg/controller/mpi_job_controller.go `newLauncherJob`,
  `newWorker`; golden/mpijob-v2beta1);
- Kueue's Workloads carry none of the job's labels and are owned by the job
  (Kueue v0.19.2 pkg/controller/jobframework/reconciler.go `constructWorkload`:
  `SetControllerReference`; a StatefulSet's pod-group Workload by the StatefulSet,
  pkg/controller/jobs/statefulset/statefulset_reconciler.go `SetOwnerReference`).
"""

from __future__ import annotations

from typing import NamedTuple

TOP_KINDS = {"static": "Job", "mpijob": "MPIJob", "jobset": "JobSet", "trainjob": "TrainJob"}


class Read(NamedTuple):
    """One list call per namespace: the kind, where it is served, and whether the call selects
    the job label (`labelled`: `-l mpigen.dev/job` with the namespace's jobs) or lists every
    object of the kind (owned objects without the label)."""

    api_version: str
    kind: str
    plural: str
    namespaced: bool
    labelled: bool


JOB = Read("batch/v1", "Job", "jobs", True, True)  # the static launcher
POD = Read("v1", "Pod", "pods", True, True)        # labelled from the templates mpigen writes
STATEFUL_SET = Read("apps/v1", "StatefulSet", "statefulsets", True, True)
JOB_SET = Read("jobset.x-k8s.io/v1alpha2", "JobSet", "jobsets", True, True)
TRAIN_JOB = Read("trainer.kubeflow.org/v1alpha1", "TrainJob", "trainjobs", True, True)
# Kueue's Workload at v1beta2: served, and the storage version, at v0.17.0 through v0.19.2,
# v0.20.0-devel and main (config/components/crd/bases/kueue.x-k8s.io_workloads.yaml: v1beta1
# served, deprecated, storage false; v1beta2 served, storage true).
WORKLOAD = Read("kueue.x-k8s.io/v1beta2", "Workload", "workloads", True, False)
OWNED_JOB = JOB._replace(labelled=False)    # a JobSet's child Jobs, the MPI Operator's launcher
OWNED_POD = POD._replace(labelled=False)    # the MPI Operator's pods
OWNED_JOB_SET = JOB_SET._replace(labelled=False)  # the Trainer's JobSet

# The kinds each target's jobs are made of, in the order their controllers create them.
TARGET_READS = {
    "static": (STATEFUL_SET, JOB, POD),
    "jobset": (JOB_SET, OWNED_JOB, POD),
    "trainjob": (TRAIN_JOB, OWNED_JOB_SET, OWNED_JOB, POD),
}
MPIJOB_PLURAL = "mpijobs"


def mpijob_read(api_version: str) -> Read:
    """The MPIJob under the API the mpijob target writes (kubeflow.org/v2beta1, or the
    training-operator's kubeflow.org/v1)."""
    return Read(api_version, "MPIJob", MPIJOB_PLURAL, True, True)


def reads(targets: set[str], mpijob_api: str = "kubeflow.org/v2beta1", queued: bool = True) -> list[Read]:
    """The list calls for jobs of these targets (each kind once, unlabelled when any target
    needs it whole), and Kueue's Workloads when a job is queued."""
    wanted: list[Read] = []
    for target in sorted(targets):
        kinds = (mpijob_read(mpijob_api), OWNED_JOB, OWNED_POD) if target == "mpijob" else TARGET_READS[target]
        wanted.extend(kinds)
    if queued:
        wanted.append(WORKLOAD)
    merged: dict[str, Read] = {}
    for read in wanted:
        known = merged.get(read.kind)
        merged[read.kind] = read if known is None else known._replace(labelled=known.labelled and read.labelled)
    return list(merged.values())


# Every kind a job may be made of (the command's default: an environment of any target).
READS = reads(set(TOP_KINDS))
