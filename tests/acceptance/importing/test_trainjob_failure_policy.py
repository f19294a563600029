"""`mpigen import` reads a failure policy back (issue 33): the TrainingRuntime mpigen wrote
carries it (its JobSet template's failurePolicy and its Jobs' podFailurePolicy), the imported
blueprint has it as written, and renders the same objects again."""

from __future__ import annotations

import pytest
import yaml

from tests.support.trainjob_import import round_trip

BLUEPRINT = """apiVersion: mpigen.dev/v1alpha1
kind: MPIJobBlueprint
metadata: {name: train, namespace: ml}
spec:
  image: registry.example.com/ml/train:1
  workers: 2
  command: [python, /workspace/train.py]
  runPolicy:
    backoffLimit: 3
POLICY"""

POLICIES = [
    pytest.param({"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [3]}}]}, id="worked"),
    pytest.param({"disruptions": "Restart", "rules": [
        {"action": "RestartWithoutCounting", "onExitCodes": {"operator": "NotIn", "values": [1, 2],
                                                              "containerName": "node"}},
        {"action": "Ignore", "onPodConditions": [{"type": "example.com/Flaky", "status": "Unknown"}]},
        {"action": "Restart", "onExitCodes": {"operator": "In", "values": [9]}}]}, id="every-action"),
    pytest.param(None, id="default"),
]


@pytest.mark.parametrize("policy", POLICIES)
def test_the_failure_policy_round_trips_through_import(cli, tmp_path, policy):
    text = BLUEPRINT.replace("POLICY", "" if policy is None else
                             "    failurePolicy: " + yaml.safe_dump(policy, default_flow_style=True))
    first, again, reported = round_trip(cli, tmp_path, text)
    assert reported == ""
    assert again == first
    imported = yaml.safe_load((tmp_path / "imported.yaml").read_text())["spec"]["runPolicy"]
    assert imported.get("failurePolicy") == policy
    assert imported["backoffLimit"] == 3
