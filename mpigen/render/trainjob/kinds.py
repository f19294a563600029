"""The Kubeflow Trainer's kinds (trainer.kubeflow.org) as mpigen.render.kinds describes them:
a TrainJob is a run (the Trainer makes its JobSet), whose pods, workers and slots are worked
out through the runtime it references (mpigen.render.trainjob.capacity), and whose immutable
fields are mpigen.render.trainjob.immutable's, with Kueue's rules of a job (its trainjob
integration), whose hostfile ConfigMap the Trainer creates (mpigen.render.trainjob.hostfile), and
what a Trainer upgrade does to it (mpigen.render.trainjob.versions);
a TrainingRuntime (namespaced) and a ClusterTrainingRuntime run nothing by themselves. Each is
validated with kubeflow-trainer-api's model of it."""

from __future__ import annotations

from typing import Callable

from mpigen.kube.kueue_immutable import JOB_RULES
from mpigen.render.kinds import Kind, every_version
from mpigen.render.trainjob import capacity
from mpigen.render.trainjob.hostfile import trainer_hostfile
from mpigen.render.trainjob.immutable import immutable_changes
from mpigen.render.trainjob.names import TRAINER_API, TRAINER_GROUP
from mpigen.render.trainjob.versions import upgrade, written_for


def _model(name: str) -> Callable[[str], type | None]:
    """The model `name` of kubeflow_trainer_api.models, for TRAINER_API."""
    def model(api: str) -> type | None:
        if api != TRAINER_API:
            return None
        from kubeflow_trainer_api import models

        return getattr(models, name)
    return model


TRAINJOB = Kind(TRAINER_GROUP, "TrainJob", "trainjobs", run=True, pods=capacity.pods, workers=capacity.workers,
                slots=capacity.slots, immutable=immutable_changes, kueue=every_version(JOB_RULES),
                model=_model("TrainerV1alpha1TrainJob"), creates=trainer_hostfile, versions_key="trainer",
                upgrade=upgrade, pod_sets=capacity.pod_sets)
# A runtime's JobSet template: the Trainer makes each TrainJob's JobSet from it.
RUNTIME_TEMPLATES = (".spec.template.spec.replicatedJobs[].template.spec.template",)
# The Trainer version a runtime mpigen wrote was rendered for, as its launcher shows it.
def _written_for(runtime: dict) -> str:
    return written_for(runtime)[0]


TRAINING_RUNTIME = Kind(TRAINER_GROUP, "TrainingRuntime", "trainingruntimes",
                        model=_model("TrainerV1alpha1TrainingRuntime"), pod_templates=RUNTIME_TEMPLATES,
                        versions_key="trainer", written_for=_written_for)
CLUSTER_TRAINING_RUNTIME = Kind(TRAINER_GROUP, "ClusterTrainingRuntime", "clustertrainingruntimes", cluster_scoped=True,
                                model=_model("TrainerV1alpha1ClusterTrainingRuntime"), pod_templates=RUNTIME_TEMPLATES,
                                versions_key="trainer", written_for=_written_for)
KINDS = (TRAINJOB, TRAINING_RUNTIME, CLUSTER_TRAINING_RUNTIME)
