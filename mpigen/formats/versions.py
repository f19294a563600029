"""The versions of the operators an environment's clusters run, as mpigen.yaml and an overlay
say them: today the Kubeflow Trainer's, whose minor version changes what the trainjob target
may write (docs/targets.md, "Trainer versions").

    versions:
      trainer: v2.4       # Kubeflow Trainer v2.4.x (default: v2.3)

Kueue and JobSet have no entry: mpigen writes no Kueue object (only its labels and pod
annotations, which v0.19 and v0.20 read alike) and JobSet serves only jobset.x-k8s.io/v1alpha2.
"""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field

from mpigen.formats.base import Model

TRAINER_VERSIONS = ("v2.3", "v2.4")
DEFAULT_TRAINER_VERSION = TRAINER_VERSIONS[0]
TrainerVersion = Literal["v2.3", "v2.4"]
DEFAULT_VERSIONS = {"trainer": DEFAULT_TRAINER_VERSION}  # by key of `versions:`


class VersionsSettings(Model):
    """What the environment's clusters run."""

    trainer: Optional[TrainerVersion] = Field(
        None, description="The minor version of Kubeflow Trainer the clusters run, for the trainjob target "
                          "(default: mpigen.yaml's, else v2.3).", examples=["v2.4"])
