"""A job's objects split by run: the run Git has (Watched.name) and older runs still present.

A run is named by the object its target makes the job of (TOP_KINDS: the static launcher Job,
the MPIJob, the JobSet, the TrainJob), which under a GitOps profile carries the run's hash
(`<job>-<run>`, mpigen.render.gitops); every object the controllers make for it is owned by it,
directly or down a chain (mpigen.status.grouping), so an object belongs to the run of the
root of its owners. The static target's workers are a StatefulSet `<run>-worker` beside the
launcher Job `<run>-launcher` (mpigen.render.static), which owns nothing of the Job's: its run
is the launcher's of the same `<run>`. Objects rooted in neither (ConfigMaps, RBAC, runtimes)
say nothing of a run's state and are left out."""

from __future__ import annotations

from dataclasses import dataclass, field

from mpigen.status.grouping import owner_uids
from mpigen.status.reads import TOP_KINDS

LAUNCHER_SUFFIX, WORKER_SUFFIX = "-launcher", "-worker"  # the static target's names (mpigen.compile.names)
MAX_OWNER_DEPTH = 8  # deeper than any chain the controllers build (TrainJob > JobSet > Job > Pod)


@dataclass
class Run:
    """The objects of one run, by kind."""

    name: str
    top: dict | None = None
    objects: list[dict] = field(default_factory=list)

    def of_kind(self, kind: str) -> list[dict]:
        return [obj for obj in self.objects if obj["kind"] == kind]

    @property
    def pods(self) -> list[dict]:
        return self.of_kind("Pod")

    @property
    def jobs(self) -> list[dict]:
        return [obj for obj in self.of_kind("Job") if obj is not self.top]

    @property
    def workloads(self) -> list[dict]:
        return self.of_kind("Workload")


def root_of(obj: dict, by_uid: dict[str, dict]) -> dict:
    """The object at the top of its chain of owners among those listed."""
    for _ in range(MAX_OWNER_DEPTH):
        owner = next((by_uid[uid] for uid in owner_uids(obj) if uid in by_uid), None)
        if owner is None or owner is obj:
            return obj
        obj = owner
    return obj


def run_name(root: dict, target: str) -> str | None:
    """The run a root object names (None: it is no run's)."""
    name = root["metadata"]["name"]
    if root["kind"] == TOP_KINDS[target]:
        return name
    if target == "static" and root["kind"] == "StatefulSet" and name.endswith(WORKER_SUFFIX):
        return name[: -len(WORKER_SUFFIX)] + LAUNCHER_SUFFIX
    return None


def split_runs(objects: list[dict], target: str, current: str) -> tuple[Run, list[Run]]:
    """The current run (named `current`, maybe with no objects) and the others, by name."""
    by_uid = {obj["metadata"]["uid"]: obj for obj in objects if obj["metadata"].get("uid")}
    runs: dict[str, Run] = {current: Run(current)}
    for obj in objects:
        root = root_of(obj, by_uid)
        name = run_name(root, target)
        if name is None:
            continue
        run = runs.setdefault(name, Run(name))
        run.objects.append(obj)
        if obj is root and obj["kind"] == TOP_KINDS[target]:
            run.top = obj
    stale = [runs[name] for name in sorted(runs) if name != current]
    return runs[current], stale
