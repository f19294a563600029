"""Scheduling: gang scheduling (a PodGroup) and Kueue queueing."""

from typing import Literal, Optional

from pydantic import Field, model_validator

from mpigen.formats.base import Model
from mpigen.formats.types import LabelKey
from mpigen.kube.names import DNS1123_SUBDOMAIN

# The gang schedulers whose PodGroups the operator (and mpigen) can create.
GangScheduler = Literal["volcano", "scheduler-plugins", "kube-batch"]
# The scheduler name the pods get, as the operator's --gang-scheduling flag value would be:
# Volcano's and kube-batch's own names, and the name the scheduler-plugins project deploys
# its second scheduler under (manifests/install/as-a-second-scheduler).
DEFAULT_SCHEDULER_NAMES = {"volcano": "volcano", "scheduler-plugins": "scheduler-plugins-scheduler",
                           "kube-batch": "kube-batch"}


class Gang(Model):
    """All-or-nothing scheduling: a PodGroup, as the operator creates with --gang-scheduling."""

    scheduler: GangScheduler = Field(
        description="The gang scheduler the cluster runs: Volcano (scheduling.volcano.sh/v1beta1 PodGroup), "
                    "scheduler-plugins coscheduling (scheduling.x-k8s.io/v1alpha1) or kube-batch "
                    "(scheduling.incubator.k8s.io/v1alpha1).", examples=["volcano"])
    schedulerName: Optional[str] = Field(
        None, pattern=DNS1123_SUBDOMAIN, max_length=253,
        description="schedulerName of the pods. Default: volcano, scheduler-plugins-scheduler or kube-batch.",
        examples=["scheduler-plugins-scheduler"])
    minAvailable: Optional[int] = Field(
        None, ge=1, le=100_001,
        description="PodGroup minMember. Default: workers + 1 (the launcher too); workers under a GitOps profile "
                    "or with waitForWorkers, where the launcher is created only once the workers are ready.",
        examples=[5])
    queue: Optional[str] = Field(None, pattern=DNS1123_SUBDOMAIN, max_length=253,
                                 description="Volcano queue (a Queue's name) of the PodGroup.", examples=["training"])
    scheduleTimeoutSeconds: Optional[int] = Field(
        None, ge=0, le=10**9, description="scheduler-plugins: how long the group may wait to be scheduled.",
        examples=[600])

    @property
    def scheduler_name(self) -> str:
        return self.schedulerName or DEFAULT_SCHEDULER_NAMES[self.scheduler]


# A topology level is a node label's key: Kueue's webhook checks the annotation that carries
# it with metavalidation.ValidateLabelName (kueue v0.19.2 pkg/controller/jobframework/
# tas_validation.go), and a Topology's levels[].nodeLabel has the same form
# (apis/kueue/v1beta2/topology_types.go), so both are LabelKey: a qualified name whose name
# part has at most 63 characters and prefix at most 253.
class Topology(Model):
    """Kueue's Topology Aware Scheduling of the rank pods: all of them in one domain of a level."""

    required: Optional[LabelKey] = Field(
        None, description="Node label of the topology level the rank pods must share (Kueue annotation "
                          "kueue.x-k8s.io/podset-required-topology); the job waits until one domain fits.",
        examples=["cloud.google.com/gce-topology-block"])
    preferred: Optional[LabelKey] = Field(
        None, description="Node label of the level Kueue tries to keep the rank pods in, spreading over the "
                          "fewest domains when one is too small (kueue.x-k8s.io/podset-preferred-topology).",
        examples=["cloud.google.com/gce-topology-rack"])

    @model_validator(mode="after")
    def _one(self) -> "Topology":
        if (self.required is None) == (self.preferred is None):
            raise ValueError("give exactly one of required or preferred (Kueue accepts one topology request "
                             "per pod set)")
        return self


class Scheduling(Model):
    gang: Optional[Gang] = Field(None, description="Gang scheduling: all pods of the job start together or none do.")
    queue: Optional[str] = Field(
        None, pattern=DNS1123_SUBDOMAIN, max_length=63,  # a label value
        description="Kueue LocalQueue: the label kueue.x-k8s.io/queue-name on the workloads; Kueue's webhook "
                    "suspends them until the queue admits the job.", examples=["team-a-gpus"])
    priorityClass: Optional[str] = Field(
        None, pattern=DNS1123_SUBDOMAIN, max_length=63,  # a label value
        description="Kueue WorkloadPriorityClass: the label kueue.x-k8s.io/priority-class (needs queue).",
        examples=["high-priority"])
    topology: Optional[Topology] = Field(
        None, description="Topology Aware Scheduling by Kueue (target jobset; needs queue).")
    multiKueue: bool = Field(
        False, description="Dispatch the job to a worker cluster through MultiKueue: spec.managedBy "
                           "kueue.x-k8s.io/multikueue (target jobset; needs queue).")
