"""Gang scheduling that cannot start, in one place: a group (a PodGroup's minAvailable) that
counts more pods than it can gather before it starts never starts. It gathers the workers and
the launcher, or only the workers where the launcher is created once they are ready (a GitOps
profile applies it after them: mpigen.check.shared_rules; the MPI Operator's waitForWorkers:
mpigen.render.mpijob.checks). Also the blueprint's gang fields that only some schedulers'
PodGroups have, and a group's resources too large to add up (check_gang, a rule of the
document's fields)."""

from __future__ import annotations

from mpigen.errors import Diagnostic, error
from mpigen.kube.quantity import MAX as MAX_QUANTITY, parse
from mpigen.load.document import Document
from mpigen.validate.fields import Fields

MIN_AVAILABLE = ("spec", "scheduling", "gang", "minAvailable")


def gang_pods(workers: int, launcher_waits: bool) -> int:
    """The pods a gang gathers before it starts: the workers, and the launcher unless it is
    created only once the workers are ready (`launcher_waits`)."""
    return workers + (0 if launcher_waits else 1)


def never_starts(min_available: int | None, pods: int) -> bool:
    """Whether a gang of `min_available` members (None: the render's default) never starts when
    only `pods` pods come before it does."""
    return min_available is not None and min_available > pods


def launcher_applied_later(doc: Document, min_available: int | None, workers: int, gitops: str) -> list[Diagnostic]:
    """Under a GitOps profile the launcher is applied after the workers are ready (Argo CD
    waves, Flux dependsOn): a gang that counts the launcher never starts."""
    if not never_starts(min_available, gang_pods(workers, launcher_waits=True)):
        return []
    return [error(doc.value_mark(MIN_AVAILABLE),
                  f"spec.scheduling.gang.minAvailable: {min_available} counts the launcher, but with --gitops "
                  f"{gitops} the launcher is applied only once the workers are ready, and the workers wait for the "
                  f"whole group: nothing would start; use minAvailable: {workers}, or remove it "
                  "(that is the default)")]


def check_gang(f: Fields, out: list[Diagnostic]) -> None:
    loc = ("spec", "scheduling", "gang")
    if not f.ok(loc, ("spec", "workers"), ("spec", "launcher")) or not isinstance(f.get(loc), dict):
        return
    gang = f.get(loc)
    scheduler = gang.get("scheduler")
    if gang.get("queue") is not None and scheduler != "volcano":
        out.append(error(f.doc.key_mark(loc + ("queue",)),
                         f"spec.scheduling.gang.queue: {scheduler} PodGroups have no queue (only Volcano's do); "
                         "remove it, or use spec.scheduling.queue for a Kueue queue"))
    if gang.get("scheduleTimeoutSeconds") is not None and scheduler != "scheduler-plugins":
        out.append(error(f.doc.key_mark(loc + ("scheduleTimeoutSeconds",)),
                         f"spec.scheduling.gang.scheduleTimeoutSeconds: only scheduler-plugins PodGroups have it, "
                         f"not {scheduler}'s; remove it"))
    _check_group_resources(f, out, gang)
    members = gang.get("minAvailable")
    pods = gang_pods(f.get(("spec", "workers"), 1), launcher_waits=False)
    if never_starts(members, pods):
        out.append(error(f.doc.value_mark(MIN_AVAILABLE),
                         f"spec.scheduling.gang.minAvailable: {members} is more than the job's {pods} pods "
                         "(the workers and the launcher), so the group would never start; use at most "
                         f"{pods}"))


def _check_group_resources(f: Fields, out: list[Diagnostic], gang: dict) -> None:
    """A PodGroup's minResources add up the resources of its pods: the sum must still be a
    quantity Kubernetes holds (at most the workers and the launcher count)."""
    resources = ("spec", "resources")
    if gang.get("scheduler") == "kube-batch" or not f.ok(resources):
        return
    workers = f.get(("spec", "workers"), 1)
    worker, launcher = (f.get(resources + (role,), {}) or {} for role in ("worker", "launcher"))
    for name in sorted(set(worker) | set(launcher)):
        total = parse(str(worker.get(name, 0))) * workers + parse(str(launcher.get(name, 0)))
        if total > MAX_QUANTITY:
            role = "worker" if name in worker else "launcher"
            out.append(error(f.doc.value_mark(resources + (role, name)),
                             f"spec.resources.{role}.{name}: the PodGroup's minResources add up {name} over the "
                             f"job's pods ({workers} workers and the launcher), more than the largest quantity "
                             f"Kubernetes holds, 2^63-1; use a smaller value"))
