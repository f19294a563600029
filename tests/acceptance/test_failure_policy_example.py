"""The failure policy example (blueprints/failure-policy.yaml) in the pretend cluster: its
objects as `mpigen render` writes them (golden/jobset.yaml and golden/static.yaml hold the same
bytes, test_golden.py), under the Job and JobSet controllers as their sources act, transcribed
without mpigen's code in tests/support/failure_policies.py:

- K8S = kubernetes/kubernetes pkg/controller/job/pod_failure_policy.go `matchPodFailurePolicy`
  (the first rule that matches a failed pod decides; FailJob fails the Job with reason
  PodFailurePolicy and the message "... matching FailJob rule at index <i>"), and
  job_controller.go (a counted failure past backoffLimit 0: BackoffLimitExceeded);
- JS = kubernetes-sigs/jobset v0.12.0 pkg/controllers/failure_policy.go `executeFailurePolicy`,
  `findFirstFailedPolicyRuleAndJob` (the rules in order, each against every failed Job),
  `ruleIsApplicable` and the action appliers.

What the example promises (its header, docs/blueprints.md "Failure policies"): NCCL's error
code (76) and the configuration error (78) end the job at once; a preempted, evicted or
drained pod restarts it without counting; anything else restarts it, at most 3 times."""

from __future__ import annotations

import pytest
import yaml

from tests.support.failure_policies import (FailedJob, FailedPod, job_spec_errors, jobset_decision, jobset_errors,
                                            match_pod_failure_policy, restart_counts)
from tests.support.golden import MPIJOB_REFUSED, ROOT
from tests.support.paths import BLUEPRINTS
from tests.support.text import pos

EXAMPLE = BLUEPRINTS / "failure-policy.yaml"
NCCL, CONFIG = 76, 78  # the training script's codes (the example's header: sysexits.h)
MAX_RESTARTS = 3  # the example's runPolicy.backoffLimit
BACKOFF_MESSAGE = "Job has reached the specified backoff limit"  # K8S job_controller.go
DISRUPTED = [("DisruptionTarget", "True")]
# The containers whose exit codes the rules see: mpirun's in the launcher (it exits with the code
# of the rank that failed first), sshd's in the workers, and the key step's.
MAIN = {"launcher": "mpi-launcher", "worker": "mpi-worker", "keygen": "publish-key"}


@pytest.fixture
def rendered(cli, tmp_path):
    def render(target: str) -> list[dict]:
        (tmp_path / "blueprints").mkdir(exist_ok=True)
        (tmp_path / "blueprints" / EXAMPLE.name).write_bytes(EXAMPLE.read_bytes())
        done = cli("render", f"blueprints/{EXAMPLE.name}", "--stdout", "--target", target)
        assert done.returncode == 0, done.stderr
        return done.objects()
    return render


@pytest.fixture
def jobset(rendered) -> dict:
    [found] = [o for o in rendered("jobset") if o["kind"] == "JobSet"]
    return found["spec"]


def pod(job: str, codes: dict[str, int], conditions=()) -> FailedPod:
    return FailedPod("llm", f"mixtral-sft-{job}-0-0-x7k2q", codes, list(conditions))


def failed_job(spec: dict, job: str, failed: FailedPod, time: float = 1.0) -> FailedJob | None:
    """The Job controller on one failed pod of `job` (backoffLimit 0): the Job's Failed
    condition, or None when the rule ignores the pod (a new one, uncounted)."""
    job_spec = next(rj for rj in spec["replicatedJobs"] if rj["name"] == job)["template"]["spec"]
    assert job_spec["backoffLimit"] == 0
    message, counts, _ = match_pod_failure_policy(job_spec.get("podFailurePolicy"), failed)
    if not counts:
        return None
    if message is not None:
        return FailedJob(job, "PodFailurePolicy", message, time)
    return FailedJob(job, "BackoffLimitExceeded", BACKOFF_MESSAGE, time)


