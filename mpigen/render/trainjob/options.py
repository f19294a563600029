"""The trainjob target's own options: the runtime of the blueprints that name none (mpigen.yaml's
trainingRuntime, an overlay's, or its nearest base's)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mpigen.formats.trainer import Runtime
from mpigen.render.target import Setting, TargetOptions


@dataclass(frozen=True)
class TrainJobOptions:
    default_runtime: Runtime | None = None  # None: a TrainingRuntime of mpigen's, from the blueprint


def build(given: Mapping[str, Any]) -> TrainJobOptions:
    return TrainJobOptions(**given)


OPTIONS = TargetOptions(
    help="a Kubeflow Trainer v2 TrainJob and its runtime",
    who_runs="the Kubeflow Trainer v2 (on JobSet), from the runtime the platform team keeps",
    settings=(Setting("default_runtime", config_key="trainingRuntime", overlay_key="trainingRuntime"),),
    build=build)
