"""runPolicy.failurePolicy rendered by each target (issue 33): the objects pass the API
servers' own rules for podFailurePolicy and failurePolicy, and the controllers, as their
sources act (tests/support/failure_policies.py), do what the blueprint says: a fail-fast
exit code ends the job, a disruption restarts it without counting, anything else restarts
it counted against runPolicy.backoffLimit."""

from __future__ import annotations

import pytest

from mpigen.review.schemas import validate_object
from tests.support.blueprints import blueprint_text
from tests.support.failure_policies import (FailedJob, FailedPod, job_spec_errors, jobset_decision, jobset_errors,
                                            match_pod_failure_policy, restart_counts)
from tests.support.rendering import render_text

# The worked example of docs/blueprints.md: exit code 3 fails fast, disruptions are free, other
# failures restart at most 3 times.
WORKED = {"backoffLimit": 3, "failurePolicy": {"rules": [
    {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [3]}}]}}
DISRUPTED = [("DisruptionTarget", "True")]


def render(target: str, run_policy: dict | None = None, **spec) -> dict[str, dict]:
    text = blueprint_text("train", namespace="ml", runPolicy=run_policy, **spec)
    return {obj["kind"]: obj for obj in render_text(text, target=target)}


def jobset_spec(target: str, run_policy: dict | None = None, **spec) -> dict:
    objects = render(target, run_policy, **spec)
    if target == "trainjob":
        return objects["TrainingRuntime"]["spec"]["template"]["spec"]
    return objects["JobSet"]["spec"]


def outcome(spec: dict, job: str, pod: FailedPod, counted: int = 0) -> tuple[str, int]:
    """What the Job controller, then the JobSet controller, make of one failed pod of `job`."""
    job_spec = next(rj for rj in spec["replicatedJobs"] if rj["name"] == job)["template"]["spec"]
    message, counts, action = match_pod_failure_policy(job_spec.get("podFailurePolicy"), pod)
    if action == "Ignore":
        return "Running", counted
    assert counts and job_spec["backoffLimit"] == 0  # the Job fails at its first counted failure
    failed = FailedJob(job, "PodFailurePolicy", message, 1.0) if message is not None else \
        FailedJob(job, "BackoffLimitExceeded", "Job has reached the specified backoff limit", 1.0)
    decision, _ = jobset_decision(spec.get("failurePolicy"), [failed])
    return restart_counts(decision, counted, spec["failurePolicy"]["maxRestarts"])


@pytest.mark.parametrize("target, worker, launcher", [("jobset", "worker", "launcher"), ("trainjob", "node", "launcher")])
def test_the_worked_example_fails_fast_restarts_disruptions_free_and_counts_the_rest(target, worker, launcher):
    spec = jobset_spec(target, WORKED)
    assert jobset_errors(spec) == []
    main = {"jobset": "mpi-launcher", "trainjob": "node"}[target]
    for job in (worker, launcher):
        assert outcome(spec, job, FailedPod("ml", "p", {main: 3})) == ("Failed", 0)
        assert outcome(spec, job, FailedPod("ml", "p", {main: 137}, DISRUPTED)) == ("Restarting", 0)
        assert outcome(spec, job, FailedPod("ml", "p", {main: 1})) == ("Restarting", 1)
        assert outcome(spec, job, FailedPod("ml", "p", {main: 1}), counted=3) == ("Failed", 3)


@pytest.mark.parametrize("target", ["jobset", "trainjob"])
def test_by_default_a_disruption_restarts_the_job_without_counting(target):
    spec = jobset_spec(target)
    assert jobset_errors(spec) == []
    assert outcome(spec, "launcher", FailedPod("ml", "p", {"c": 143}, DISRUPTED), counted=6) == ("Restarting", 6)
    assert outcome(spec, "launcher", FailedPod("ml", "p", {"c": 1}), counted=6) == ("Failed", 6)


def test_a_rule_on_one_container_goes_only_to_the_jobs_whose_pods_have_it_and_the_jobset_tells_them_apart():
    policy = {"failurePolicy": {"rules": [
        {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [3], "containerName": "mpi-launcher"}},
        {"action": "RestartWithoutCounting", "onExitCodes": {"operator": "In", "values": [75]}}]}}
    spec = jobset_spec("jobset", policy)
    assert jobset_errors(spec) == []
    assert outcome(spec, "launcher", FailedPod("ml", "p", {"mpi-launcher": 3})) == ("Failed", 0)
    assert outcome(spec, "worker", FailedPod("ml", "p", {"mpi-worker": 3})) == ("Restarting", 1)
    for job, container in (("worker", "mpi-worker"), ("launcher", "mpi-launcher")):
        assert outcome(spec, job, FailedPod("ml", "p", {container: 75})) == ("Restarting", 0)


