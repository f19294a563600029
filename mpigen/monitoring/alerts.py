"""The alerts of one job: Prometheus alerting rules written for its exact object and pod names,
from series that exist without mpigen (docs/monitoring.md section 3 cites each metric, its
labels and when it exists):

- kube-state-metrics v2.20.0 internal/store/job.go: kube_job_created, kube_job_complete and
  kube_job_failed {condition} (only once the Job has that condition), kube_job_status_suspended
  (only once the Job has a Suspended condition: 1 while suspended, 0 once resumed),
  kube_job_status_failed (no reason label while no pod failed; reason="" with the count of failed
  pods until the Job gets its Failed condition, then one 0/1 series per known reason), all
  {namespace, job_name}; internal/store/pod.go: kube_pod_created, kube_pod_status_phase {phase}
  (one series per phase, 1 for the pod's), kube_pod_status_unschedulable (only while PodScheduled
  is False), kube_pod_container_status_waiting_reason and kube_pod_init_container_status_waiting_reason
  {container, reason} (only while the container waits), kube_pod_container_status_restarts_total
  and kube_pod_init_container_status_restarts_total {container}, all {namespace, pod, uid};
- the JobSet controller v0.12.0 (pkg/metrics/metrics.go): jobset_failed_total and
  jobset_completed_total {jobset_name, namespace}, from the first count on;
- Kueue v0.19.2 (pkg/metrics/metrics.go): kueue_local_queue_pending_workloads{name, namespace, status};
- NVIDIA's dcgm-exporter 4.5.3-4.8.2 (etc/default-counters.csv): DCGM_FI_DEV_GPU_UTIL{namespace, pod};
- the kubelet's resource metrics (kubernetes/kubernetes pkg/kubelet/metrics/collectors/resource_metrics.go,
  STABLE): pod_cpu_usage_seconds_total{namespace, pod};
- kube-state-metrics' custom resource state, configured by docs/monitoring/kube-state-metrics.yaml:
  kube_customresource_jobset_restarts and kube_customresource_jobset_restarts_count_towards_max
  {namespace, name}.

The JobSet controller's, Kueue's and DCGM's series come through those projects' own
ServiceMonitors, which leave `honorLabels` off: Prometheus then gives the series the scraped
target's `namespace` (and `pod`, `container`) and keeps the exporter's as `exported_namespace`
(`exported_pod`); each selector of theirs reads both shapes (`_scraped`), so that the alerts work
with honorLabels on or off. kube-state-metrics and the kubelet are scraped with honorLabels on
(kube-prometheus-stack's ServiceMonitors of them), their labels as they export them.

Every expression is one series per job, labelled only by its namespace, so that an alert's `for`
runs from the moment its condition begins to when it ends, whatever changes meanwhile; what
changes (why a job does not run) is an annotation, computed when the alert is sent (`reason_query`)."""

from __future__ import annotations

import re

from mpigen.render.watched import Watched, every_job, every_pod, running

RESTART_WINDOW = "1h"  # how far back a restart counts as recent
GPU_IDLE_PERCENT = 5  # below this average utilisation, a worker's GPUs are idle
CPU_IDLE_CORES = 0.1  # below this, a worker runs no rank (a rank busy-waits on a core; sshd alone sleeps)
HELD_FOR = "15m"  # how long a finished job's workers may keep their GPUs (the scale-down takes seconds)
# kube-state-metrics' custom resource state series of a JobSet's status.restartsCountTowardsMax (docs/monitoring/).
SET_LABEL = "jobset_name"  # the label naming the JobSet on its controller's counters (pkg/metrics/metrics.go)
SET_RESTARTS = "kube_customresource_jobset_restarts_count_towards_max"
SET_ALL_RESTARTS = "kube_customresource_jobset_restarts"  # status.restarts: every restart, counted or not
NOT_RUNNING = "pending"
# kube-state-metrics' restart counts of a pod's containers and init containers (internal/store/pod.go).
RESTART_COUNTERS = ("kube_pod_container_status_restarts_total", "kube_pod_init_container_status_restarts_total")  # the reason of a job not running that no series says more of


