"""The blueprint edits an overlay makes moot (mpigen.review.diff.overridden), on blueprint and
overlay files written by the test: which edited fields an overlay sets the same way on both
sides, how they are named, and the edits that get no note."""

from __future__ import annotations

import os

import pytest

from mpigen.errors import Mark
from mpigen.review.diff.overridden import overridden
from mpigen.review.sources import CommitTree, WorkingTree
from tests.support.blueprints import MINIMAL_SPEC_YAML, blueprint_yaml

BLUEPRINT = blueprint_yaml("train", "labels: {team: vision}\n", MINIMAL_SPEC_YAML.replace("workers: 2", "workers: 4") + (
    'resources:\n  worker: {cpu: "2", memory: 4Gi}\n'))
OVERLAY = """apiVersion: mpigen.dev/v1alpha1
kind: Overlay
labels:
  team: platform
patches:
  - patch:
      spec:
        workers: 16
        resources:
          worker: {memory: 8Gi}
        command: [python, prod.py]
"""
# What the rendered objects of environment prod say they come from.
RENDERED = {"prod/kustomization.yaml": "resources: []\n",
            "prod/ns/job.yaml": "---\n# Source: blueprints/train.yaml, overlays/prod/overlay.yaml\nkind: Job\n"}


class Old(WorkingTree):
    """The old side: the blueprint as it was; its overlays are never asked for."""

    def __init__(self, text: str):
        self.text = text

    def texts(self, paths):
        return {"blueprints/train.yaml": self.text}


@pytest.fixture
def working_tree(tmp_path):
    (tmp_path / "blueprints").mkdir()
    (tmp_path / "overlays" / "prod").mkdir(parents=True)
    (tmp_path / "overlays" / "prod" / "overlay.yaml").write_text(OVERLAY, encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    yield tmp_path
    os.chdir(cwd)


def notes(working_tree, new_text: str, old_text: str = BLUEPRINT):
    (working_tree / "blueprints" / "train.yaml").write_text(new_text, encoding="utf-8")
    return [(n.environment, n.field, n.old, n.new, n.overlay, n.value)
            for n in overridden(RENDERED, Old(old_text), WorkingTree())]


def test_fields_the_overlay_sets_are_moot_and_the_others_are_not(working_tree):
    new = (BLUEPRINT.replace("workers: 4", "workers: 8").replace("memory: 4Gi", "memory: 6Gi")
           .replace('cpu: "2"', 'cpu: "3"').replace("team: vision", "team: nlp"))
    overlay = "overlays/prod/overlay.yaml"
    assert notes(working_tree, new) == [
        # metadata by its whole path; the blueprint's spec as the blueprint names it
        ("prod", "metadata.labels.team", "vision", "nlp", Mark(overlay, 4, 9), "platform"),
        ("prod", "resources.worker.memory", "4Gi", "6Gi", Mark(overlay, 10, 28), "8Gi"),
        ("prod", "workers", 4, 8, Mark(overlay, 8, 18), 16),
    ]  # resources.worker.cpu: the overlay leaves it, so the edit shows in the objects


def test_an_unchanged_blueprint_a_renamed_one_and_broken_yaml_get_no_note(working_tree):
    assert notes(working_tree, BLUEPRINT) == []
    assert notes(working_tree, BLUEPRINT.replace("name: train", "name: train2").replace("workers: 4", "workers: 8")) == []
    assert notes(working_tree, BLUEPRINT.replace("workers: 4", "workers: 8"), old_text="spec: [\n") == []


def test_a_list_is_compared_item_by_item_when_its_length_stays(working_tree):
    overlay = "overlays/prod/overlay.yaml"
    longer = notes(working_tree, BLUEPRINT.replace("[python, train.py]", "[python, train.py, --fast]"))
    assert longer == [("prod", "command", ["python", "train.py"], ["python", "train.py", "--fast"],
                       Mark(overlay, 11, 18), ["python", "prod.py"])]
    same = notes(working_tree, BLUEPRINT.replace("[python, train.py]", "[python, eval.py]"))
    assert same == [("prod", "command[1]", "train.py", "eval.py", Mark(overlay, 11, 27), "prod.py")]


def test_a_commits_source_comment_never_leads_out_of_its_copy(tmp_path):
    """A commit's `# Source:` comments are text anyone may commit: an overlay path that leaves
    the repository (or the copy of its overlays) is not followed, and nothing is written."""
    with CommitTree("0" * 40) as tree:
        for path in ("../outside/overlays/x/overlay.yaml", "/etc/overlays/x/overlay.yaml",
                     "overlays/../../x/overlay.yaml"):
            assert tree.overlay(path) is None
        assert list(tree.root.iterdir()) == []
