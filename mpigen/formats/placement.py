"""Placement: where the launcher and worker pods run (node selection, tolerations, affinity, priority)."""

from typing import Any, Literal, Optional

from pydantic import Field, model_validator

from mpigen.formats.base import Model
from mpigen.formats.types import LabelKey, LabelValue
from mpigen.kube.names import DNS1123_SUBDOMAIN


class Toleration(Model):
    """A pod toleration, as in the Kubernetes pod spec."""

    key: Optional[LabelKey] = Field(None, description="Taint key; empty with operator Exists tolerates every taint.",
                                    examples=["nvidia.com/gpu"])
    operator: Optional[Literal["Exists", "Equal"]] = Field(
        None, description="Exists or Equal (Kubernetes' default is Equal).", examples=["Exists"])
    value: Optional[LabelValue] = Field(None, description="Taint value, with operator Equal.", examples=["present"])
    effect: Optional[Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]] = Field(
        None, description="Taint effect to tolerate; empty tolerates every effect.", examples=["NoSchedule"])
    tolerationSeconds: Optional[int] = Field(
        None, ge=0, le=10**12, description="With effect NoExecute: how long the pod stays after the taint appears.")

    @model_validator(mode="after")
    def _consistent(self) -> "Toleration":
        # The API server's own rules (ValidateTolerations), checked here with a position.
        if self.operator == "Exists" and self.value:
            raise ValueError("a toleration with operator Exists takes no value; remove value or use operator Equal")
        if not self.key and self.operator != "Exists":
            raise ValueError("a toleration without a key must have operator: Exists (it then tolerates every taint)")
        if self.tolerationSeconds is not None and self.effect != "NoExecute":
            raise ValueError("tolerationSeconds only applies to effect: NoExecute")
        return self

    def to_pod_spec(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class RolePlacement(Model):
    nodeSelector: dict[LabelKey, LabelValue] = Field(
        default_factory=dict, description="Node labels the pods must match.",
        examples=[{"node.kubernetes.io/instance-type": "p4d.24xlarge"}])
    tolerations: list[Toleration] = Field(
        default_factory=list, description="Taints the pods tolerate, e.g. those of a GPU node pool.",
        examples=[[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]])
    affinity: dict[Literal["nodeAffinity", "podAffinity", "podAntiAffinity"], dict[str, Any]] = Field(
        default_factory=dict, description="A Kubernetes pod affinity, as in the pod spec.",
        examples=[{"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In",
                                   "values": ["us-east-1a"]}]}]}}}])
    priorityClassName: Optional[str] = Field(
        None, pattern=DNS1123_SUBDOMAIN, max_length=253,
        description="PriorityClass of the pods; gang scheduling passes the launcher's (else the workers') to the "
                    "PodGroup.", examples=["training-high"])


class WorkerPlacement(RolePlacement):
    onePodPerNode: Optional[bool] = Field(
        None, description="Never two rank pods of this job on one node (a required pod anti-affinity on "
                          "kubernetes.io/hostname). Default: true with hostNetwork, else false.",
        examples=[True])


class Placement(Model):
    worker: WorkerPlacement = Field(default_factory=WorkerPlacement, description="Where the worker pods run.")
    launcher: RolePlacement = Field(default_factory=RolePlacement, description="Where the launcher pod runs.")