def quoted(text: str) -> str:
    """A PromQL string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def sanitized(resource: str) -> str:
    """A resource name as kube-state-metrics labels it (v2.20.0 internal/store/utils.go
    SanitizeLabelName: each character but [a-zA-Z0-9_] becomes _; nvidia.com/gpu is nvidia_com_gpu)."""
    return re.sub(r"[^a-zA-Z0-9_]", "_", resource)


def _matchers(namespace_label: str, namespace: str, matchers: dict[str, str]) -> str:
    parts = [f"{namespace_label}={quoted(namespace)}"]
    for label, value in matchers.items():
        parts.append(f"{label}=~{quoted(value[1:])}" if value.startswith("~") else f"{label}={quoted(value)}")
    return ", ".join(parts)


def select(metric: str, watched: Watched, **matchers: str) -> str:
    """`metric{namespace="<ns>", ...}`: a matcher value starting with `~` is a regular expression."""
    return f"{metric}{{{_matchers('namespace', watched.namespace, matchers)}}}"


def _scraped(metric: str, watched: Watched, **matchers: str) -> str:
    """A series scraped through a ServiceMonitor that may leave honorLabels off: with it off,
    Prometheus moved the exporter's namespace and pod to exported_namespace and exported_pod
    (the series is given its namespace back); with it on, they are the exporter's."""
    moved = {("exported_pod" if label == "pod" else label): value for label, value in matchers.items()}
    exported = f"{metric}{{{_matchers('exported_namespace', watched.namespace, moved)}}}"
    return (f"(label_replace({exported}, \"namespace\", {quoted(watched.namespace)}, \"\", \"\")"
            f" or {select(metric, watched, **matchers)})")


def _phase(watched: Watched, pods: str, phase: str) -> str:
    return f"max by (namespace) ({select('kube_pod_status_phase', watched, pod='~' + pods, phase=phase)}) == 1"


def ended(watched: Watched) -> str:
    """The job finished: its JobSet was counted complete or failed by the JobSet controller, or
    its launcher Job has the condition Complete (a jobset's failed launcher Job is restarted, not
    the end) or Failed, or its bare launcher pod succeeded or failed."""
    if watched.launcher_jobs is None:
        return _phase(watched, watched.launcher_pods, "~Succeeded|Failed")
    jobs = "~" + watched.launcher_jobs
    ends = [f"max by (namespace) ({select('kube_job_complete', watched, job_name=jobs, condition='true')}) == 1"]
    if watched.replicated_set is not None:
        for counter in ("jobset_completed_total", "jobset_failed_total"):
            ends.append(f"max by (namespace) ({_scraped(counter, watched, **{SET_LABEL: watched.replicated_set})}) > 0")
    else:
        ends.append(f"max by (namespace) ({select('kube_job_failed', watched, job_name=jobs, condition='true')}) == 1")
    return " or ".join(f"({end})" for end in ends)


def failed(watched: Watched) -> str:
    """The job failed: its JobSet (the JobSet controller's counter), else its launcher Job
    (condition Failed), else its launcher pod (phase Failed)."""
    if watched.replicated_set is not None:
        counted = _scraped("jobset_failed_total", watched, **{SET_LABEL: watched.replicated_set})
        return f"max by (namespace) ({counted}) > 0"
    if watched.launcher_jobs is not None:
        jobs = select("kube_job_failed", watched, job_name="~" + watched.launcher_jobs, condition="true")
        return f"max by (namespace) ({jobs}) == 1"
    return _phase(watched, watched.launcher_pods, "Failed")


def not_started(watched: Watched) -> str | None:
    """The job is meant to run, some object of its run is in the cluster, its launcher is not
    running and it has not finished. None: a job not meant to run (spec.state other than running)."""
    if not running(watched):
        return None
    return (f"(\n  ({present(watched)})\n  unless on (namespace)\n  ({launcher_running(watched)})\n)"
            f"\nunless on (namespace)\n({ended(watched)})")


def present(watched: Watched) -> str:
    """Some object of the job's run is in the cluster: a batch Job of a step (kube_job_created
    exists with the Job, kube_job_status_suspended with its condition) or a pod of a step."""
    pods = "~" + every_pod(watched)
    objects = [select(metric, watched, pod=pods) for metric in ("kube_pod_created", "kube_pod_status_phase")]
    jobs = every_job(watched)
    if jobs is not None:
        objects[:0] = [select(metric, watched, job_name="~" + jobs)
                       for metric in ("kube_job_created", "kube_job_status_suspended")]
    return f"group by (namespace) ({' or '.join(objects)})"


def launcher_running(watched: Watched) -> str:
    """The launcher's pod is Running."""
    return _phase(watched, watched.launcher_pods, "Running")


