"""runPolicy.failurePolicy refused or warned about at its line where a target cannot honour
it, and checked at its lines as the API server checks a Job's podFailurePolicy."""

from __future__ import annotations

import pytest
import yaml

from tests.support.text import pos

BLUEPRINT = """\
apiVersion: mpigen.dev/v1alpha1
kind: MPIJobBlueprint
metadata: {name: train}
spec:
  image: example.com/train:1
  workers: 2
  command: [python, train.py]
RUNTIME
  runPolicy:
    failurePolicy:
      rules:
        - action: FailJob
          onExitCodes: {operator: In, values: VALUES CONTAINER}
"""


def written(path, values: str = "[3]", container: str = "", runtime: str = "") -> str:
    text = BLUEPRINT.replace("VALUES", values).replace("RUNTIME\n", runtime)
    path.write_text(text.replace(" CONTAINER", f", containerName: {container}" if container else ""),
                    encoding="utf-8")
    return str(path.name)


@pytest.mark.parametrize("options, says", [
    (("--target", "mpijob"), "job.yaml:9:5: error: spec.runPolicy.failurePolicy: an MPIJob (kubeflow.org/v2beta1 "
                             "and v1) has no failure policy"),
    (("--target", "mpijob", "--mpijob-api", "kubeflow.org/v1"), "job.yaml:9:5: error: spec.runPolicy.failurePolicy: "
                                                                 "an MPIJob"),
    (("--target", "static"), "job.yaml:9:5: warning: spec.runPolicy.failurePolicy: with --target static the rules "
                             "act on the launcher's Job"),
])
def test_a_target_without_the_means_says_so_at_the_field(cli, tmp_path, options, says):
    done = cli("validate", written(tmp_path / "job.yaml"), *options)
    assert says in done.stderr
    assert done.returncode == (0 if "warning" in says else 2)


def test_a_runtime_of_the_cluster_keeps_its_own_failure_policy(cli, tmp_path):
    runtime = "  runtime: {name: deepspeed-distributed}\n"
    done = cli("validate", written(tmp_path / "job.yaml", runtime=runtime), "--target", "trainjob")
    assert done.returncode == 2
    assert "job.yaml:10:5: error: spec.runPolicy.failurePolicy: with a runtime the cluster has" in done.stderr


@pytest.mark.parametrize("target, container, says", [
    ("static", "mpi-worker", "job.yaml:12:67: error: spec.runPolicy.failurePolicy.rules[0].onExitCodes.containerName: "
                             "with --target static mpi-worker runs in the workers' StatefulSet"),
    ("jobset", "trainer", "job.yaml:12:67: error: spec.runPolicy.failurePolicy.rules[0].onExitCodes.containerName: "
                          "with --target jobset the job's pods have no container trainer; name one of mpi-launcher, "
                          "mpi-worker"),
    ("trainjob", "mpi-worker", "name one of node"),
])
def test_a_container_the_pods_do_not_have_is_refused_at_its_name(cli, tmp_path, target, container, says):
    done = cli("validate", written(tmp_path / "job.yaml", container=container), "--target", target)
    assert done.returncode == 2
    assert says in done.stderr


@pytest.mark.parametrize("values, says", [
    ("[0, 3]", "exit code 0 is success and cannot be matched with In"),
    ("[3, 1]", "exit codes must be in ascending order (3 before 1)"),
    ("[3, 3]", "exit code 3 is listed twice"),
    ("[]", "must not be empty"),
    (str(list(range(1, 257))), "longer than the 255 allowed"),
])
def test_exit_codes_follow_the_api_servers_rules(cli, tmp_path, values, says):
    done = cli("validate", written(tmp_path / "job.yaml", values=values), "--target", "jobset")
    assert done.returncode == 2
    assert "job.yaml:12:" in done.stderr and says in done.stderr, done.stderr


