"""What the alerts of a jobset job watch (mpigen.render.watched): its JobSet, the child Jobs of
its launcher replicated job and the pods of its launcher and worker replicated jobs, and its
failurePolicy.maxRestarts."""

from __future__ import annotations

from mpigen.render.jobset.names import LAUNCHER_JOB, WORKER_JOB
from mpigen.render.watched import Watched, replicated_jobs, replicated_pods


def watched(objects: list[dict]) -> Watched | None:
    jobset = next((o for o in objects if o["kind"] == "JobSet"), None)
    if jobset is None:
        return None
    name = jobset["metadata"]["name"]
    return Watched("JobSet", name, launcher_pods=replicated_pods(name, LAUNCHER_JOB),
                   worker_pods=replicated_pods(name, WORKER_JOB), launcher_jobs=replicated_jobs(name, LAUNCHER_JOB),
                   restart_budget=jobset["spec"].get("failurePolicy", {}).get("maxRestarts"), replicated_set=name)