def jobset_outcome(spec: dict, failed: list[FailedJob], counted: int = 0) -> tuple[str, str | None, int]:
    """The JobSet controller's reconcile that sees these failed Jobs: (its state, the rule that
    decided, restartsCountTowardsMax after it)."""
    action, rule = jobset_decision(spec["failurePolicy"], failed)
    state, counted = restart_counts(action, counted, spec["failurePolicy"]["maxRestarts"])
    return state, rule, counted


def test_the_example_passes_the_api_servers_and_the_jobset_webhooks_rules(jobset, rendered):
    assert jobset_errors(jobset) == []
    assert jobset["failurePolicy"]["maxRestarts"] == MAX_RESTARTS
    [launcher] = [o for o in rendered("static") if o["kind"] == "Job"]
    assert job_spec_errors(launcher["spec"]) == []


@pytest.mark.parametrize("code, rule, index", [(CONFIG, "rule1", 1), (NCCL, "rule2", 2)])
@pytest.mark.parametrize("job", ["worker", "launcher"])
def test_an_nccl_or_configuration_error_fails_the_jobset_without_a_restart(jobset, job, code, rule, index):
    failed = failed_job(jobset, job, pod(job, {MAIN[job]: code}))
    assert (failed.reason, failed.message) == (
        "PodFailurePolicy", f"Container {MAIN[job]} for pod llm/mixtral-sft-{job}-0-0-x7k2q failed with exit code "
                            f"{code} matching FailJob rule at index {index}")
    assert jobset_outcome(jobset, [failed]) == ("Failed", rule, 0)


@pytest.mark.parametrize("job", ["keygen", "worker", "launcher"])
def test_a_preempted_pod_restarts_the_jobset_uncounted_even_with_the_budget_spent(jobset, job):
    """The eviction API, preemption and the taint manager set DisruptionTarget=True before they
    delete the pod; its containers then end on SIGTERM (143)."""
    failed = failed_job(jobset, job, pod(job, {MAIN[job]: 143}, DISRUPTED))
    assert failed.reason == "PodFailurePolicy" and failed.message.endswith("matching FailJob rule at index 0")
    assert jobset_outcome(jobset, [failed], counted=MAX_RESTARTS) == ("Restarting", "disruption", MAX_RESTARTS)


@pytest.mark.parametrize("code", [1, 137])  # an uncaught exception; the OOM killer's SIGKILL
@pytest.mark.parametrize("job", ["keygen", "worker", "launcher"])
def test_any_other_failure_restarts_the_jobset_counted_until_the_budget_is_spent(jobset, job, code):
    failed = failed_job(jobset, job, pod(job, {MAIN[job]: code}))
    assert failed.reason == "BackoffLimitExceeded"
    for counted in range(MAX_RESTARTS):
        assert jobset_outcome(jobset, [failed], counted) == ("Restarting", None, counted + 1)
    assert jobset_outcome(jobset, [failed], MAX_RESTARTS) == ("Failed", None, MAX_RESTARTS)  # ReachedMaxRestarts


def test_the_key_steps_own_exit_codes_are_not_the_programs(jobset):
    """ssh-keygen or kubectl exiting with 76 or 78 is no NCCL or configuration error: the keygen's
    Job has the disruption rule alone, so its failure restarts the job, counted."""
    for code in (CONFIG, NCCL):
        failed = failed_job(jobset, "keygen", pod("keygen", {"keygen": code}))
        assert jobset_outcome(jobset, [failed]) == ("Restarting", None, 1)


def test_on_the_static_target_the_launchers_job_fails_fast_and_replaces_a_preempted_launcher(rendered):
    """The static target's launcher Job (backoffLimit 3): FailJob ends it, a disrupted launcher
    pod is replaced uncounted (Ignore), anything else counts against its backoffLimit."""
    [launcher] = [o for o in rendered("static") if o["kind"] == "Job"]
    assert launcher["spec"]["backoffLimit"] == MAX_RESTARTS
    policy = launcher["spec"]["podFailurePolicy"]
    for code, index in ((CONFIG, 1), (NCCL, 2)):
        message, counts, action = match_pod_failure_policy(policy, pod("launcher", {"mpi-launcher": code}))
        assert (action, counts) == ("FailJob", True) and message.endswith(f"matching FailJob rule at index {index}")
    assert match_pod_failure_policy(policy, pod("launcher", {"mpi-launcher": 143}, DISRUPTED)) == (None, False, "Ignore")
    assert match_pod_failure_policy(policy, pod("launcher", {"mpi-launcher": 1})) == (None, True, None)


