"""One job's answer (mpigen.status.model.Verdict) from what Git says of it (Wanted) and what the
cluster has of it (Seen), in this order:

1. the run Git has (Watched.name) and older runs still present (mpigen.status.runs);
2. none of the run's objects: `stopped` when Git says `completed` (a queued job's objects
   are deleted, mpigen.render.queued), else `missing`;
3. the controller's finish (mpigen.status.controller_state): `succeeded`, `failed` with its
   reason and failing pod;
4. Git says `completed` and the controller suspended the run (jobset, trainjob, mpijob write
   suspend) or the static workers are scaled to 0: `stopped`;
5. Kueue has not admitted it (mpigen.status.kueue_state): `held` by an admission gate, or
   `queued` with its queue, position and why;
6. resumed, no pod bound to a node: `pending` (a suspended run without a queue too: its
   controller has not resumed it);
7. the first step not done (mpigen.status.progress): `starting`, else `running` with the
   ranks' pods Ready, the restarts used of the budget and the GPUs held.
"""

from __future__ import annotations

from mpigen.status import controller_state, kueue_state
from mpigen.status.grouping import group
from mpigen.status.model import Seen, Verdict, Wanted
from mpigen.status.pods import accelerators, scheduled
from mpigen.status.progress import progress
from mpigen.status.reads import READS, reads
from mpigen.status.runs import Run, split_runs

__all__ = ["READS", "group", "judge", "reads"]


def judge(wanted: Wanted, seen: Seen) -> Verdict:
    watched = wanted.watched
    run, stale = split_runs(seen.objects, wanted.target, watched.name)
    stale_runs = tuple(other.name for other in stale)
    common = dict(stale_runs=stale_runs, restart_budget=watched.restart_budget)
    if run.top is None and not run.objects:
        if watched.state == "completed":
            return Verdict("stopped", "stopped in Git: none of its objects left", **common)
        return Verdict("missing", "none of its objects in the cluster", **common)
    common["run"] = run.name
    if run.top is None:
        return _without_top(wanted, run, common)
    reading = controller_state.READERS[wanted.target](run, watched)
    common["restarts"] = reading.restarts
    if reading.finished == "succeeded":
        return Verdict("succeeded", "the launcher succeeded", **common)
    if reading.finished == "failed":
        pod = f"; pod {reading.failing_pod}: {reading.pod_failure}" if reading.failing_pod else ""
        return Verdict("failed", f"{reading.reason or 'failed'}{pod}", reason=reading.reason,
                       failing_pod=reading.failing_pod, **common)
    if watched.state == "completed" and (reading.suspended or reading.scaled_down):
        how = "its workers scaled to 0" if reading.scaled_down else "suspended"
        return Verdict("stopped", f"stopped in Git: {how}", **common)
    return _resumed(wanted, seen, run, reading.suspended, common)


def _without_top(wanted: Wanted, run: Run, common: dict) -> Verdict:
    """Objects of the run without the one it is of: what is left of it once deleted (static:
    the workers beside a deleted launcher Job)."""
    if wanted.watched.state == "completed":
        return Verdict("stopped", f"stopped in Git: its {wanted.watched.kind} is gone", **common)
    return Verdict("missing", f"its {wanted.watched.kind} {run.name} is not in the cluster", **common)


def _resumed(wanted: Wanted, seen: Seen, run: Run, suspended: bool, common: dict) -> Verdict:
    watched = wanted.watched
    wait = kueue_state.waiting(run, seen.positions, watched.queue)
    if wait is not None and (suspended or not run.pods):
        return _waiting(wait, common)
    if suspended:
        return Verdict("pending", "suspended: its controller has not resumed it", **common)
    if not any(scheduled(pod) for pod in run.pods):
        return Verdict("pending", "created, no pod scheduled", **common)
    at = progress(run, watched)
    gpus = accelerators(run.pods)
    if at.step == "workers":
        return Verdict("starting", f"starting: workers {at.ready}/{at.expected} Ready", step=at.step,
                       ready=at.ready, expected=at.expected, gpus=gpus, **common)
    if at.step is not None:
        return Verdict("starting", f"starting: {at.step}", step=at.step, gpus=gpus, **common)
    return Verdict("running", _running(at.ready, at.expected, common, gpus), ready=at.ready, expected=at.expected,
                   gpus=gpus, **common)


def _waiting(wait: kueue_state.Waiting, common: dict) -> Verdict:
    if wait.state == "held":
        return Verdict("held", f"held in {wait.queue} by {wait.gate}", queue=wait.queue, **common)
    where = f"queued in {wait.queue}" + (f", position {wait.position}" if wait.position is not None else "")
    return Verdict("queued", where + (f": {wait.reason}" if wait.reason else ""), queue=wait.queue,
                   position=wait.position, reason=wait.reason, **common)


def _running(ready: int, expected: int, common: dict, gpus: int) -> str:
    words = [f"ranks {ready}/{expected} Ready"]
    if common.get("restarts") is not None:
        budget = common.get("restart_budget")
        words.append(f"restarts {common['restarts']}" + (f"/{budget}" if budget is not None else ""))
    if gpus:
        words.append(f"{gpus} GPUs")
    return "running: " + ", ".join(words)
