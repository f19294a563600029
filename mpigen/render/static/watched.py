"""What the alerts of a static job watch (mpigen.render.watched): the worker StatefulSet's pods
(`<job>-worker-<i>`), then the launcher Job and its pods, and the launcher's backoffLimit; its
pods' restartPolicy says whether a failure restarts the container in place (OnFailure, which the
Job controller counts against backoffLimit) or fails the pod."""

from __future__ import annotations

from mpigen.render.watched import Step, Watched, job_pods, literal, set_pods

ROLE = "mpi_role_type"  # the operator's label of the launcher Job and the worker StatefulSet


def watched(objects: list[dict]) -> Watched | None:
    """The launcher Job by its role label, and the workers' StatefulSet (none: a job of no workers)."""
    launcher = next((o for o in objects if o["kind"] == "Job" and o["metadata"]["labels"].get(ROLE) == "launcher"),
                    None)
    if launcher is None:
        return None
    name = launcher["metadata"]["name"]
    workers = next((o["metadata"]["name"] for o in objects
                    if o["kind"] == "StatefulSet" and o["metadata"]["labels"].get(ROLE) == "worker"), None)
    steps = ((Step("worker", set_pods(workers)),) if workers is not None else ()) + (
        Step("launcher", job_pods(name), literal(name)),)
    in_place = launcher["spec"]["template"]["spec"].get("restartPolicy") == "OnFailure"
    return Watched("Job", name, launcher_pods=job_pods(name),
                   worker_pods=set_pods(workers) if workers is not None else "",
                   launcher_jobs=literal(name), restart_budget=launcher["spec"].get("backoffLimit"), steps=steps,
                   restarts_counted=in_place)
