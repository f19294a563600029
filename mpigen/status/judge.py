"""One job's answer (mpigen.status.model.Verdict) from what Git says of it (Wanted) and what the
cluster has of it (Seen), in this order:

1. the run Git has (Watched.name) and older runs still present (mpigen.status.runs);
2. none of the run's objects: `stopped` when Git says `completed` (a queued job's objects
   are deleted, mpigen.render.kueue), else `missing`;
3. the controller's finish (mpigen.status.controller_state): `succeeded`, `failed` with its
   reason and failing pod;
4. the static workers scaled to 0, or the run suspended (jobset, trainjob, mpijob write
   suspend) where no Kueue will resume it (no queue label, no queue in Git, no Workload):
   `stopped`, as Git says when it says `completed`, a stop not undone yet when it says
   `running`. Kueue resumes a suspended job it manages once admitted (v0.19.2
   pkg/controller/jobframework/reconciler.go step 7, hence mpigen.render.kueue deletes a
   queued job to stop it), so such a job is not stopped but waits (step 5); Kueue never scales
   a StatefulSet (pkg/controller/jobs/statefulset);
5. Kueue has not admitted it (mpigen.status.kueue_state): `held` by an admission gate, or
   `queued` with its queue, position and why;
6. resumed, no pod bound to a node: `pending` (a suspended run Kueue admitted too: its job
   reconciler has not resumed it yet);
7. the first step not done (mpigen.status.progress): `starting`, else `running` with the
   ranks' pods Ready, the restarts used of the budget and the GPUs held.

The detail adds to the state, never restates it. When Git says `completed` or `held` and the
cluster runs the job, or will (mpigen.status.model.RUNS), the detail says so first: the
lifecycle failure status is for (mpigen.status.model.as_git_says counts it against Git).
"""

from __future__ import annotations

from dataclasses import replace

from mpigen.status import controller_state, kueue_state
from mpigen.status.grouping import group
from mpigen.status.model import RUNS, Seen, Verdict, Wanted
from mpigen.status.pods import accelerators, scheduled
from mpigen.status.progress import progress
from mpigen.status.reads import READS, reads
from mpigen.status.runs import Run, split_runs

__all__ = ["READS", "group", "judge", "reads"]

# A step other than the workers' (whose detail counts its pods Ready), in words.
STEP_WORDS = {"keygen": "keygen: the SSH keys not made yet", "launcher": "launcher: its pod not Ready yet"}


# Why the cluster still runs a job Git stops or holds (the words after "Git says <state>: still
# <cluster's state>"). A hold is Kueue's admission gate, which its webhook takes only when the
# job is created and never adds to one (v0.19.2 pkg/util/webhook/validation_admissiongatedby.go,
# mpigen.render.kueue): a job made before the hold runs on until stopped.
NOT_YET = {"completed": "not synced yet, or the stop was undone",
           "held": "not synced yet, or made before the hold, which Kueue takes only when a job is created "
                   "(stop it, then hold it)"}


def judge(wanted: Wanted, seen: Seen) -> Verdict:
    verdict = _cluster_answer(wanted, seen)
    git = wanted.watched.state
    if git in NOT_YET and verdict.state in RUNS:
        words = f"Git says {git}: still {verdict.state}; {NOT_YET[git]}"
        return replace(verdict, detail=f"{words}; {verdict.detail}" if verdict.detail else words)
    return verdict


def _cluster_answer(wanted: Wanted, seen: Seen) -> Verdict:
    watched = wanted.watched
    run, stale = split_runs(seen.objects, wanted.target, watched.name)
    stale_runs = tuple(other.name for other in stale)
    common = dict(stale_runs=stale_runs, restart_budget=watched.restart_budget)
    if run.top is None and not run.objects:
        if watched.state == "completed":
            return Verdict("stopped", "none of its objects left", **common)
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
    if reading.scaled_down or (reading.suspended and not _kueue_manages(run, watched.queue)):
        return _stopped(watched.state, reading.scaled_down, common)
    return _resumed(wanted, seen, run, reading.suspended, common)


def _kueue_manages(run: Run, queue: str | None) -> bool:
    """Kueue manages the run (and resumes it once admitted): it names a queue, or has a Workload."""
    return queue is not None or kueue_state.queue_of(run) is not None or bool(run.workloads)


def _stopped(git: str, scaled_down: bool, common: dict) -> Verdict:
    """Stopped: as Git says when it says `completed`; else a stop Git no longer asks for."""
    how = "its workers scaled to 0" if scaled_down else "suspended"
    if git == "completed":
        return Verdict("stopped", how, **common)
    return Verdict("stopped", f"Git says {git}: {how}; not synced yet, or stopped by hand", **common)


def _without_top(wanted: Wanted, run: Run, common: dict) -> Verdict:
    """Objects of the run without the one it is of: what is left of it once deleted (static:
    the workers beside a deleted launcher Job)."""
    if wanted.watched.state == "completed":
        return Verdict("stopped", f"its {wanted.watched.kind} is gone", **common)
    return Verdict("missing", f"its {wanted.watched.kind} {run.name} is not in the cluster", **common)


def _resumed(wanted: Wanted, seen: Seen, run: Run, suspended: bool, common: dict) -> Verdict:
    watched = wanted.watched
    wait = kueue_state.waiting(run, seen.positions, watched.queue)
    if wait is not None and (suspended or not run.pods):
        return _waiting(wait, common)
    if suspended:
        return Verdict("pending", "suspended: admitted, Kueue has not resumed it yet", **common)
    if not any(scheduled(pod) for pod in run.pods):
        return Verdict("pending", "created, no pod scheduled", **common)
    at = progress(run, watched)
    gpus = accelerators(run.pods)
    if at.step == "workers":
        return Verdict("starting", f"workers {at.ready}/{at.expected} Ready", step=at.step,
                       ready=at.ready, expected=at.expected, gpus=gpus, **common)
    if at.step is not None:
        return Verdict("starting", STEP_WORDS.get(at.step, at.step), step=at.step, gpus=gpus, **common)
    return Verdict("running", _running(at.ready, at.expected, common, gpus), ready=at.ready, expected=at.expected,
                   gpus=gpus, **common)


def _waiting(wait: kueue_state.Waiting, common: dict) -> Verdict:
    if wait.state == "held":
        return Verdict("held", f"in {wait.queue} by {wait.gate}", queue=wait.queue, **common)
    where = f"in {wait.queue}" + (f", position {wait.position}" if wait.position is not None else "")
    return Verdict("queued", where + (f": {wait.reason}" if wait.reason else ""), queue=wait.queue,
                   position=wait.position, reason=wait.reason, **common)


def _running(ready: int, expected: int, common: dict, gpus: int) -> str:
    words = [f"ranks {ready}/{expected} Ready"]
    if common.get("restarts") is not None:
        budget = common.get("restart_budget")
        words.append(f"restarts {common['restarts']}" + (f"/{budget}" if budget is not None else ""))
    if gpus:
        words.append(f"{gpus} GPUs")
    return ", ".join(words)
