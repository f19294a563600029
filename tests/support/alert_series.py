"""The series a cluster exports while a job goes through its states, minute by minute, as the
exporters' code makes them from the objects the controllers make (for the promtool tests of
tests/acceptance/monitoring/test_alert_states.py).

A state is the objects of one minute (`World`): the batch Jobs and pods, as the controllers make
them, and the controllers' own counters. What the controllers make, by their code:
- JobSet v0.12.0 pkg/controllers/jobset_controller.go `reconcileReplicatedJobs`: a replicated job's
  Jobs are created only once the one it `dependsOn` reached its status, suspended while the JobSet
  is (`constructJob`: `job.Spec.Suspend = ptr.To(jobsetSuspended)`); a restart deletes every child
  Job and creates them again under their names (new creation times); pkg/metrics/metrics.go
  counts jobset_failed_total / jobset_completed_total {jobset_name, namespace} from the first count;
- the Trainer's JobSet is the TrainJob's, replicated jobs node then launcher (dependsOn node Ready);
- the MPI Operator v2beta1 (shared/reference/mpi-operator.md section 4): the launcher Job created
  suspended while the MPIJob is, no worker pods then;
- the static target: the launcher Job (Kueue's webhook suspends it at creation,
  shared/reference/targets.md section 7) and the workers' StatefulSet, whose pods Kueue gates while
  queued (a gated pod is Pending with PodScheduled False, reason SchedulingGated);
- the Job controller (kubernetes pkg/controller/job/job_controller.go): a Suspended condition
  True while suspended, False once resumed; with restartPolicy OnFailure a failing container
  restarts in place (its restartCount grows, status.failed stays 0) and the Job fails once the
  active pods' restarts reach backoffLimit (`pastBackoffLimitOnFailure`); with Never a failed pod
  counts in status.failed and the Job fails past backoffLimit;
- Kueue v0.19.2 pkg/metrics/metrics.go: kueue_local_queue_pending_workloads{name, namespace, status}.

`ksm` turns a World into kube-state-metrics v2.20.0's series (internal/store/job.go, pod.go;
a pod's GPU requests are its limits, to which the API server defaults them),
each family emitted exactly when its generator emits it; `scraped` puts on the labels
Prometheus attaches through a ServiceMonitor (honorLabels off: a conflicting label of the
exporter's is kept as exported_<label>)."""

from __future__ import annotations

from dataclasses import dataclass, field

Labels = tuple[tuple[str, str], ...]
Key = tuple[str, Labels]
JOB_FAILURE_REASONS = ("BackoffLimitExceeded", "DeadlineExceeded", "Evicted")  # KSM job.go jobFailureReasons
PHASES = ("Pending", "Succeeded", "Failed", "Unknown", "Running")  # KSM pod.go, in its order
# The labels Prometheus' Kubernetes service discovery and the Prometheus Operator give every
# series of a ServiceMonitor's target (prometheus-operator pkg/prometheus/promcfg.go).
TARGET_LABELS = ("namespace", "service", "pod", "container", "endpoint", "job", "instance")
EPOCH = 1_760_000_000  # the creation times' base, in Unix seconds


@dataclass
class Job:
    name: str
    created: int                      # minute of creation
    suspended: bool | None = None     # None: no Suspended condition
    failed: int = 0                   # status.failed
    complete: bool = False
    failed_reason: str | None = None  # the Failed condition's reason, once failed


@dataclass
class Pod:
    name: str
    phase: str = "Running"
    scheduled: bool = True
    waiting: dict[str, str] = field(default_factory=dict)       # container -> waiting reason
    init_waiting: dict[str, str] = field(default_factory=dict)
    restarts: dict[str, int] = field(default_factory=dict)      # container -> restartCount
    init_restarts: dict[str, int] = field(default_factory=dict)
    created: int = 0
    gpu_util: float | None = None     # DCGM_FI_DEV_GPU_UTIL of its GPU
    gpus: dict[str, int] = field(default_factory=dict)          # container -> nvidia.com/gpu it requests
    cpu_seconds: float | None = None  # the kubelet's pod_cpu_usage_seconds_total


@dataclass
class World:
    """What one minute holds for one job."""

    jobs: list[Job] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    jobset_failed: int = 0            # the JobSet controller's counters of the job's JobSet (0: no series)
    jobset_completed: int = 0
    inadmissible: int | None = None   # Kueue's pending workloads of the job's LocalQueue, status inadmissible
    set_restarts: int | None = None   # the JobSet's status.restartsCountTowardsMax (custom resource state)
    set_all_restarts: int | None = None  # its status.restarts: every restart, counted or not


def _labels(**labels: str) -> Labels:
    return tuple(sorted(labels.items()))


