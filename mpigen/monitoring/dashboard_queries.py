"""The panels of one job's row of the environment's Grafana dashboard, as PromQL: what each
shows, read from the same series as the job's alerts and selected by the same names
(mpigen.monitoring.alerts over the job's Watched), so that a panel and an alert never
disagree on which objects are the job's. The Grafana side is mpigen.monitoring.dashboard.

The series (docs/monitoring.md section 3 cites each):
- the state: the alerts' own conditions, the first that holds of failed, completed, running,
  queued (a batch Job of the job suspended: kube-state-metrics v2.20.0 internal/store/job.go
  kube_job_status_suspended, which Kueue's suspension sets), starting (some object of the run exists);
- GPUs requested: kube-state-metrics v2.20.0 internal/store/pod.go kube_pod_container_resource_requests
  {container, node, resource, unit}, an extended resource (nvidia.com/gpu) under its sanitized name
  (`SanitizeLabelName`, internal/store/utils.go: nvidia_com_gpu) and unit "integer"; the API
  server defaults a container's requests to its limits, which mpigen writes; of the pods Running
  or Pending, which hold them;
- GPUs used: dcgm-exporter's DCGM_FI_DEV_GPU_UTIL by pod (%), summed over the job's GPUs / 100;
- restarts: what the job's budget counts (the JobSet's restartsCountTowardsMax through the custom
  resource state, or the launcher Job's failed pods, and its restarts in place where the Job
  controller counts them) and every container restart (kube_pod_container_status_restarts_total);
- time queued: since the newest batch Job of the job was created (kube_job_created, a Unix
  time), while one of them is suspended: Kueue's own metrics give waits per queue
  (kueue_admission_wait_time_seconds, per ClusterQueue), not per job."""

from __future__ import annotations

from typing import NamedTuple

from mpigen.monitoring import alerts as alert_rules
from mpigen.render.watched import Watched, every_job, every_pod

# The values of the state panel's series, the first of these that holds (its value mappings).
STATES = ((5, "failed", "red"), (4, "completed", "green"), (3, "running", "blue"), (2, "queued", "yellow"),
          (1, "starting", "orange"))


class Query(NamedTuple):
    legend: str
    expr: str


class Panel(NamedTuple):
    """One panel of a job's row: its title, what it shows, its kind (`state`: a state timeline;
    `series`: a time series), unit (Grafana's), queries and the level drawn as a line (the
    restart budget; None: none)."""

    title: str
    description: str
    kind: str
    unit: str
    queries: tuple[Query, ...]
    line: int | None = None


def panels(watched: Watched) -> list[Panel]:
    """The job's panels: its state, its GPUs (a job with accelerators), its restarts and how long
    it waits queued (a job with batch Jobs and a Kueue queue, which suspends them)."""
    out = [state_panel(watched)]
    if watched.gpus:
        out.append(gpu_panel(watched))
    out.append(restart_panel(watched))
    if every_job(watched) is not None and watched.queue is not None:
        out.append(queued_panel(watched))
    return out


def state_panel(watched: Watched) -> Panel:
    conditions = (alert_rules.failed(watched), alert_rules.ended(watched), alert_rules.launcher_running(watched),
                  alert_rules.suspended(watched), alert_rules.present(watched))
    # `or` keeps a right-hand series only where no left-hand one has its labels (namespace):
    # the first condition that holds gives the value.
    expr = " or ".join(f"(({condition}) * 0 + {value})"
                       for condition, (value, _, _) in zip(conditions, STATES) if condition is not None)
    return Panel("State", "failed, completed, running (its launcher pod Running), queued (a Job of it suspended, "
                          "held by Kueue) or starting (some object of its run exists); empty: nothing of the run "
                          "in the cluster.", "state", "none", (Query("state", expr),))


def gpu_panel(watched: Watched) -> Panel:
    pods = "~" + every_pod(watched)
    resource = alert_rules.sanitized(watched.accelerator)
    requests = alert_rules.select("kube_pod_container_resource_requests", watched, pod=pods, resource=resource)
    queries = [Query("requested", f"sum by (namespace) ({requests} * on (namespace, pod, uid) group_left () "
                                  f"({alert_rules.active(watched, pods)}))")]
    said = f"requested by its Running and Pending pods ({watched.accelerator}, kube-state-metrics)"
    if watched.dcgm:
        used = alert_rules.gpu_utilisation(watched, every_pod(watched))
        queries.append(Query("used", f"sum by (namespace) ({used}) / 100"))
        said += " and used (the sum of DCGM's utilisation of its GPUs, in GPUs)"
    return Panel("GPUs", f"GPUs {said}.", "series", "none", tuple(queries))


def restart_panel(watched: Watched) -> Panel:
    queries = []
    counted = alert_rules.counted_restarts(watched)
    if counted is not None:
        queries.append(Query("counted restarts" if watched.replicated_set else "failed launcher pods", counted))
    if watched.replicated_set is None and watched.launcher_jobs is not None and watched.restarts_counted:
        queries.append(Query("launcher restarts in place", alert_rules.active_restarts(watched)))
    pods = "~" + every_pod(watched)
    restarts = " or ".join(alert_rules.select(metric, watched, pod=pods) for metric in alert_rules.RESTART_COUNTERS)
    queries.append(Query("container restarts", f"sum by (namespace) ({restarts})"))
    budget = watched.restart_budget
    said = f"; the line is its budget, {budget}" if budget else ""
    return Panel("Restarts", "The failures its restart budget counts and its containers' restarts" + said + ".",
                 "series", "none", tuple(queries), budget or None)


def queued_panel(watched: Watched) -> Panel:
    created = alert_rules.select("kube_job_created", watched, job_name="~" + every_job(watched))
    expr = f"(time() - max by (namespace) ({created}))\nand on (namespace)\n({alert_rules.suspended(watched)})"
    return Panel("Time queued", "How long it waits in Kueue: since its newest Job was created, while a Job of it is "
                                "suspended.", "series", "s", (Query("queued", expr),))