def suspended(watched: Watched) -> str | None:
    """A batch Job of the job is suspended (Kueue holds it queued). None: the job has no batch Job."""
    jobs = every_job(watched)
    if jobs is None:
        return None
    return f"max by (namespace) ({select('kube_job_status_suspended', watched, job_name='~' + jobs)}) == 1"


def reason_query(watched: Watched) -> str:
    """Why a job does not run, the first of: Kueue's LocalQueue of the job reports inadmissible
    workloads while a Job of the job is suspended (`inadmissible`), a Job of it is suspended
    (`queued`), then step by step in the controller's order: a container of the step waits
    (`<step>: <its reason>`, ImagePullBackOff...), a pod of the step is unschedulable
    (`<step>: unschedulable`). One series with the label `reason`, or none."""
    reasons: list[str] = []
    held = suspended(watched)
    if held is not None:
        if watched.queue is not None:
            queue = _scraped("kueue_local_queue_pending_workloads", watched, name=watched.queue, status="inadmissible")
            reasons.append(_because(f"({held}) and on (namespace) (sum by (namespace) ({queue}) > 0)",
                                    "inadmissible"))
        reasons.append(_because(held, "queued"))
    for step in watched.steps:
        pods = "~" + step.pods
        waiting = " or ".join(select(metric, watched, pod=pods) for metric in (
            "kube_pod_init_container_status_waiting_reason", "kube_pod_container_status_waiting_reason"))
        reasons.append(f'label_replace(max by (namespace, reason) ({waiting}), "reason", '
                       f'{quoted(step.name + ": $1")}, "reason", "(.*)")')
        unschedulable = select("kube_pod_status_unschedulable", watched, pod=pods)
        reasons.append(_because(f"max by (namespace) ({unschedulable}) == 1", f"{step.name}: unschedulable"))
    # Each reason's series takes its rank as its value (their `reason` labels differ, so `or`
    # keeps them all), and bottomk keeps the first: linear in the reasons, where excluding the
    # earlier ones with `unless` repeats them.
    return "bottomk(1, " + " or ".join(f"({reason}) * 0 + {rank}" for rank, reason in enumerate(reasons)) + ")"


def _because(expr: str, reason: str) -> str:
    return f'label_replace({expr}, "reason", {quoted(reason)}, "", "")'


def reason_template(watched: Watched) -> str:
    """The `reason` annotation of MpigenJobNotStarted: Prometheus' template language running
    reason_query when the alert is sent (NOT_RUNNING when no series says more)."""
    return (f"{{{{ with query `{reason_query(watched)}` }}}}{{{{ (index . 0).Labels.reason }}}}"
            f"{{{{ else }}}}{NOT_RUNNING}{{{{ end }}}}")


def restarting(watched: Watched) -> str | None:
    """The job restarted within RESTART_WINDOW and goes on: its JobSet recreated its child Jobs
    (a new creation time under a name: every restart recreates the first step's Job), its
    launcher Job counted a failed pod, or a container of its pods restarted in place. None: a job
    not meant to run."""
    if not running(watched):
        return None
    pods = "~" + every_pod(watched)
    recent = []
    if watched.replicated_set is not None:
        created = select("kube_job_created", watched, job_name="~" + every_job(watched))
        recent.append(f"max by (namespace) (changes({created}[{RESTART_WINDOW}])) > 0")
        restarts = select(SET_ALL_RESTARTS, watched, name=watched.replicated_set)  # where the custom resource state is
        recent.append(f"max by (namespace) (changes({restarts}[{RESTART_WINDOW}])) > 0")
    elif watched.launcher_jobs is not None:
        counted = select("kube_job_status_failed", watched, job_name="~" + watched.launcher_jobs, reason="")
        recent.append(f"max by (namespace) (changes({counted}[{RESTART_WINDOW}])) > 0")
    for metric in RESTART_COUNTERS:
        restarts = select(metric, watched, pod=pods)
        recent.append(f"sum by (namespace) (increase({restarts}[{RESTART_WINDOW}])) > 0")
    return f"(\n  {' or '.join(f'({r})' for r in recent)}\n)\nunless on (namespace)\n({ended(watched)})"


