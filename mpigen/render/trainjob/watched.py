"""What the alerts of a trainjob job watch (mpigen.render.watched): the JobSet the Trainer makes
of its TrainJob (of the TrainJob's name), whose replicated jobs are the MPI runtime's node and
launcher, in that order (the launcher `dependsOn` the node being Ready); the restart budget is
the runtime's failurePolicy.maxRestarts when mpigen writes the runtime (unknown for a runtime the
cluster has)."""

from __future__ import annotations

from mpigen.render.trainjob.names import LAUNCHER_JOB, NODE_JOB
from mpigen.render.watched import Step, Watched, replicated_jobs, replicated_pods


def watched(objects: list[dict]) -> Watched | None:
    trainjob = next((o for o in objects if o["kind"] == "TrainJob"), None)
    if trainjob is None:
        return None
    name = trainjob["metadata"]["name"]
    runtime_name = trainjob["spec"].get("runtimeRef", {}).get("name")
    runtime = next((o for o in objects if o["kind"].endswith("TrainingRuntime")
                    and o["metadata"]["name"] == runtime_name), None)
    budget, order = None, [NODE_JOB, LAUNCHER_JOB]
    if runtime is not None:
        spec = runtime["spec"]["template"]["spec"]
        budget = spec.get("failurePolicy", {}).get("maxRestarts")
        order = [rj["name"] for rj in spec.get("replicatedJobs", [])] or order
    steps = tuple(Step(step, replicated_pods(name, step), replicated_jobs(name, step)) for step in order)
    return Watched("TrainJob", name, launcher_pods=replicated_pods(name, LAUNCHER_JOB),
                   worker_pods=replicated_pods(name, NODE_JOB), launcher_jobs=replicated_jobs(name, LAUNCHER_JOB),
                   restart_budget=budget, replicated_set=name, steps=steps)