def test_ignore_replaces_the_pod_and_restart_counts():
    policy = {"failurePolicy": {"disruptions": "Restart", "rules": [
        {"action": "Ignore", "onPodConditions": [{"type": "example.com/Flaky"}]}]}}
    spec = jobset_spec("jobset", policy)
    assert jobset_errors(spec) == []
    assert outcome(spec, "worker", FailedPod("ml", "p", {"c": 1}, [("example.com/Flaky", "True")])) == ("Running", 0)
    assert outcome(spec, "worker", FailedPod("ml", "p", {"c": 1}, DISRUPTED)) == ("Restarting", 1)


def test_the_static_launcher_job_gets_the_policy_only_when_the_blueprint_writes_one():
    assert "podFailurePolicy" not in render("static")["Job"]["spec"]
    job = render("static", WORKED)["Job"]
    assert job_spec_errors(job["spec"]) == []
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "Never"
    policy = job["spec"]["podFailurePolicy"]
    # A disrupted launcher is a new launcher pod, not counted; exit code 3 fails the Job.
    assert match_pod_failure_policy(policy, FailedPod("ml", "l", {"mpi-launcher": 137}, DISRUPTED))[1:] == \
        (False, "Ignore")
    assert match_pod_failure_policy(policy, FailedPod("ml", "l", {"mpi-launcher": 3}))[2] == "FailJob"
    assert match_pod_failure_policy(policy, FailedPod("ml", "l", {"mpi-launcher": 1}))[1:] == (True, None)


@pytest.mark.parametrize("target", ["jobset", "trainjob", "static"])
def test_the_rendered_objects_pass_their_schemas_and_models(target):
    for obj in render(target, WORKED).values():
        status, errors = validate_object(obj, "1.30", {})
        assert status != "invalid", (obj["kind"], errors[:3])


def test_the_trainers_jobset_carries_the_runtimes_failure_policy():
    """The Trainer builds the TrainJob's JobSet from the runtime's template (v2.3.0 plugins/
    jobset Build, ported in tests/support/e2e/trainer): the policy mpigen wrote into the
    runtime is the running JobSet's."""
    from tests.support.e2e.trainer.expand import expand

    objects = render("trainjob", WORKED)
    made = expand(objects["TrainJob"], objects["TrainingRuntime"])
    spec = next(obj for obj in made if obj["kind"] == "JobSet")["spec"]
    assert spec["failurePolicy"] == jobset_spec("trainjob", WORKED)["failurePolicy"]
    assert jobset_errors(spec) == []
    assert outcome(spec, "node", FailedPod("ml", "p", {"node": 3})) == ("Failed", 0)
    assert outcome(spec, "node", FailedPod("ml", "p", {"node": 137}, DISRUPTED)) == ("Restarting", 0)


@pytest.mark.parametrize("target", ["jobset", "trainjob"])
def test_a_policy_without_uncounted_or_fail_fast_rules_writes_no_jobset_rules(target):
    spec = jobset_spec(target, {"failurePolicy": {"disruptions": "Restart"}})
    assert "rules" not in spec["failurePolicy"]
    assert outcome(spec, "launcher", FailedPod("ml", "p", {"c": 137}, DISRUPTED)) == ("Restarting", 1)


def test_a_disrupted_key_step_restarts_the_job_without_counting_and_the_programs_rules_pass_it_by():
    """The keygen's Job has the disruption rule alone: a preempted key step is a disruption like
    any other (the default policy's promise), while the blueprint's exit-code rules, about its
    program, never match ssh-keygen's or kubectl's codes."""
    spec = jobset_spec("jobset")
    assert jobset_errors(spec) == []
    assert outcome(spec, "keygen", FailedPod("ml", "p", {"publish-key": 143}, DISRUPTED), counted=6) == ("Restarting", 6)
    assert outcome(spec, "keygen", FailedPod("ml", "p", {"keygen": 1}), counted=5) == ("Restarting", 6)
    spec = jobset_spec("jobset", WORKED)  # exit code 3 fails the program fast, not the key step
    assert outcome(spec, "keygen", FailedPod("ml", "p", {"keygen": 3})) == ("Restarting", 1)
    assert outcome(spec, "keygen", FailedPod("ml", "p", {"keygen": 137}, DISRUPTED)) == ("Restarting", 0)
    spec = jobset_spec("jobset", {"failurePolicy": {"disruptions": "FailJob"}})
    assert outcome(spec, "keygen", FailedPod("ml", "p", {"keygen": 137}, DISRUPTED)) == ("Failed", 0)


def test_with_the_platforms_key_there_is_no_key_step_for_a_rule_to_name():
    spec = jobset_spec("jobset", ssh={"keySecret": "training-ssh"})
    assert [rj["name"] for rj in spec["replicatedJobs"]] == ["worker", "launcher"]
    assert jobset_errors(spec) == []  # JS validateFailurePolicy: every targetReplicatedJob exists