def near_restart_budget(watched: Watched) -> str | None:
    """The job runs its last attempt: its JobSet's restarts that count reached maxRestarts
    (JobSet fails it at the next counted failure), or its launcher Job counted backoffLimit
    failed pods, or, where its containers restart in place (restartPolicy OnFailure), the
    restarts of its active launcher pods reached backoffLimit - 1 (the Job controller fails the
    Job when they reach backoffLimit: kubernetes pkg/controller/job/job_controller.go
    pastBackoffLimitOnFailure, which sums the restart counts of the Running and Pending pods'
    containers and init containers). None: no budget known, or a job not meant to run."""
    budget = watched.restart_budget
    if not budget or not running(watched):
        return None
    counted = counted_restarts(watched)
    if counted is None:
        return None
    near = [f"{counted} >= {budget}"]
    if watched.replicated_set is None and watched.restarts_counted and budget > 1:
        near.append(f"{active_restarts(watched)} >= {budget - 1}")
    return f"(\n  {' or '.join(f'({n})' for n in near)}\n)\nunless on (namespace)\n({ended(watched)})"


def counted_restarts(watched: Watched) -> str | None:
    """The failures its budget counts: its JobSet's restartsCountTowardsMax (the custom resource
    state), else its launcher Job's failed pods (kube_job_status_failed without a reason, until
    the Job fails). None: neither (a bare launcher pod)."""
    if watched.replicated_set is not None:
        return f"max by (namespace) ({select(SET_RESTARTS, watched, name=watched.replicated_set)})"
    if watched.launcher_jobs is not None:
        counted = select("kube_job_status_failed", watched, job_name="~" + watched.launcher_jobs, reason="")
        return f"max by (namespace) ({counted})"
    return None


def active_restarts(watched: Watched) -> str:
    """The restarts of the launcher's Running and Pending pods' containers, as the Job
    controller sums them."""
    pods = "~" + watched.launcher_pods
    restarts = " or ".join(select(metric, watched, pod=pods) for metric in RESTART_COUNTERS)
    return f"sum by (namespace) (({restarts}) * on (namespace, pod, uid) group_left () ({active(watched, pods)}))"


def active(watched: Watched, pods: str) -> str:
    """1 per Running or Pending pod of these (`~regex`), by namespace, pod and uid: what a pod's
    series are multiplied by to count only the pods that hold their node's resources."""
    return f"sum by (namespace, pod, uid) ({select('kube_pod_status_phase', watched, pod=pods, phase='~Running|Pending')})"


def gpu_utilisation(watched: Watched, pods: str) -> str:
    """DCGM's utilisation (%) of the GPUs of these pods (a regex), read through its ServiceMonitor."""
    return _scraped("DCGM_FI_DEV_GPU_UTIL", watched, pod="~" + pods)


def workers_idle(watched: Watched) -> str | None:
    """The launcher runs while the workers idle (every rank on the launcher: Open MPI 5 with
    only the ORTE-era variables): their GPUs, where DCGM reports them, else their CPU (the
    kubelet's pod_cpu_usage_seconds_total: the busiest worker under CPU_IDLE_CORES). None: no
    workers, or a job not meant to run."""
    if not watched.workers or not running(watched):
        return None
    if watched.gpus and watched.dcgm:
        idle = f"avg by (namespace) ({gpu_utilisation(watched, watched.worker_pods)}) < {GPU_IDLE_PERCENT}"
    else:
        cpu = select("pod_cpu_usage_seconds_total", watched, pod="~" + watched.worker_pods)
        idle = f"max by (namespace) (rate({cpu}[5m])) < {CPU_IDLE_CORES}"
    return f"({idle})\nand on (namespace)\n({launcher_running(watched)})"


def finished_holding_gpus(watched: Watched) -> str | None:
    """The launcher finished and worker pods with GPUs still run: the value is how many.
    None: no workers, or none with accelerators."""
    if not watched.workers or not watched.gpus:
        return None
    running_pods = select("kube_pod_status_phase", watched, pod="~" + watched.worker_pods, phase="Running")
    if watched.launcher_jobs is not None:
        jobs = "~" + watched.launcher_jobs
        ended = (f"max by (namespace) ({select('kube_job_complete', watched, job_name=jobs, condition='true')}"
                 f" or {select('kube_job_failed', watched, job_name=jobs, condition='true')}) == 1")
    else:
        ended = _phase(watched, watched.launcher_pods, "~Succeeded|Failed")
    return f"(count by (namespace) ({running_pods} == 1))\nand on (namespace)\n({ended})"
