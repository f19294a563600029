"""runPolicy.failurePolicy refused or warned about at its line where a target cannot honour
it, and checked at its lines as the API server checks a Job's podFailurePolicy."""

from __future__ import annotations

import pytest

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