def ksm(world: World, namespace: str) -> dict[Key, float]:
    """kube-state-metrics v2.20.0's series of the World's Jobs and pods (wrapJobFunc adds
    namespace and job_name, wrapPodFunc namespace, pod and uid)."""
    out: dict[Key, float] = {}
    for job in world.jobs:
        base = {"namespace": namespace, "job_name": job.name}
        out[("kube_job_created", _labels(**base))] = EPOCH + 60 * job.created
        if job.suspended is not None:
            out[("kube_job_status_suspended", _labels(**base))] = float(job.suspended)
        if job.failed == 0:
            out[("kube_job_status_failed", _labels(**base))] = 0
        elif job.failed_reason in JOB_FAILURE_REASONS:
            for reason in JOB_FAILURE_REASONS:
                out[("kube_job_status_failed", _labels(**base, reason=reason))] = float(reason == job.failed_reason)
        else:
            out[("kube_job_status_failed", _labels(**base, reason=""))] = job.failed
        for metric, holds in (("kube_job_complete", job.complete), ("kube_job_failed", job.failed_reason is not None)):
            if holds:  # addConditionMetrics: true, false, unknown of a condition with status True
                for condition in ("true", "false", "unknown"):
                    out[(metric, _labels(**base, condition=condition))] = float(condition == "true")
    for pod in world.pods:
        base = {"namespace": namespace, "pod": pod.name, "uid": f"uid-{pod.name}"}
        out[("kube_pod_created", _labels(**base))] = EPOCH + 60 * pod.created
        for phase in PHASES:
            out[("kube_pod_status_phase", _labels(**base, phase=phase))] = float(phase == pod.phase)
        if not pod.scheduled:
            out[("kube_pod_status_unschedulable", _labels(**base))] = 1
        for metric, waiting in (("kube_pod_container_status_waiting_reason", pod.waiting),
                                ("kube_pod_init_container_status_waiting_reason", pod.init_waiting)):
            for container, reason in waiting.items():
                out[(metric, _labels(**base, container=container, reason=reason))] = 1
        for container, count in pod.gpus.items():  # createPodContainerResourceRequestsFamilyGenerator
            # an extended resource: its name sanitized, unit integer, node the pod's (none unscheduled)
            node = {"node": f"node-{pod.name[-1]}"} if pod.scheduled else {}
            out[("kube_pod_container_resource_requests", _labels(**base, container=container, **node,
                                                                 resource="nvidia_com_gpu", unit="integer"))] = count
        for metric, restarts in (("kube_pod_container_status_restarts_total", pod.restarts),
                                 ("kube_pod_init_container_status_restarts_total", pod.init_restarts)):
            for container, count in restarts.items():
                out[(metric, _labels(**base, container=container))] = count
    return out


def controllers(world: World, namespace: str, jobset: str | None, queue: str | None) -> dict[Key, float]:
    """The JobSet controller's and Kueue's series, as they export them."""
    out: dict[Key, float] = {}
    for metric, count in (("jobset_failed_total", world.jobset_failed), ("jobset_completed_total",
                                                                         world.jobset_completed)):
        if jobset is not None and count:
            out[(metric, _labels(jobset_name=jobset, namespace=namespace))] = count
    if queue is not None and world.inadmissible is not None:
        out[("kueue_local_queue_pending_workloads", _labels(name=queue, namespace=namespace, status="inadmissible",
                                                            replica_role="standalone"))] = world.inadmissible
    return out


def dcgm(world: World, namespace: str) -> dict[Key, float]:
    """dcgm-exporter's GPU utilisation of each GPU of each pod (one series per GPU: a pod that
    requests none is given one), with its pod mapping on (internal/pkg/transformation/const.go:
    pod, namespace, container)."""
    return {("DCGM_FI_DEV_GPU_UTIL", _labels(gpu=str(gpu), UUID=f"GPU-{pod.name}-{gpu}", pod=pod.name,
                                             namespace=namespace, container="worker")): pod.gpu_util
            for pod in world.pods if pod.gpu_util is not None for gpu in range(max(1, sum(pod.gpus.values())))}


def kubelet(world: World, namespace: str) -> dict[Key, float]:
    return {("pod_cpu_usage_seconds_total", _labels(namespace=namespace, pod=pod.name)): pod.cpu_seconds
            for pod in world.pods if pod.cpu_seconds is not None}


def crs(world: World, namespace: str, jobset: str | None) -> dict[Key, float]:
    """The custom resource state of docs/monitoring/kube-state-metrics.yaml for the JobSet."""
    labels = _labels(customresource_group="jobset.x-k8s.io", customresource_kind="JobSet",
                     customresource_version="v1alpha2", name=jobset or "", namespace=namespace)
    out = {}
    if jobset is not None and world.set_restarts is not None:
        out[("kube_customresource_jobset_restarts_count_towards_max", labels)] = world.set_restarts
    if jobset is not None and world.set_all_restarts is not None:
        out[("kube_customresource_jobset_restarts", labels)] = world.set_all_restarts
    return out


def scraped(series: dict[Key, float], honor_labels: bool, target: dict[str, str]) -> dict[Key, float]:
    """The series as Prometheus stores them, scraped from `target` (its labels): with honorLabels
    off, an exporter's label that a target label has is kept as exported_<label>; with it on, the
    exporter's wins (Prometheus scrape/scrape.go mutateSampleLabels)."""
    out = {}
    for (metric, labels), value in series.items():
        own = dict(labels)
        if honor_labels:
            merged = {**target, **own}
        else:
            merged = {(f"exported_{k}" if k in target else k): v for k, v in own.items()}
            merged.update(target)
        out[(metric, _labels(**merged))] = value
    return out


def values(samples: list[float | None]) -> str:
    """promtool's input notation of a series' samples, a minute apart: `_` where absent; runs of
    one value as `<v>x<n>` (n + 1 samples), of absences as `_x<n>` (n samples)."""
    out, i = [], 0
    while i < len(samples):
        j = i
        while j + 1 < len(samples) and samples[j + 1] == samples[i]:
            j += 1
        run = j - i + 1
        if samples[i] is None:
            out.append("_" if run == 1 else f"_x{run}")
        else:
            value = samples[i]
            text = str(int(value)) if float(value).is_integer() else repr(float(value))
            out.append(text if run == 1 else f"{text}x{run - 1}")
        i = j + 1
    return " ".join(out)


def input_series(minutes: list[dict[Key, float]]) -> list[dict]:
    """promtool's input_series of the series each minute holds."""
    keys = sorted({key for minute in minutes for key in minute})
    series = []
    for metric, labels in keys:
        inner = ", ".join(f'{k}="{v}"' for k, v in labels)
        series.append({"series": f"{metric}{{{inner}}}", "values": values([m.get((metric, labels)) for m in minutes])})
    return series
