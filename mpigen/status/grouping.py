"""Which job each listed object belongs to: the one its label `mpigen.dev/job` names in its
namespace, else the one of an object that owns it (metadata.ownerReferences, by uid), followed
up the chain the controllers build: a pod is owned by its Job (Kubernetes' Job controller) or
StatefulSet, a JobSet's child Job by the JobSet (JobSet v0.12.0
pkg/controllers/jobset_controller.go `constructJob`: `ctrl.SetControllerReference`), the
Trainer's JobSet by its TrainJob (Trainer v2.3.0 pkg/runtime/framework/plugins/jobset/jobset.go
`Build`: `WithOwnerReferences(... WithController(true))`), the MPI Operator's launcher Job and
worker pods by the MPIJob (kubeflow/mpi-operator caa3c47 pkg/controller/mpi_job_controller.go
`newLauncherJob`, `newWorker`: `metav1.NewControllerRef`), and a Workload by the job Kueue
manages (Kueue v0.19.2 pkg/controller/jobframework/reconciler.go `constructWorkload`;
pkg/controller/jobs/statefulset/statefulset_reconciler.go)."""

from __future__ import annotations

from mpigen.kube.labels import JOB_LABEL
from mpigen.status.model import Seen, Wanted

Key = tuple[str, str]  # (namespace, job)


def job_of(obj: dict) -> str | None:
    """The job an object's label names."""
    return (obj.get("metadata", {}).get("labels") or {}).get(JOB_LABEL)


def owner_uids(obj: dict) -> list[str]:
    return [ref["uid"] for ref in obj.get("metadata", {}).get("ownerReferences") or [] if ref.get("uid")]


def group(wanted: list[Wanted], listed: list[dict]) -> dict[Key, Seen]:
    """Every wanted job's Seen (empty when the cluster has nothing of it), with the listed
    objects that are its own, in the order listed."""
    seen: dict[Key, Seen] = {(w.namespace, w.job): Seen() for w in wanted}
    owner: dict[int, Key] = {}      # index in `listed` -> the job it is assigned to
    by_uid: dict[str, Key] = {}     # uid of an assigned object -> its job
    for i, obj in enumerate(listed):
        key = (obj["metadata"].get("namespace", ""), job_of(obj))
        if key in seen:
            owner[i] = key
            _remember(obj, key, by_uid)
    changed = True
    while changed:  # down the chain of owners, one level per pass
        changed = False
        for i, obj in enumerate(listed):
            if i in owner:
                continue
            key = next((by_uid[uid] for uid in owner_uids(obj) if uid in by_uid), None)
            if key is not None and key[0] == obj["metadata"].get("namespace", ""):
                owner[i] = key
                _remember(obj, key, by_uid)
                changed = True
    for i in sorted(owner):
        seen[owner[i]].objects.append(listed[i])
    return seen


def _remember(obj: dict, key: Key, by_uid: dict[str, Key]) -> None:
    uid = obj["metadata"].get("uid")
    if uid:
        by_uid[uid] = key
