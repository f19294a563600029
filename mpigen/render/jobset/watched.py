"""What the alerts of a jobset job watch (mpigen.render.watched): its JobSet, the child Jobs and
pods of each of its replicated jobs in their order (keygen, worker, launcher: each created once
the one before it reached its `dependsOn` status), and its failurePolicy.maxRestarts. The child
Jobs' pods run with restartPolicy Never: a failure is a failed pod, never a restart in place."""

from __future__ import annotations

from mpigen.render.jobset.names import LAUNCHER_JOB, WORKER_JOB
from mpigen.render.watched import Step, Watched, replicated_jobs, replicated_pods


def watched(objects: list[dict]) -> Watched | None:
    jobset = next((o for o in objects if o["kind"] == "JobSet"), None)
    if jobset is None:
        return None
    name = jobset["metadata"]["name"]
    steps = tuple(Step(rj["name"], replicated_pods(name, rj["name"]), replicated_jobs(name, rj["name"]))
                  for rj in jobset["spec"]["replicatedJobs"])
    return Watched("JobSet", name, launcher_pods=replicated_pods(name, LAUNCHER_JOB),
                   worker_pods=replicated_pods(name, WORKER_JOB), launcher_jobs=replicated_jobs(name, LAUNCHER_JOB),
                   restart_budget=jobset["spec"].get("failurePolicy", {}).get("maxRestarts"), replicated_set=name,
                   steps=steps)
