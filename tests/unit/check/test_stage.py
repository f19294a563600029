"""The check stage between compile and render: the shared rules, then the target's own, in
the order they report; and the one gang rule every floor judges a gang by."""

from __future__ import annotations

from mpigen.check.stage import TargetRules, check_job
from mpigen.compile.blueprint import compile_blueprint
from mpigen.errors import error
from mpigen.load.parser import parse
from mpigen.render.targets import RESERVED
from mpigen.validate.document import validate_document
from mpigen.validate.gang import gang_pods, never_starts
from tests.support.blueprints import blueprint_yaml

GANG = ("image: example.com/train:1\ncommand: [python, train.py]\nworkers: 2\n"
        "scheduling: {gang: {scheduler: volcano, minAvailable: 3}}\n")


def _checked(spec: str, gitops: str) -> list[str]:
    doc = parse(blueprint_yaml(spec=spec), "job.yaml")[0]
    blueprint, diagnostics = validate_document(doc, RESERVED)
    assert blueprint is not None, diagnostics
    rules = TargetRules(lambda d, b: [error(None, "lifecycle")], lambda d, b, pods: [error(None, "own")])
    return [d.message for d in check_job(doc, blueprint, compile_blueprint(blueprint), gitops, rules)]


def test_the_profile_rules_come_first_then_the_lifecycle_then_the_targets_own():
    said = _checked(GANG, "argocd")
    assert said[0].startswith("spec.scheduling.gang.minAvailable: 3 counts the launcher, but with --gitops argocd")
    assert said[1:] == ["lifecycle", "own"]


def test_without_a_profile_a_gang_that_counts_the_launcher_starts():
    assert _checked(GANG, "none") == ["lifecycle", "own"]


def test_a_gang_gathers_the_launcher_unless_it_waits_for_the_workers():
    assert gang_pods(2, launcher_waits=False) == 3 and gang_pods(2, launcher_waits=True) == 2
    assert never_starts(3, gang_pods(2, launcher_waits=True)) and not never_starts(3, gang_pods(2, launcher_waits=False))
    assert not never_starts(None, 0)
