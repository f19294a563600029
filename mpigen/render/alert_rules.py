"""The alerts of one job: Prometheus alerting rules written for its exact object and pod names,
from series that exist without mpigen (docs/monitoring.md cites each metric and its labels):

- kube-state-metrics v2.20.0 (docs/metrics/workload/job-metrics.md, pod-metrics.md): kube_job_failed,
  kube_job_complete, kube_job_status_failed, kube_job_status_suspended, kube_job_created
  {namespace, job_name}; kube_pod_status_phase, kube_pod_status_unschedulable,
  kube_pod_container_status_waiting_reason, kube_pod_container_status_restarts_total {namespace, pod};
- the JobSet controller v0.12.0 (pkg/metrics/metrics.go): jobset_failed_total{jobset_name, namespace};
- Kueue v0.19.2 (pkg/metrics/metrics.go): kueue_local_queue_pending_workloads{name, namespace, status};
- NVIDIA's dcgm-exporter (etc/default-counters.csv): DCGM_FI_DEV_GPU_UTIL{namespace, pod};
- the kubelet's resource metrics (kubernetes/kubernetes pkg/kubelet/metrics/collectors/resource_metrics.go,
  STABLE): pod_cpu_usage_seconds_total{namespace, pod};
- kube-state-metrics' custom resource state, configured by docs/monitoring/kube-state-metrics-crs.yaml:
  kube_customresource_jobset_restarts{namespace, name}.
"""

from __future__ import annotations

from mpigen.render.watched import Watched

RESTART_WINDOW = "1h"  # how far back a restart counts as recent
GPU_IDLE_PERCENT = 5  # below this average utilisation, a worker's GPUs are idle
CPU_IDLE_CORES = 0.1  # below this, a worker runs no rank (a rank busy-waits on a core; sshd alone sleeps)
HELD_FOR = "15m"  # how long a finished job's workers may keep their GPUs (the scale-down takes seconds)
# kube-state-metrics' custom resource state series of a JobSet's status.restarts (docs/monitoring/).
SET_RESTARTS = "kube_customresource_jobset_restarts"