@pytest.mark.parametrize("api", ["kubeflow.org/v2beta1", "kubeflow.org/v1"])
@pytest.mark.parametrize("example, field", sorted(MPIJOB_REFUSED.items()))
def test_the_mpijob_target_refuses_the_example_at_its_failure_policy(cli, tmp_path, example, field, api):
    """Why golden/mpijob-* leaves it out (tests/support/golden.py MPIJOB_REFUSED): an MPIJob has
    only runPolicy.backoffLimit, which counts every launcher failure alike."""
    text = (ROOT / example).read_text(encoding="utf-8")
    (tmp_path / "job.yaml").write_text(text, encoding="utf-8")
    done = cli("render", "job.yaml", "--stdout", "--target", "mpijob", "--mpijob-api", api)
    assert done.returncode == 2 and done.stdout == b""
    line, column = pos(text, "failurePolicy:")
    assert done.lines("error") == [
        f"job.yaml:{line}:{column}: error: {field}: an MPIJob (kubeflow.org/v2beta1 and v1) has no failure policy: "
        "the operator counts every failure of the launcher against runPolicy.backoffLimit, disruptions and exit "
        "codes alike (mpi-operator#537); remove failurePolicy and set backoffLimit, or use --target jobset (rules "
        "on every pod) or static (rules on the launcher's Job)"]


# The race (docs/blueprints.md "Failure policies", "When a disruption counts"): a worker is
# preempted; mpirun loses its rank and exits with its own error, so the launcher's pod fails too.

def _worker_and_launcher(jobset: dict, launcher_code: int) -> tuple[FailedJob, FailedJob]:
    worker = failed_job(jobset, "worker", pod("worker", {"mpi-worker": 143}, DISRUPTED), time=2.0)
    launcher = failed_job(jobset, "launcher", pod("launcher", {"mpi-launcher": launcher_code}), time=1.0)
    return worker, launcher


def test_a_disruption_wins_over_the_launchers_earlier_failure_when_the_jobset_sees_both(jobset):
    """JS findFirstFailedPolicyRuleAndJob takes the rules in order and, for each, every failed
    Job: the disruption rule, first, matches the worker's Job, though the launcher's failed
    earlier (which only picks the Job among those one rule matches)."""
    worker, launcher = _worker_and_launcher(jobset, 1)
    assert jobset_outcome(jobset, [launcher, worker]) == ("Restarting", "disruption", 0)


def test_a_launcher_whose_job_fails_before_the_disrupted_workers_restarts_the_jobset_counted(jobset):
    """The reconcile that sees the launcher's Job Failed and the worker's not yet (its pods
    still terminating) decides on the launcher's alone, and the restart then deletes the
    worker's Job: the disruption is never seen."""
    _, launcher = _worker_and_launcher(jobset, 1)
    assert jobset_outcome(jobset, [launcher]) == ("Restarting", None, 1)


def test_why_the_script_leaves_a_lost_peers_nccl_error_unmapped(jobset):
    """Were a surviving rank's NCCL error after the lost worker mapped to 76, the launcher's
    Job failing first would end the job: a preemption would fail it."""
    worker, launcher = _worker_and_launcher(jobset, NCCL)
    assert jobset_outcome(jobset, [launcher]) == ("Failed", "rule2", 0)
    assert jobset_outcome(jobset, [launcher, worker]) == ("Restarting", "disruption", 0)


def test_the_example_header_states_the_codes_the_rules_hold():
    rules = yaml.safe_load(EXAMPLE.read_text())["spec"]["runPolicy"]["failurePolicy"]["rules"]
    assert [r["onExitCodes"]["values"] for r in rules] == [[CONFIG], [NCCL]]
    assert f"- {CONFIG} (EX_CONFIG)" in EXAMPLE.read_text() and f"- {NCCL} (EX_PROTOCOL)" in EXAMPLE.read_text()
