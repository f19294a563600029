"""JobSets, TrainJobs and Kubeflow Trainer runtimes against their APIs, with Kubeflow's pydantic
models of them (the PyPI package kubeflow-trainer-api, generated from the Trainer's, JobSet's
and Kubernetes' OpenAPI schemas). The models
drop keys they do not know; read strictly, as the API server's strict field validation
does, every key of the object that the model did not keep is an unknown field. What the
models serialise (quantities as floats, defaults added) is never used: only whether the
object validates, and which of its keys it dropped."""

from __future__ import annotations

from pydantic import ValidationError

JOBSET_API = "jobset.x-k8s.io/v1alpha2"
TRAINER_API = "trainer.kubeflow.org/v1alpha1"
# (apiVersion, kind) -> the model's name in kubeflow_trainer_api.models
MODELS = {(JOBSET_API, "JobSet"): "JobsetV1alpha2JobSet",
          (TRAINER_API, "TrainJob"): "TrainerV1alpha1TrainJob",
          (TRAINER_API, "TrainingRuntime"): "TrainerV1alpha1TrainingRuntime",
          (TRAINER_API, "ClusterTrainingRuntime"): "TrainerV1alpha1ClusterTrainingRuntime"}


def validate_kubeflow(obj: dict) -> list[str]:
    """The problems of one object of a kind in MODELS, each `path: message`; none when it is valid."""
    from kubeflow_trainer_api import models

    model_class = getattr(models, MODELS[obj.get("apiVersion"), obj.get("kind")])
    try:
        model = model_class.from_dict(obj)
    except ValidationError as exc:
        # The models validate each nested object on its own: the location is within it.
        return [f"{'.'.join(str(p) for p in e['loc']) or 'object'} (of a {exc.title}): {e['msg']}"
                for e in exc.errors()]
    return [f"{'.'.join(str(p) for p in path)}: unknown field" for path in dropped(obj, model.to_dict())]


def dropped(given, kept, path: tuple = ()) -> list[tuple]:
    """The paths of the keys of `given` that `kept` (the model's dump of it) lacks."""
    if isinstance(given, dict):
        if not isinstance(kept, dict):
            return [path] if given else []
        return [p for key, value in given.items()
                for p in ([path + (key,)] if key not in kept else dropped(value, kept[key], path + (key,)))]
    if isinstance(given, list) and isinstance(kept, list) and len(given) == len(kept):
        return [p for i, (a, b) in enumerate(zip(given, kept)) for p in dropped(a, b, path + (i,))]
    return []
