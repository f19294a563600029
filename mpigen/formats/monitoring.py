"""The monitoring of an environment's jobs, as mpigen.yaml and an overlay ask for it: a
Prometheus Operator PrometheusRule with alerts written for each job by its exact names.

    monitoring:
      prometheusRule:
        namespace: monitoring                      # where the PrometheusRule goes
        labels: {release: kube-prometheus-stack}   # what the Prometheus resource's ruleSelector matches
      notStartedFor: 1h                            # a job not running after this long is alerted
      idleFor: 15m                                 # workers idle this long while the launcher runs
      runbookURL: https://git.example.com/ml/training/-/blob/main/docs/monitoring.md
"""

from __future__ import annotations

from typing import Optional

from pydantic import Field

from mpigen.formats.base import Model
from mpigen.formats.patterns import DURATION
from mpigen.formats.types import LabelKey, LabelValue
from mpigen.kube.names import DNS1123_LABEL


class PrometheusRuleSettings(Model):
    """Where the environment's PrometheusRule goes and the labels its Prometheus selects it by."""

    namespace: str = Field("monitoring", pattern=DNS1123_LABEL, max_length=63,
                           description="Namespace of the PrometheusRule (one the Prometheus resource's "
                                       "ruleNamespaceSelector matches).")
    labels: dict[LabelKey, LabelValue] = Field(
        default_factory=dict, description="Labels of the PrometheusRule: those the Prometheus resource's "
                                          "ruleSelector matches (kube-prometheus-stack: release: <its release>).",
        examples=[{"release": "kube-prometheus-stack"}])


class MonitoringSettings(Model):
    """Alerts for every job of the environment (docs/monitoring.md)."""

    enabled: bool = Field(True, description="false: no PrometheusRule (an overlay turning mpigen.yaml's off).")
    prometheusRule: PrometheusRuleSettings = Field(default_factory=PrometheusRuleSettings,
                                                   description="The PrometheusRule the alerts are written into.")
    notStartedFor: str = Field("1h", pattern=DURATION, max_length=32,
                               description="How long a job may be queued or pending before MpigenJobNotStarted fires.",
                               examples=["30m"])
    idleFor: str = Field("15m", pattern=DURATION, max_length=32,
                         description="How long the workers' GPUs may idle while the launcher runs before "
                                     "MpigenWorkersIdle fires.")
    runbookURL: Optional[str] = Field(
        None, min_length=1, max_length=2048, pattern=r"^\S+$",
        description="Where your copy of mpigen's docs/monitoring.md is served: every alert's runbook_url is it, "
                    "#<alert> appended (default: docs/monitoring.md).")
