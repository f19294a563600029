"""What the alerts of an mpijob job watch (mpigen.render.watched), as the operator runs the
MPIJob (shared/reference/mpi-operator.md): under kubeflow.org/v2beta1 the worker pods
`<job>-worker-<i>` and the launcher Job `<job>-launcher` (its backoffLimit runPolicy.backoffLimit,
else Kubernetes' default of 6; its pods' restartPolicy the Launcher replica's); under the
training-operator's kubeflow.org/v1 the launcher is a bare pod `<job>-launcher` (section 3.2),
whose retries no budget counts."""

from __future__ import annotations

from mpigen.compile.mpijob import V2BETA1
from mpigen.render.watched import Step, Watched, job_pods, literal

JOB_BACKOFF_LIMIT = 6  # a batch/v1 Job's default spec.backoffLimit


def watched(objects: list[dict]) -> Watched | None:
    mpijob = next((o for o in objects if o["kind"] == "MPIJob"), None)
    if mpijob is None:
        return None
    name = mpijob["metadata"]["name"]
    launcher, workers = f"{name}-launcher", f"{literal(name)}-worker-[0-9]+"
    replicas = mpijob["spec"].get("mpiReplicaSpecs", {})
    worker_step = (Step("worker", workers),) if "Worker" in replicas else ()
    if mpijob["apiVersion"] != V2BETA1:
        return Watched("MPIJob", name, launcher_pods=literal(launcher), worker_pods=workers,
                       steps=worker_step + (Step("launcher", literal(launcher)),))
    budget = mpijob["spec"].get("runPolicy", {}).get("backoffLimit", JOB_BACKOFF_LIMIT)
    in_place = replicas.get("Launcher", {}).get("restartPolicy") == "OnFailure"
    return Watched("MPIJob", name, launcher_pods=job_pods(launcher), worker_pods=workers,
                   launcher_jobs=literal(launcher), restart_budget=budget,
                   steps=worker_step + (Step("launcher", job_pods(launcher), literal(launcher)),),
                   restarts_counted=in_place)
