"""The version of an operator each side of a diff gives an environment (mpigen.review.diff.upgrades):
its overlay's key of `versions:` (or its nearest base's), else mpigen.yaml's, else the default,
each with the line that sets it; and what a move does to the objects the old side runs, from the
table of kinds (a TrainJob's `upgrade` fact)."""

from __future__ import annotations

from mpigen.errors import Mark
from mpigen.review.diff.upgrades import upgrades

CONFIG = "apiVersion: mpigen.dev/v1alpha1\nkind: Config\nversions:\n  trainer: {}\n"
TRAINJOB = ("# Source: blueprints/a.yaml, overlays/prod/overlay.yaml\napiVersion: trainer.kubeflow.org/v1alpha1\n"
            "kind: TrainJob\nmetadata:\n  name: a\n  namespace: ml\n  labels: {{mpigen.dev/job: a}}\n"
            "spec:\n  suspend: {}\n")


class Side:
    """A side whose overlays set no version, and whose mpigen.yaml sets `version` (None: no file)."""

    def __init__(self, version: str | None):
        self.version = version

    def texts(self, paths: list[str]) -> dict[str, str]:
        return {"mpigen.yaml": CONFIG.format(self.version)} if self.version and "mpigen.yaml" in paths else {}

    def overlay(self, path: str):
        return None

    def shown(self, mark: Mark) -> Mark:
        return mark


def files(suspended: bool) -> dict[str, str]:
    """The render of environment prod (its folder holds a kustomization) with one TrainJob."""
    return {"prod/kustomization.yaml": "resources: [ml/trainjob-a.yaml]\n",
            "prod/ml/trainjob-a.yaml": TRAINJOB.format(str(suspended).lower())}


def test_mpigen_yaml_s_version_moves_the_environment_and_a_suspended_trainjob_is_a_warning_at_its_line():
    (upgrade,) = upgrades(files(True), files(True), Side(None), Side("v2.4"))
    assert (upgrade.environment, upgrade.key, upgrade.old, upgrade.new) == ("prod", "trainer", "v2.3", "v2.4")
    assert (upgrade.mark.path, upgrade.mark.line, upgrade.mark.column) == ("mpigen.yaml", 4, 12)
    (job,) = upgrade.objects
    assert job.warning and str(job.key) == "TrainJob ml/a" and "cannot resume" in job.said
    assert upgrade.lines()[1].startswith("warning: mpigen.yaml:4:12: TrainJob ml/a: suspended")


def test_a_running_trainjob_is_told_it_keeps_its_jobset_and_no_move_says_nothing():
    (upgrade,) = upgrades(files(False), files(False), Side("v2.3"), Side("v2.4"))
    (job,) = upgrade.objects
    assert not job.warning and "keeps its JobSet" in job.said
    assert upgrades(files(True), files(True), Side(None), Side("v2.3")) == []
