"""A job's Watched at another blueprint state than the one rendered (`held`, which another
format change brings, and `completed`), made as the pipeline makes it (mpigen.pipeline.step:
the target's `watched` of the objects, then the job's part), for the promtool state tests."""

from __future__ import annotations

from mpigen.render.targets import TARGETS
from mpigen.render.watched import Watched

TARGET_OF_KIND = {"Job": "static", "JobSet": "jobset", "TrainJob": "trainjob", "MPIJob": "mpijob"}


def watched_of(objects: list[dict], group: dict, state: str) -> Watched:
    namespace, job = group["name"].split("/")[1:]
    mine = [o for o in objects if o["metadata"].get("namespace") == namespace
            and o["metadata"].get("labels", {}).get("mpigen.dev/job") == job]
    kinds = {o["kind"] for o in mine}
    target = next(TARGET_OF_KIND[k] for k in ("JobSet", "TrainJob", "MPIJob", "Job") if k in kinds)
    watched = TARGETS[target].watched(mine)
    blueprint = group["rules"][0]["annotations"]["blueprint"]
    queue = next(o["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] for o in mine
                 if "kueue.x-k8s.io/queue-name" in o["metadata"].get("labels", {}))
    return watched._replace(namespace=namespace, job=job, blueprint=blueprint, workers=2, gpus=8, dcgm=True,
                            queue=queue, state=state)
