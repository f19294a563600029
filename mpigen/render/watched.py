"""What the alerts of one job watch: the names its target's objects make the cluster run it
under (the batch Jobs whose failure is the job's, the launcher's and the workers' pods, as
regular expressions on the names kube-state-metrics reports), its restart budget, and, filled
in by the pipeline, where it comes from and the GPUs and queue its pods take.

A target says it from the objects it rendered for the job (`Target.watched`): the pods' names
are the controllers' (a Job's pod is `<job>-<5 characters>`, an Indexed Job's
`<job>-<index>-<5 characters>`, a StatefulSet's `<set>-<ordinal>`), which mpigen knows before
anything runs. Prometheus anchors every regular expression of a label matcher at both ends.

A job runs in steps, in the order its controller creates them (`steps`): a JobSet creates a
replicated job only once the one it `dependsOn` reached its status (JobSet v0.12.0
pkg/controllers/jobset_controller.go `reconcileReplicatedJobs`, `dependencyReachedStatus`), so
that a queued jobset job has only its first step's Job and an image that cannot be pulled stops
the job at the step that needs it; the alerts watch every step. The blueprint's `state` says
whether the job is meant to run: a job stopped (`completed`) or held on purpose is quiet."""

from __future__ import annotations

from typing import NamedTuple

from mpigen.compile.mpijob import WORKER, MPIJob
from mpigen.kube.accelerators import is_accelerator
from mpigen.kube.labels import KUEUE_QUEUE_LABEL
from mpigen.kube.quantity import parse

# The random suffix of a pod a Job makes (generateName): Kubernetes' utilrand alphabet is a subset.
POD_SUFFIX = "[a-z0-9]{5}"
# DCGM's exporter reports the GPUs of this resource (NVIDIA/dcgm-exporter, docs/monitoring.md).
DCGM_RESOURCE = "nvidia.com/gpu"


class Step(NamedTuple):
    """One step of a job: the role its controller runs (a JobSet's replicated job, the static
    workers' StatefulSet, a launcher Job), its pods and its batch Jobs (kube_job_* job_name; None:
    none, a StatefulSet's or a bare pod)."""

    name: str
    pods: str
    jobs: str | None = None


class Watched(NamedTuple):
    """One job as its alerts see it. The target's part first, then the pipeline's."""

    kind: str                 # the kind of the object the job is (Job for a bare launcher, JobSet, TrainJob, MPIJob)
    name: str                 # its name (the run's, under a GitOps profile)
    launcher_pods: str        # the launcher's pod names (regex)
    worker_pods: str          # the workers' pod names (regex)
    launcher_jobs: str | None = None  # the batch Jobs (kube_job_* job_name, regex) that run the launcher
    restart_budget: int | None = None  # the launcher Job's backoffLimit, or the JobSet's maxRestarts
    replicated_set: str | None = None  # the JobSet its controller counts (jobset_*_total{jobset_name}), if one runs it
    steps: tuple[Step, ...] = ()  # every step, in the order the controller creates them
    restarts_counted: bool = False  # the launcher's containers restart in place (restartPolicy OnFailure) and
    #                                 the Job controller counts those restarts against backoffLimit
    namespace: str = ""
    job: str = ""             # the blueprint's metadata.name
    blueprint: str = ""       # the blueprint's file
    workers: int = 0          # worker pods
    gpus: int = 0             # accelerators per worker pod
    dcgm: bool = False        # they are NVIDIA GPUs, which DCGM's exporter reports
    accelerator: str = ""     # the accelerators' resource name (nvidia.com/gpu), "" without any
    queue: str | None = None  # the Kueue LocalQueue the job waits in
    state: str = "running"    # the blueprint's spec.state: any other is a job not meant to run now
    target: str = ""          # the target it renders with (its environment's, or a target rule's)


def running(watched: Watched) -> bool:
    """The blueprint means the job to run (spec.state running): the alerts of a job that should
    be running apply to it."""
    return watched.state == "running"


def every_pod(watched: Watched) -> str:
    """The pods of every step."""
    return "|".join(step.pods for step in watched.steps)


def every_job(watched: Watched) -> str | None:
    """The batch Jobs of every step (None: the job has none)."""
    jobs = [step.jobs for step in watched.steps if step.jobs is not None]
    return "|".join(jobs) if jobs else None


def literal(name: str) -> str:
    """A Kubernetes name as a regular expression matching it alone (of its characters, only
    `.` means more)."""
    return name.replace(".", "\\.")


def job_pods(job_name: str) -> str:
    """The pods of a batch Job, Indexed or not."""
    return f"{literal(job_name)}-([0-9]+-)?{POD_SUFFIX}"


def set_pods(set_name: str) -> str:
    """The pods of a StatefulSet."""
    return f"{literal(set_name)}-[0-9]+"


def replicated_jobs(set_name: str, replicated_job: str) -> str:
    """The child Jobs of a JobSet's replicated job: `<jobset>-<replicated job>-<index>`
    (JobSet v0.12.0 pkg/util/placement/placement.go GenJobName)."""
    return f"{literal(set_name)}-{literal(replicated_job)}-[0-9]+"


def replicated_pods(set_name: str, replicated_job: str) -> str:
    """The pods of a JobSet's replicated job: its child Jobs' (Indexed)."""
    return f"{replicated_jobs(set_name, replicated_job)}-[0-9]+-{POD_SUFFIX}"


def with_job(watched: Watched, job: MPIJob, objects: list[dict], blueprint: str) -> Watched:
    """The target's part with the job's: its names, file, the accelerators of a worker pod,
    its Kueue queue (the label on any of its objects) and the blueprint's state."""
    gpus, accelerator = _accelerators(job.spec.mpiReplicaSpecs.get(WORKER))
    queue = next((obj["metadata"]["labels"][KUEUE_QUEUE_LABEL] for obj in objects
                  if KUEUE_QUEUE_LABEL in obj["metadata"].get("labels", {})), None)
    return watched._replace(namespace=job.metadata.namespace, job=job.metadata.name, blueprint=blueprint,
                            workers=job.workers, gpus=gpus, dcgm=accelerator == DCGM_RESOURCE,
                            accelerator=accelerator, queue=queue, state=job.source.state)


def _accelerators(replica) -> tuple[int, str]:
    """The accelerators a worker pod's containers are limited to, and their resource name
    (DCGM's, where any is)."""
    if replica is None:
        return 0, ""
    count, name = 0, ""
    for container in replica.template.get("spec", {}).get("containers", []):
        for resource, value in container.get("resources", {}).get("limits", {}).items():
            if is_accelerator(resource):
                count += int(parse(str(value)))
                name = resource if not name or resource == DCGM_RESOURCE else name
    return count, name