def test_a_rule_has_one_requirement_and_at_most_nineteen_rules_follow_the_disruption_rule(cli, tmp_path):
    rule = "        - {action: Restart, onExitCodes: {operator: In, values: [1]}, onPodConditions: [{type: A}]}\n"
    (tmp_path / "job.yaml").write_text(BLUEPRINT.replace("RUNTIME\n", "").split("        - action")[0] + rule,
                                       encoding="utf-8")
    done = cli("validate", "job.yaml")
    assert "job.yaml:11:11: error: spec.runPolicy.failurePolicy.rules[0]: give exactly one of onExitCodes and " \
           "onPodConditions" in done.stderr
    many = "        - {action: Restart, onExitCodes: {operator: In, values: [1]}}\n" * 20
    (tmp_path / "job.yaml").write_text(BLUEPRINT.replace("RUNTIME\n", "").split("        - action")[0] + many,
                                       encoding="utf-8")
    done = cli("validate", "job.yaml")
    assert done.returncode == 2 and "longer than the 19 allowed" in done.stderr, done.stderr


# The MPI containers renamed by podTemplatePatch.<role>.containerName (issue 50): a rule names a
# container by the name its pods have. The API server refuses a Job whose podFailurePolicy
# names a container its pod template lacks (Kubernetes pkg/apis/batch/validation/validation.go
# validatePodFailurePolicyRuleOnExitCodes: "must be one of the container or initContainer names
# in the pod template"), so the name mpigen checks is the one it renders.
RENAMED = "  podTemplatePatch:\n    launcher: {containerName: launch}\n    worker: {containerName: trainer}\n"


def _pod_failure_rules(stream: str) -> list[dict]:
    """Every rule of every podFailurePolicy of the rendered objects."""
    found, stack = [], [o for o in yaml.safe_load_all(stream) if o]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found += node.get("podFailurePolicy", {}).get("rules", []) if "podFailurePolicy" in node else []
            stack += node.values()
        elif isinstance(node, list):
            stack += node
    return found


@pytest.mark.parametrize("target, container", [("static", "launch"), ("jobset", "trainer"), ("jobset", "launch")])
def test_a_rule_on_a_renamed_container_renders_into_the_pod_failure_policy(cli, tmp_path, target, container):
    done = cli("render", "--stdout", written(tmp_path / "job.yaml", container=container, runtime=RENAMED),
               "--target", target)
    assert done.returncode == 0, done.stderr
    named = [r for r in _pod_failure_rules(done.stdout) if r.get("onExitCodes", {}).get("containerName") == container]
    assert named and all(r["onExitCodes"]["values"] == [3] for r in named)


@pytest.mark.parametrize("target, default, names", [
    ("static", "mpi-launcher", "launch"),
    ("jobset", "mpi-worker", "launch, trainer"),
    ("jobset", "mpi-launcher", "launch, trainer"),
])
def test_a_rule_on_a_renamed_containers_old_name_is_refused_at_its_name(cli, tmp_path, target, default, names):
    """Accepted before, and left out of every podFailurePolicy: the exit code restarted the job."""
    text_name = written(tmp_path / "job.yaml", container=default, runtime=RENAMED)
    text = (tmp_path / text_name).read_text(encoding="utf-8")
    line, column = pos(text, default)
    done = cli("validate", text_name, "--target", target)
    assert done.returncode == 2
    assert f"job.yaml:{line}:{column}: error: spec.runPolicy.failurePolicy.rules[0].onExitCodes.containerName: with " \
           f"--target {target} the job's pods have no container {default}; name one of {names}" in done.stderr, \
        done.stderr


def test_static_refuses_a_rule_on_the_renamed_worker_container(cli, tmp_path):
    """The workers' StatefulSet has no failure policy, whatever its container is called."""
    done = cli("validate", written(tmp_path / "job.yaml", container="trainer", runtime=RENAMED), "--target", "static")
    assert done.returncode == 2
    assert "with --target static trainer runs in the workers' StatefulSet" in done.stderr, done.stderr
