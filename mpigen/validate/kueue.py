"""Kueue's fields against each other: the priority class, the topology request and
MultiKueue mean nothing to a job that no queue admits (Kueue ignores the workload). And the
keys of Kueue's that a blueprint cannot give the objects mpigen writes (kubernetes-sigs/kueue
v0.19.2), wherever it writes labels and annotations (the objects' metadata, each role's pod
template patch):

- `kueue.x-k8s.io/elastic-job`: the reconciler follows its workload-slice path for any kind
  that carries it (pkg/controller/jobframework/reconciler.go WorkloadSliceEnabled,
  pkg/workloadslicing/workloadslicing.go Enabled), but only the batch Job and Ray
  integrations can scale a running job by slices, and mpigen's hostfile and world size are
  fixed at render;
- `kueue.x-k8s.io/prebuilt-workload-name` (a label or an annotation,
  pkg/controller/constants/constants.go): Kueue then creates no Workload and waits for one of
  that name (reconciler.go ensureOneWorkload, ErrPrebuiltWorkloadNotFound), which mpigen never
  writes; one a user keeps in Git is made controlled by the first job that names it
  (EnsurePrebuiltWorkloadOwnership: an owner reference to that job's UID), and every later
  object, a new run under a GitOps profile among them, is ignored ("already controlled by
  another object"): the job is never admitted. Kueue names the Workloads it makes itself after
  the job's UID (jobframework/workload_names.go getHash), so no name given in Git is one.
"""

from __future__ import annotations

from mpigen.errors import Diagnostic, error
from mpigen.kube.labels import KUEUE_ELASTIC_JOB_ANNOTATION, KUEUE_PREBUILT_WORKLOAD
from mpigen.load.document import field_path
from mpigen.validate.fields import Fields

SCHEDULING = ("spec", "scheduling")
QUEUED = {"priorityClass": "the label kueue.x-k8s.io/priority-class is read only for a queued workload",
          "topology": "Kueue places only the pods it admits",
          "multiKueue": "only a queue's ClusterQueue can dispatch the job to a worker cluster"}
# Where a blueprint writes labels and annotations: every object, and each role's pods.
METADATA = (("metadata",), *(("spec", "podTemplatePatch", role, "metadata") for role in ("launcher", "worker")))
REFUSED_KEYS = {
    KUEUE_ELASTIC_JOB_ANNOTATION: "Kueue scales a running job by workload slices only for a batch Job and Ray's "
                                  "kinds (v0.19.2 pkg/workloadslicing), and an MPI job's hostfile and world size "
                                  "are fixed at render; remove it (change spec.workers in Git instead)",
    KUEUE_PREBUILT_WORKLOAD: "Kueue then waits for a Workload of that name instead of making one, and a Workload "
                             "kept in Git is claimed by the first job that names it (an owner reference to its "
                             "UID), so a later run, a new object under a GitOps profile, is never admitted; "
                             "remove it and give spec.scheduling.queue: Kueue makes the job's Workload itself",
}


def check_kueue(f: Fields, out: list[Diagnostic]) -> None:
    if not f.ok(SCHEDULING) or not isinstance(f.get(SCHEDULING), dict):
        return
    scheduling = f.get(SCHEDULING)
    if scheduling.get("queue") is not None:
        return
    for key, reason in QUEUED.items():
        if scheduling.get(key) not in (None, False):
            out.append(error(f.doc.key_mark(SCHEDULING + (key,)),
                             f"spec.scheduling.{key} needs spec.scheduling.queue (a Kueue LocalQueue): {reason}"))


def check_kueue_keys(f: Fields, out: list[Diagnostic]) -> None:
    """Kueue's elastic-job and prebuilt-workload-name keys, as a label or an annotation of the
    objects or of a role's pods, each at its key."""
    for base in METADATA:
        for where in ("labels", "annotations"):
            loc = base + (where,)
            if not f.ok(loc) or not isinstance(f.get(loc), dict):
                continue
            for key in f.get(loc):
                if key in REFUSED_KEYS:
                    out.append(error(f.doc.key_mark(loc + (key,)), f"{field_path(loc)}: {key}: {REFUSED_KEYS[key]}"))
