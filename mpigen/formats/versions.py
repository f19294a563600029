"""The versions of the operators an environment's clusters run, as mpigen.yaml and an overlay
say them: the Kubeflow Trainer's, whose minor version changes what the trainjob target may
write (docs/targets.md, "Trainer versions"), and Kueue's, whose minor version changes what a
queued job may be (docs/targets.md, "Kueue versions").

    versions:
      trainer: v2.4       # Kubeflow Trainer v2.4.x (default: v2.3)
      kueue: v0.18        # Kueue v0.18.x (default: v0.19)

Kueue's version bounds the pod sets of one Workload (mpigen.kube.kueue_limits: MaxPodSets,
kubernetes-sigs/kueue pkg/controller/jobframework/constants.go, 10 at v0.18.6, 18 at v0.19.2;
before v0.18 the CRD's `+kubebuilder:validation:MaxItems=8` on Workload spec.podSets,
apis/kueue/v1beta2/workload_types.go at v0.17.8). No Kueue version changes an object mpigen
writes: mpigen writes no object of Kueue's API (no apiVersion kueue.x-k8s.io/...), only labels
and pod-template annotations whose keys no API version spells, so v0.20, which serves only
kueue.x-k8s.io/v1beta2, renders as v0.19 does. JobSet has no entry: it serves only
jobset.x-k8s.io/v1alpha2.
"""

from typing import Literal, Optional

from pydantic import Field

from mpigen.formats.base import Model

TRAINER_VERSIONS = ("v2.3", "v2.4")
DEFAULT_TRAINER_VERSION = TRAINER_VERSIONS[0]
TrainerVersion = Literal["v2.3", "v2.4"]
# Kueue's minor versions from the first whose Workload API mpigen's jobs fit (v0.17: MaxItems=8)
# to the newest released; v0.19 (the reference's baseline, shared/reference/targets.md 7) renders
# what mpigen rendered before the key existed.
KUEUE_VERSIONS = ("v0.17", "v0.18", "v0.19", "v0.20")
DEFAULT_KUEUE_VERSION = "v0.19"
KueueVersion = Literal["v0.17", "v0.18", "v0.19", "v0.20"]
DEFAULT_VERSIONS = {"trainer": DEFAULT_TRAINER_VERSION, "kueue": DEFAULT_KUEUE_VERSION}  # by key of `versions:`


class VersionsSettings(Model):
    """What the environment's clusters run."""

    trainer: Optional[TrainerVersion] = Field(
        None, description="The minor version of Kubeflow Trainer the clusters run, for the trainjob target "
                          "(default: mpigen.yaml's, else v2.3).", examples=["v2.4"])
    kueue: Optional[KueueVersion] = Field(
        None, description="The minor version of Kueue the clusters run: a queued job's Workload must fit its limits "
                          "(default: mpigen.yaml's, else v0.19).", examples=["v0.18"])
