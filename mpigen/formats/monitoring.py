"""The monitoring of an environment's jobs, as mpigen.yaml and an overlay ask for it: a
Prometheus Operator PrometheusRule with alerts written for each job by its exact names.

    monitoring:
      prometheusRule:
        namespace: monitoring                      # where the PrometheusRule goes
        labels: {release: kube-prometheus-stack}   # what the Prometheus resource's ruleSelector matches
      notStartedFor: 1h                            # a job not running after this long is alerted
      idleFor: 15m                                 # workers idle this long while the launcher runs
      runbookURL: https://git.example.com/ml/training/-/blob/main/docs/monitoring.md   # required
      dashboard:                                   # opt-in: a Grafana dashboard of every job
        enabled: true
        namespace: monitoring                      # default: the PrometheusRule's
        labels: {team: ml}                         # besides grafana_dashboard: "1"

The durations are checked as Prometheus reads a rule's `for` (mpigen.kube.prometheus_duration,
prometheus/common v0.70.1 model/time.go ParseDuration): a rule group Prometheus refuses is
refused whole, and the environment would have no alerts. `runbookURL` is required, an absolute
http(s) URL: Alertmanager shows the link where the alert is read, where a relative path leads
nowhere; it also names the repository in the PrometheusRule's name (mpigen.monitoring.prometheus_rule).

At the end, what a run is given of these settings (Monitoring, in the options of its environment),
which mpigen.monitoring renders.
"""

from dataclasses import dataclass
from typing import Annotated, Optional

from pydantic import AfterValidator, Field, model_validator
from pydantic_core import PydanticCustomError

from mpigen.formats.base import Model
from mpigen.formats.patterns import ABSOLUTE_URL, DURATION
from mpigen.formats.types import LabelKey, LabelValue
from mpigen.kube.names import DNS1123_LABEL
from mpigen.kube.prometheus_duration import duration_problem


def _prometheus_duration(value: str) -> str:
    problem = duration_problem(value)
    if problem:
        says = (f"{value!r} is not a duration Prometheus takes ({problem}): write one such as 30m, 2h or 1h30m, "
                "units y, w, d, h, m, s, ms from the largest down, each at most once")
        raise PydanticCustomError("prometheus_duration", "{says}", {"says": says})
    return value


# A rule's `for`: the CRD's pattern, and what Prometheus' own parser takes.
PrometheusDuration = Annotated[str, Field(pattern=DURATION, min_length=1, max_length=32),
                               AfterValidator(_prometheus_duration)]


class PrometheusRuleSettings(Model):
    """Where the environment's PrometheusRule goes and the labels its Prometheus selects it by."""

    namespace: str = Field("monitoring", pattern=DNS1123_LABEL, max_length=63,
                           description="Namespace of the PrometheusRule (one the Prometheus resource's "
                                       "ruleNamespaceSelector matches).")
    labels: dict[LabelKey, LabelValue] = Field(
        default_factory=dict, description="Labels of the PrometheusRule: those the Prometheus resource's "
                                          "ruleSelector matches (kube-prometheus-stack: release: <its release>).",
        examples=[{"release": "kube-prometheus-stack"}])


# Its docstring is its description in the published schemas, kept byte for byte: the dashboard is
# built by mpigen.monitoring.dashboard, which was mpigen.render.dashboard when they were published.
class DashboardSettings(Model):
    """The environment's Grafana dashboard: a ConfigMap the Grafana sidecar loads
    (mpigen.render.dashboard)."""

    enabled: bool = Field(False, description="true: write the environment's Grafana dashboard, a ConfigMap labelled "
                                             "grafana_dashboard: \"1\" that Grafana's dashboard sidecar loads.")
    namespace: Optional[str] = Field(None, pattern=DNS1123_LABEL, max_length=63,
                                     description="Namespace of the ConfigMap (default: the PrometheusRule's); one "
                                                 "the sidecar searches (kube-prometheus-stack: every namespace).")
    labels: dict[LabelKey, LabelValue] = Field(
        default_factory=dict, description="More labels of the ConfigMap, besides grafana_dashboard: \"1\".",
        examples=[{"team": "ml"}])


class MonitoringSettings(Model):
    """Alerts for every job of the environment (docs/monitoring.md)."""

    enabled: bool = Field(True, description="false: no PrometheusRule (an overlay turning mpigen.yaml's off).")
    prometheusRule: PrometheusRuleSettings = Field(default_factory=PrometheusRuleSettings,
                                                   description="The PrometheusRule the alerts are written into.")
    notStartedFor: PrometheusDuration = Field(
        "1h", description="How long a job may be queued or pending before MpigenJobNotStarted fires.",
        examples=["30m"])
    idleFor: PrometheusDuration = Field(
        "15m", description="How long the workers' GPUs may idle while the launcher runs before MpigenWorkersIdle fires.")
    dashboard: DashboardSettings = Field(default_factory=DashboardSettings,
                                         description="A Grafana dashboard of every job of the environment (opt-in).")
    runbookURL: Optional[str] = Field(
        None, min_length=1, max_length=2048, pattern=ABSOLUTE_URL,
        description="Required (an absolute http(s) URL): where this repository's copy of mpigen's "
                    "docs/monitoring.md is served; every alert's runbook_url is it, #<alert> appended, and the "
                    "PrometheusRule's name carries a digest of it.",
        examples=["https://git.example.com/ml/training/-/blob/main/docs/monitoring.md"])

    @model_validator(mode="after")
    def _runbook_given(self) -> "MonitoringSettings":
        if self.enabled and self.runbookURL is None:
            raise ValueError("runbookURL is required: the absolute URL where this repository's copy of mpigen's "
                             "docs/monitoring.md is served (Alertmanager shows each alert's runbook link, which a "
                             "relative path leaves dead), e.g. runbookURL: "
                             "https://git.example.com/ml/training/-/blob/main/docs/monitoring.md")
        return self


@dataclass(frozen=True)
class DashboardPlace:
    """Where the environment's Grafana dashboard goes (mpigen.monitoring.dashboard): its ConfigMap's
    namespace and its labels besides the sidecar's."""

    namespace: str
    labels: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Monitoring:
    """An environment's monitoring, as mpigen.yaml or its overlay asks (mpigen.formats.monitoring)."""

    namespace: str = "monitoring"
    labels: tuple[tuple[str, str], ...] = ()
    not_started_for: str = "1h"
    idle_for: str = "15m"
    runbook: str = ""  # the repository's copy of docs/monitoring.md (required by the settings)
    dashboard: DashboardPlace | None = None  # the Grafana dashboard (None: none)


def monitoring_of(settings: MonitoringSettings | None) -> Monitoring | None:
    """The options of these settings (None: no monitoring)."""
    if settings is None or not settings.enabled:
        return None
    rule, board = settings.prometheusRule, settings.dashboard
    dashboard = DashboardPlace(board.namespace or rule.namespace, tuple(sorted(board.labels.items()))) \
        if board.enabled else None
    return Monitoring(rule.namespace, tuple(sorted(rule.labels.items())), settings.notStartedFor, settings.idleFor,
                      settings.runbookURL or "", dashboard)