def quoted(text: str) -> str:
    """A PromQL string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _select(metric: str, watched: Watched, **matchers: str) -> str:
    """`metric{namespace="<ns>", ...}`: a matcher value starting with `~` is a regular expression."""
    parts = [f"namespace={quoted(watched.namespace)}"]
    for label, value in matchers.items():
        parts.append(f"{label}=~{quoted(value[1:])}" if value.startswith("~") else f"{label}={quoted(value)}")
    return f"{metric}{{{', '.join(parts)}}}"


def _pods(watched: Watched) -> str:
    return f"~{watched.launcher_pods}|{watched.worker_pods}" if watched.workers else f"~{watched.launcher_pods}"


def _because(expr: str, reason: str) -> str:
    return f'label_replace({expr}, "reason", {quoted(reason)}, "", "")'


def failed(watched: Watched) -> str:
    """The job failed: its JobSet (the JobSet controller's counter), else its launcher Job
    (condition Failed), else its launcher pod (phase Failed)."""
    if watched.replicated_set is not None:
        return f"max by (namespace) ({_select('jobset_failed_total', watched, **{'jobset_name': watched.replicated_set})}) > 0"
    if watched.launcher_jobs is not None:
        jobs = _select("kube_job_failed", watched, job_name="~" + watched.launcher_jobs, condition="true")
        return f"max by (namespace) ({jobs}) == 1"
    pods = _select("kube_pod_status_phase", watched, pod="~" + watched.launcher_pods, phase="Failed")
    return f"max by (namespace) ({pods}) == 1"


def not_started(watched: Watched) -> str:
    """The job is not running, with the first reason the series give: Kueue found its queue
    inadmissible, it is suspended (queued), a pod is unschedulable, a container waits (its
    own reason), or a pod is pending."""
    pods = _pods(watched)
    reasons: list[tuple[str, str | None]] = []  # (condition, its reason; None: the series' own)
    if watched.launcher_jobs is not None:
        jobs = _select("kube_job_status_suspended", watched, job_name="~" + watched.launcher_jobs)
        suspended = f"max by (namespace) ({jobs}) == 1"
        if watched.queue is not None:
            queue = _select("kueue_local_queue_pending_workloads", watched, name=watched.queue, status="inadmissible")
            reasons.append((f"({suspended}) and on (namespace) (sum by (namespace) ({queue}) > 0)", "inadmissible"))
        reasons.append((suspended, "queued"))
    unschedulable = _select("kube_pod_status_unschedulable", watched, pod=pods)
    reasons.append((f"max by (namespace) ({unschedulable}) == 1", "unschedulable"))
    waiting = _select("kube_pod_container_status_waiting_reason", watched, pod=pods)
    reasons.append((f"max by (namespace, reason) ({waiting}) == 1", None))
    pending = _select("kube_pod_status_phase", watched, pod=pods, phase="Pending")
    reasons.append((f"max by (namespace) ({pending}) == 1", "pending"))
    alternatives = []
    for i, (condition, reason) in enumerate(reasons):
        shown = _because(condition, reason) if reason is not None else condition
        earlier = " or ".join(f"({c})" for c, _ in reasons[:i])
        alternatives.append(f"(({shown}) unless on (namespace) ({earlier}))" if earlier else f"({shown})")
    return "\nor\n".join(alternatives)


def restarting(watched: Watched) -> str:
    """The job restarted within RESTART_WINDOW: its JobSet recreated its launcher's child Job
    (a new creation time under the same name), or its launcher Job has failed pods and goes
    on, or a container of its pods restarted."""
    restarts = _select("kube_pod_container_status_restarts_total", watched, pod=_pods(watched))
    containers = f"sum by (namespace) (increase({restarts}[{RESTART_WINDOW}])) > 0"
    if watched.replicated_set is not None and watched.launcher_jobs is not None:
        created = _select("kube_job_created", watched, job_name="~" + watched.launcher_jobs)
        return f"(max by (namespace) (changes({created}[{RESTART_WINDOW}])) > 0)\nor\n({containers})"
    if watched.launcher_jobs is not None:
        retried = _launcher_retries(watched)
        return f"(max by (namespace) ({retried}) > 0)\nor\n({containers})"
    return containers


def _launcher_retries(watched: Watched) -> str:
    """The failed pods of the job's launcher Jobs, as the restart alerts count them:
    kube_job_status_failed of those Jobs, its series with an empty reason."""
    return _select("kube_job_status_failed", watched, job_name="~" + watched.launcher_jobs, reason="")


def near_restart_budget(watched: Watched) -> str | None:
    """The job runs its last attempt: its JobSet restarted maxRestarts times (kube-state-metrics'
    custom resource state), or its launcher Job has backoffLimit failed pods. None: no budget known."""
    if watched.restart_budget is None or watched.restart_budget == 0:
        return None
    if watched.replicated_set is not None:
        restarts = _select(SET_RESTARTS, watched, name=watched.replicated_set)
        return f"max by (namespace) ({restarts}) >= {watched.restart_budget}"
    if watched.launcher_jobs is not None:
        retried = _launcher_retries(watched)
        return f"max by (namespace) ({retried}) >= {watched.restart_budget}"
    return None


def workers_idle(watched: Watched) -> str | None:
    """The launcher runs while the workers idle (every rank on the launcher: Open MPI 5 with
    only the ORTE-era variables): their GPUs, where DCGM reports them, else their CPU (the
    kubelet's pod_cpu_usage_seconds_total: the busiest worker under CPU_IDLE_CORES). None: no workers."""
    if not watched.workers:
        return None
    if watched.gpus and watched.dcgm:
        utilisation = _select("DCGM_FI_DEV_GPU_UTIL", watched, pod="~" + watched.worker_pods)
        idle = f"avg by (namespace) ({utilisation}) < {GPU_IDLE_PERCENT}"
    else:
        cpu = _select("pod_cpu_usage_seconds_total", watched, pod="~" + watched.worker_pods)
        idle = f"max by (namespace) (rate({cpu}[5m])) < {CPU_IDLE_CORES}"
    launcher = _select("kube_pod_status_phase", watched, pod="~" + watched.launcher_pods, phase="Running")
    return f"({idle})\nand on (namespace)\n(max by (namespace) ({launcher}) == 1)"


def finished_holding_gpus(watched: Watched) -> str | None:
    """The launcher finished and worker pods with GPUs still run: the value is how many.
    None: no workers, or none with accelerators."""
    if not watched.workers or not watched.gpus:
        return None
    running = _select("kube_pod_status_phase", watched, pod="~" + watched.worker_pods, phase="Running")
    if watched.launcher_jobs is not None:
        jobs = "~" + watched.launcher_jobs
        ended = (f"max by (namespace) ({_select('kube_job_complete', watched, job_name=jobs, condition='true')}"
                 f" or {_select('kube_job_failed', watched, job_name=jobs, condition='true')}) == 1")
    else:
        pods = _select("kube_pod_status_phase", watched, pod="~" + watched.launcher_pods, phase="~Succeeded|Failed")
        ended = f"max by (namespace) ({pods}) == 1"
    return f"(count by (namespace) ({running} == 1))\nand on (namespace)\n({ended})"
