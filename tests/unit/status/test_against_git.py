"""A job the cluster does not run as Git says: Git stops (`completed`) or holds (`held`) it and
the cluster still runs it, or will; Git runs it and the cluster has it stopped where no Kueue
will resume it. These are the lifecycle failures `mpigen status` is for, so they say so and
count against Git (exit 1, mpigen.status.model.as_git_says).

Each case puts Git at one state (the blueprint rendered at it, tests.support.status_wanted) and
the cluster at what it has of the render before it (tests.support.status_world.objects_at,
from the controllers' ports): the sync has not applied Git's last change, or the cluster
undid it. Git's `held` reaches a job only at its creation: Kueue's webhook refuses the
admission gate on an existing job (Kueue v0.19.2 pkg/util/webhook/
validation_admissiongatedby.go, mpigen.render.kueue), so a job made before the hold runs on."""

from __future__ import annotations

import pytest

from mpigen.compile.mpijob import V1
from mpigen.status.grouping import group
from mpigen.status.judge import judge
from mpigen.status.model import as_git_says
from tests.support.status_wanted import NAMESPACE, QUEUE, render
from tests.support.status_world import objects_at

TARGETS = ("static", "mpijob", "jobset", "trainjob")
STOP_UNDONE = "not synced yet, or the stop was undone"


def answer(target: str, git: str, queued: bool, before: str, moment: str, mpijob_api: str | None = None):
    """The verdict, and whether it is as Git says, when Git says `git` and the cluster has the
    run of Git's `before` at `moment`."""
    wanted = render(target, git, queued, mpijob_api=mpijob_api).wanted
    objects = objects_at(target, render(target, before, queued, mpijob_api=mpijob_api).objects, moment, queued)
    verdict = judge(wanted, group([wanted], objects)[(NAMESPACE, wanted.job)])
    return verdict, as_git_says(git, verdict.state)


@pytest.mark.parametrize("queued", [False, True])
@pytest.mark.parametrize("target", TARGETS)
def test_git_stops_it_and_it_still_runs(target, queued):
    """A queued job's stop deletes its objects; any other's suspends it or scales its workers to
    0: either not applied yet, its run goes on."""
    verdict, passes = answer(target, "completed", queued, "running", "running")
    assert (verdict.state, verdict.ready, verdict.expected, verdict.gpus, passes) == ("running", 2, 2, 8, False)
    assert verdict.detail == f"Git says completed: still running; {STOP_UNDONE}; ranks 2/2 Ready, restarts 0/6, 8 GPUs"


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("moment, state", [("workers", "starting"), ("created", "pending"), ("queued", "queued")])
def test_git_stops_it_and_it_still_starts_or_waits_to(target, moment, state):
    """Not running yet, but it will (admitted by Kueue once there is room, scheduled, started)."""
    verdict, passes = answer(target, "completed", True, "running", moment)
    assert (verdict.state, passes) == (state, False)
    assert verdict.detail.startswith(f"Git says completed: still {state}; {STOP_UNDONE}")


@pytest.mark.parametrize("target", TARGETS)
def test_git_holds_it_and_it_runs_since_before_the_hold(target):
    verdict, passes = answer(target, "held", True, "running", "running")
    assert (verdict.state, passes) == ("running", False)
    assert verdict.detail.startswith("Git says held: still running; not synced yet, or made before the hold, "
                                     "which Kueue takes only when a job is created (stop it, then hold it); ranks 2/2")


@pytest.mark.parametrize("target", TARGETS)
def test_a_job_that_finished_before_git_stopped_it_is_as_git_says(target):
    verdict, passes = answer(target, "completed", False, "running", "succeeded")
    assert (verdict.state, verdict.detail, passes) == ("succeeded", "the launcher succeeded", True)


@pytest.mark.parametrize("target", TARGETS)
def test_git_holds_a_job_the_cluster_holds(target):
    verdict, passes = answer(target, "held", True, "held", "held")
    assert (verdict.state, verdict.detail, passes) == ("held", f"in {QUEUE} by mpigen.dev/held", True)


@pytest.mark.parametrize("target, how", [("static", "its workers scaled to 0"), ("mpijob", "suspended"),
                                         ("jobset", "suspended"), ("trainjob", "suspended")])
def test_git_runs_it_and_the_cluster_has_it_stopped(target, how):
    """No queue: no Kueue resumes it (it resumes only a job it manages, reconciler.go step 7),
    only the sync of Git's `running` (the stop's suspend or 0 replicas still there)."""
    verdict, passes = answer(target, "running", False, "completed", "stopped")
    assert (verdict.state, passes) == ("stopped", False)
    assert verdict.detail == f"Git says running: {how}; not synced yet, or stopped by hand"


def test_the_training_operators_v1_mpijob_git_stops_that_still_runs_and_the_reverse():
    """kubeflow.org/v1 (the training-operator's, tests.support.status_training_operator_world):
    runPolicy.suspend stops it (common/job.go deletes its pods), as v2beta1's does."""
    verdict, passes = answer("mpijob", "completed", False, "running", "running", V1)
    assert (verdict.state, passes) == ("running", False)
    assert verdict.detail == f"Git says completed: still running; {STOP_UNDONE}; ranks 2/2 Ready, 8 GPUs"
    verdict, passes = answer("mpijob", "running", False, "completed", "stopped", V1)
    assert (verdict.state, verdict.detail, passes) == (
        "stopped", "Git says running: suspended; not synced yet, or stopped by hand", False)


@pytest.mark.parametrize("git, passes", [("running", True), ("held", False)])
def test_a_queue_on_the_v1_mpijob_holds_nothing(git, passes):
    """Kueue manages no kubeflow.org/v1 MPIJob: the training-operator runs it, queue label,
    admission gate and all; a hold Git writes on it is not honoured."""
    verdict, as_git = answer("mpijob", git, True, git, "running", V1)
    assert (verdict.state, verdict.queue, as_git) == ("running", None, passes)


@pytest.mark.parametrize("target", TARGETS)
def test_git_runs_it_and_kueue_has_it_suspended_is_queued(target):
    """With a queue, a suspended job is Kueue's to resume: it waits, as Git says."""
    verdict, passes = answer(target, "running", True, "running", "queued")
    assert (verdict.state, verdict.queue, passes) == ("queued", QUEUE, True)
