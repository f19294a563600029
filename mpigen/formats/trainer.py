"""The Kubeflow Trainer runtime a blueprint's TrainJob references (target trainjob): one the
cluster has, by name, or one mpigen writes from the blueprint."""

from typing import Literal, Optional

from pydantic import Field, model_validator

from mpigen.formats.base import Model
from mpigen.kube.names import DNS1123_SUBDOMAIN

RuntimeKind = Literal["TrainingRuntime", "ClusterTrainingRuntime"]


class Runtime(Model):
    """`name` alone: the TrainJob references that runtime, which the cluster has, and mpigen
    writes none. `emit`: mpigen writes the runtime from the blueprint, of that kind, named
    `name` when given."""

    name: Optional[str] = Field(
        None, pattern=DNS1123_SUBDOMAIN, max_length=253,
        description="Without emit: an existing runtime to reference (e.g. a platform team's ClusterTrainingRuntime); "
                    "mpigen writes none. With emit: the name of the runtime mpigen writes (default: the TrainJob's "
                    "name for a TrainingRuntime, mpigen-<hash of its content> for a ClusterTrainingRuntime).",
        examples=["mpi-openmpi"])
    kind: Optional[RuntimeKind] = Field(
        None, description="Kind of the named, existing runtime: ClusterTrainingRuntime (default, as the "
                          "Trainer's runtimeRef) or TrainingRuntime (in the job's namespace).",
        examples=["ClusterTrainingRuntime"])
    emit: Optional[RuntimeKind] = Field(
        None, description="Write the runtime from the blueprint: TrainingRuntime (the default when spec.runtime "
                          "names none: one per job, in its namespace) or ClusterTrainingRuntime (cluster-scoped; "
                          "jobs whose runtimes are the same share one).",
        examples=["ClusterTrainingRuntime"])

    @model_validator(mode="after")
    def _one_meaning(self) -> "Runtime":
        if self.emit is not None and self.kind is not None:
            raise ValueError("kind is the kind of an existing runtime, emit the kind of the one mpigen writes; "
                             "give one of them")
        if self.emit is None and self.name is None:
            raise ValueError("give name (an existing runtime) or emit (the kind of runtime mpigen writes)")
        return self

    @property
    def named(self) -> bool:
        """Whether the runtime is the cluster's own (mpigen writes none)."""
        return self.emit is None
