"""What each target says its jobs run as (Target.watched): the patterns match the names the
controllers give what they make of the rendered objects, and no other job's or role's.

The names are the controllers' (facts of this test, not mpigen's): a StatefulSet's pod
<set>-<ordinal>; a Job's pod <job>-<5 characters of utilrand's alphabet>, an Indexed Job's
<job>-<index>-<5>; JobSet's child Job <jobset>-<replicated job>-<index> (v0.12.0
pkg/util/placement/placement.go GenJobName); the MPI Operator v2beta1's launcher Job
<job>-launcher and worker pods <job>-worker-<i>, the training-operator v1's launcher pod
<job>-launcher (kubeflow/mpi-operator caa3c47 pkg/controller/mpi_job_controller.go, kubeflow/
training-operator v1.9.0 pkg/controller.v1/mpi/mpijob_controller.go). Prometheus anchors a
label matcher's expression at both ends, as fullmatch does."""

from __future__ import annotations

import re

import pytest

from mpigen.compile.mpijob import V1
from mpigen.render.targets import TARGETS
from tests.support.blueprints import blueprint_yaml
from tests.support.rendering import render_text

JOB = "train"


def watched(target: str, **options):
    text = blueprint_yaml(JOB, spec="image: example.com/train:1\nworkers: 2\ngpusPerWorker: 4\ncommand: [python, train.py]\n")
    objects = render_text(text, target=target, **options)
    return TARGETS[target].watched(objects)


def matches(pattern: str | None, names: list[str]) -> list[bool]:
    return [pattern is not None and re.fullmatch(pattern, name) is not None for name in names]


# Batch Jobs that are not the launcher's: the workers' and key generator's of a JobSet, the
# Trainer's node Job, another job's launcher.
OTHER_JOBS = ["train-worker-0", "train-keygen-0", "train-node-0", "train2-launcher", "train-launcher-x"]
# target -> (options, launcher Jobs, launcher pods, worker pods, pod names of neither)
CASES = {
    "static": ({}, ["train-launcher"], ["train-launcher-x7k2p"], ["train-worker-0", "train-worker-11"],
               ["train-launcher", "train-worker-x", "train2-worker-0", "train-launcher-x7k2p-1"]),
    "jobset": ({}, ["train-launcher-0"], ["train-launcher-0-0-x7k2p"], ["train-worker-0-0-b4c9d", "train-worker-0-1-q8w2z"],
               ["train-keygen-0-0-abcde", "train-worker-0-0", "train-launcher-0", "other-worker-0-0-b4c9d"]),
    "trainjob": ({}, ["train-launcher-0"], ["train-launcher-0-0-x7k2p"], ["train-node-0-0-b4c9d", "train-node-0-1-q8w2z"],
                 ["train-worker-0-0-b4c9d", "train-initializer-0-0-abcde", "train-node-0-0"]),
    "mpijob": ({}, ["train-launcher"], ["train-launcher-x7k2p"], ["train-worker-0", "train-worker-1"],
               ["train-worker", "train-launcher", "train-x-worker-0"]),
}


@pytest.mark.parametrize("target", sorted(CASES))
def test_the_patterns_match_the_controllers_names(target):
    options, jobs, launchers, workers, neither = CASES[target]
    seen = watched(target, **options)
    assert all(matches(seen.launcher_jobs, jobs))
    assert all(matches(seen.launcher_pods, launchers))
    assert all(matches(seen.worker_pods, workers))
    for pattern in (seen.launcher_pods, seen.worker_pods):
        assert not any(matches(pattern, neither)), pattern
    assert not any(matches(seen.launcher_jobs, OTHER_JOBS + launchers + workers))
    assert not any(matches(seen.launcher_pods, workers)) and not any(matches(seen.worker_pods, launchers))


def test_the_restart_budget_and_the_counted_jobset():
    assert watched("static").restart_budget == 6  # the launcher Job's backoffLimit as rendered
    assert watched("jobset").replicated_set == JOB and watched("trainjob").replicated_set == JOB
    assert watched("static").replicated_set is None and watched("mpijob").replicated_set is None


def test_the_training_operators_launcher_is_a_pod_with_no_budget():
    own = TARGETS["mpijob"].options.build({"api": V1})
    seen = watched("mpijob", own=own)
    assert seen.launcher_jobs is None and seen.restart_budget is None
    assert matches(seen.launcher_pods, ["train-launcher", "train-launcher-x7k2p"]) == [True, False]
