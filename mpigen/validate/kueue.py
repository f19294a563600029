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

And the values of Kueue's labels that its job webhook refuses on create (kubernetes-sigs/kueue
at 0326037, pkg/controller/jobframework/validation.go ValidateJobOnCreate), written in
`metadata.labels` (which reach the job objects) rather than through `spec.scheduling`:
- ValidateQueueName -> ValidateLabelAsCRDName, ValidateAnnotationAsCRDName: the queue-name
  label (and annotation) a DNS-1123 subdomain (IsDNS1123Subdomain: at most 253 characters);
- validateCreateForMaxExecTime: the max-exec-time-seconds label an integer strconv.Atoi reads
  (an optional sign and decimal digits, within int64) and above 0 ("should be greater than 0").
"""

from __future__ import annotations

from mpigen.errors import Diagnostic, error
import re

from mpigen.kube.labels import KUEUE_ELASTIC_JOB_ANNOTATION, KUEUE_MAX_EXEC_TIME_LABEL, KUEUE_PREBUILT_WORKLOAD, KUEUE_QUEUE_LABEL
from mpigen.kube.names import is_dns1123_subdomain
from mpigen.load.document import field_path
from mpigen.validate.fields import Fields

SCHEDULING = ("spec", "scheduling")
_ATOI = re.compile(r"^[+-]?[0-9]+$")  # strconv.Atoi, base 10
INT64_MAX = 2**63 - 1
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


def check_kueue_values(f: Fields, out: list[Diagnostic]) -> None:
    """The queue-name label or annotation and the max-exec-time-seconds label written in the
    objects' metadata, each at its value, where Kueue's job webhook would refuse the job."""
    for where in ("labels", "annotations"):
        loc = ("metadata", where, KUEUE_QUEUE_LABEL)
        value = f.get(loc) if f.ok(("metadata", where)) and isinstance(f.get(("metadata", where)), dict) else None
        if isinstance(value, str) and not is_dns1123_subdomain(value):
            out.append(error(f.doc.value_mark(loc), f"{field_path(loc)}: {value!r} is no queue name: Kueue's webhook "
                                                    "refuses the job (ValidateQueueName: a LocalQueue's name is a "
                                                    "DNS-1123 subdomain, at most 253 lowercase letters, digits, '-' "
                                                    "and '.'); give the LocalQueue's name, or better "
                                                    "spec.scheduling.queue, which is checked as one"))
    loc = ("metadata", "labels", KUEUE_MAX_EXEC_TIME_LABEL)
    value = f.get(loc) if f.ok(("metadata", "labels")) and isinstance(f.get(("metadata", "labels")), dict) else None
    if isinstance(value, str) and max_exec_time_problem(value):
        out.append(error(f.doc.value_mark(loc), f"{field_path(loc)}: {value!r} {max_exec_time_problem(value)}: "
                                                "Kueue's webhook refuses the job (validateCreateForMaxExecTime); give "
                                                "the job's longest run in seconds, a whole number above 0"))


def max_exec_time_problem(value: str) -> str | None:
    """What validateCreateForMaxExecTime says of a max-exec-time-seconds value (None: it takes it)."""
    if not _ATOI.fullmatch(value) or not -INT64_MAX - 1 <= int(value) <= INT64_MAX:
        return "is not an integer (strconv.Atoi)"
    if int(value) <= 0:
        return "is not greater than 0"
    return None
