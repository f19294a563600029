"""An environment's monitoring: one Prometheus Operator PrometheusRule (monitoring.coreos.com/v1)
holding a group of alerts per job (mpigen.monitoring.alerts), each alert labelled with the job,
its namespace and environment, and annotated with its blueprint and its runbook (docs/monitoring.md).

The rule is named after its environment and the repository (a digest of the repository's
runbookURL, which is required): two repositories with an environment of one name, writing their
rules into one namespace, write two rules.

The rule is the environment's, not a job's: it changes with the jobs it watches (a new run's
names replace the old run's), so that no job's run identity depends on it, and under Argo CD it
syncs with the configuration, in wave -1.

Past what one PrometheusRule may hold (prometheus-operator's limit of its spec, etcd's, and a
client-side apply's of annotations: rule_limits), the rule is split into shards of the jobs,
`<name>-<i>-of-<K>` (mpigen.monitoring.shards), each with the same labels, which the Prometheus'
ruleSelector selects alike; a group is a job's, named after its namespace and job, so that its
name is unique in any shard (Prometheus refuses a rule file with two groups of one name:
prometheus/prometheus model/rulefmt/rulefmt.go Validate, "groupname: ... is repeated in the same
file"), and the operator writes each PrometheusRule to a rule file of its own (v0.93.0
pkg/operator/rules.go Select: `<namespace>-<name>-<uid>.yaml`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable

from mpigen.formats.monitoring import Monitoring
from mpigen.kube.labels import ARGOCD_SYNC_WAVE, MANAGED_BY
from mpigen.kube.sizes import (MAX_ANNOTATIONS, MAX_ETCD_REQUEST, MAX_PROMETHEUS_RULE_SPEC,
                               client_side_applied_annotations, prometheus_rule_spec_size, stored_size)
from mpigen.monitoring import alerts as alert_rules
from mpigen.monitoring.shards import Limit, shard_name, sharded
from mpigen.render.watched import Watched

API_VERSION = "monitoring.coreos.com/v1"
KIND = "PrometheusRule"
# Under flux, where a target applies its objects in steps: the folder of the environment's
# PrometheusRule, applied by a Kustomization of its own (mpigen.emit.companions).
ALERTS_STEP = "alerts"
# The labels every alert carries: not `job`, which is Prometheus' scrape job of every series.
JOB_LABEL, ENVIRONMENT_LABEL = "mpigen_job", "mpigen_environment"


@dataclass(frozen=True)
class Alert:
    """One alert of every job: its name, severity, expression (None: not for this job), how
    long it must hold, and what it says."""

    name: str
    severity: str
    expr: Callable[[Watched], str | None]
    hold: Callable[[Monitoring], str | None]
    summary: str
    description: str
    computed: Callable[[Watched], dict[str, str]] = lambda watched: {}  # annotations computed when sent


def _now(monitoring: Monitoring) -> None:
    return None


ALERTS = (
    Alert("MpigenJobFailed", "critical", alert_rules.failed, _now,
          "{job} failed", "{kind} {namespace}/{name} failed; its pods' logs say why."),
    Alert("MpigenJobNotStarted", "warning", alert_rules.not_started, lambda m: m.not_started_for,
          "{job} has not started", "{kind} {namespace}/{name} is not running; the annotation reason says why.",
          lambda watched: {"reason": alert_rules.reason_template(watched)}),
    Alert("MpigenJobRestarting", "warning", alert_rules.restarting, _now,
          "{job} restarted", "{kind} {namespace}/{name} restarted within the last " + alert_rules.RESTART_WINDOW + "."),
    Alert("MpigenJobNearRestartBudget", "warning", alert_rules.near_restart_budget, _now,
          "{job} runs its last attempt", "{kind} {namespace}/{name} counted {{{{ $value }}}} failures against its "
          "limit of {budget}: the next one fails it."),
    Alert("MpigenWorkersIdle", "warning", alert_rules.workers_idle, lambda m: m.idle_for,
          "{job}'s workers idle while its launcher runs",
          "The workers of {namespace}/{name} idle ({{{{ $value }}}} {idle}) while the launcher runs: the ranks may "
          "all run on the launcher."),
    Alert("MpigenFinishedJobHoldsGPUs", "warning", alert_rules.finished_holding_gpus,
          lambda m: alert_rules.HELD_FOR, "{job} finished and holds GPUs",
          "{kind} {namespace}/{name} finished and {{{{ $value }}}} of its worker pods still run, with {gpus} "
          "GPUs each."),
)


def prometheus_rules(env: str, watched: list[Watched], monitoring: Monitoring, gitops: str) -> list[tuple[dict, str]]:
    """The environment's PrometheusRule, or its shards where one would not fit (mpigen.monitoring.shards:
    RULE_LIMITS), each with its `# Source:` comment."""
    def build(jobs: list[Watched], i: int, k: int) -> dict:
        return prometheus_rule(env, jobs, monitoring, gitops, (i, k))[0]

    rules = sharded(watched, build, rule_limits(gitops))
    return [(rule, _source(env, i + 1, len(rules))) for i, rule in enumerate(rules)]


def rule_limits(gitops: str) -> tuple[Limit, ...]:
    """What a PrometheusRule must stay under (mpigen.kube.sizes): prometheus-operator's limit of
    its spec, etcd's of a request, and, where it is applied client-side (kubectl apply, Argo CD
    without ServerSideApply; Flux applies server-side), the annotations' limit that the
    last-applied configuration counts against."""
    limits = (Limit("prometheus-operator's ValidateRule", prometheus_rule_spec_size, MAX_PROMETHEUS_RULE_SPEC),
              Limit("etcd's request limit", lambda obj: stored_size(obj, as_json=True), MAX_ETCD_REQUEST))
    if gitops == "flux":
        return limits
    return *limits, Limit("a client-side apply's annotations", client_side_applied_annotations, MAX_ANNOTATIONS)


def prometheus_rule(env: str, watched: list[Watched], monitoring: Monitoring, gitops: str,
                    shard: tuple[int, int] = (1, 1)) -> tuple[dict, str]:
    """The environment's PrometheusRule (or its shard i of k), with a group per job (by namespace
    and name), and its `# Source:` comment."""
    labels = {MANAGED_BY: "mpigen", **dict(monitoring.labels)}
    meta = {"name": shard_name(rule_name(env, monitoring), *shard), "namespace": monitoring.namespace,
            "labels": labels}
    if gitops == "argocd":
        meta["annotations"] = {ARGOCD_SYNC_WAVE: "-1"}
    groups = [_group(one, env, monitoring) for one in sorted(watched, key=lambda w: (w.namespace, w.job))]
    rule = {"apiVersion": API_VERSION, "kind": KIND, "metadata": meta, "spec": {"groups": groups}}
    return rule, _source(env, *shard)


def _source(env: str, i: int, k: int) -> str:
    where = f"environment {env}" if env else "the blueprints"
    part = f", shard {i} of {k}" if k > 1 else ""
    return f"Source: mpigen monitoring, the alerts of {where}{part} (docs/monitoring.md)"


def rule_name(env: str, monitoring: Monitoring) -> str:
    """`mpigen-<environment>-<6 hex digits of the runbookURL>` (without overlays, no environment):
    the repository's, so that another repository's environment of the same name does not
    replace it."""
    digest = hashlib.sha256(monitoring.runbook.encode()).hexdigest()[:6]
    return f"mpigen-{env}-{digest}" if env else f"mpigen-{digest}"


def _group(watched: Watched, env: str, monitoring: Monitoring) -> dict:
    rules = []
    facts = {"job": f"{watched.namespace}/{watched.job}", "kind": watched.kind, "namespace": watched.namespace,
             "name": watched.name, "budget": watched.restart_budget, "gpus": watched.gpus,
             "idle": "% GPU utilisation" if watched.gpus and watched.dcgm else "CPU cores at most"}
    for alert in ALERTS:
        expr = alert.expr(watched)
        if expr is None:
            continue
        rule = {"alert": alert.name, "expr": expr}
        hold = alert.hold(monitoring)
        if hold is not None:
            rule["for"] = hold
        labels = {"severity": alert.severity, "namespace": watched.namespace, JOB_LABEL: watched.job}
        if env:
            labels[ENVIRONMENT_LABEL] = env
        rule["labels"] = labels
        rule["annotations"] = {"summary": alert.summary.format(**facts),
                               "description": alert.description.format(**facts),
                               "blueprint": watched.blueprint,
                               "runbook_url": f"{monitoring.runbook}#{alert.name.lower()}",
                               **alert.computed(watched)}
        rules.append(rule)
    return {"name": f"mpigen/{watched.namespace}/{watched.job}", "rules": rules}
