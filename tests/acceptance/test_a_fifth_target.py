"""A target is one package plus one line in the table: a toy fifth target
(tests/support/toy_target.py), registered in the table and nowhere else, renders, validates
(its own check at the blueprint's line), diffs, takes its own flag, and appears in --target's
choices and help, in mpigen.yaml's and an overlay's `target:`, and in the shell completion."""

from __future__ import annotations

import json

import pytest
import yaml

from mpigen.render import targets
from tests.support.blueprints import blueprint_text
from tests.support.text import pos, write
from tests.support.toy_target import TOY


@pytest.fixture
def toy(monkeypatch, tmp_path):
    """The toy target in the table, and a folder with one blueprint of 3 workers."""
    monkeypatch.setitem(targets.TARGETS, TOY.name, TOY)
    write(tmp_path / "blueprints" / "train.yaml", blueprint_text("train", workers=3))
    return tmp_path


def documents(out: bytes) -> list[dict]:
    return [doc for doc in yaml.safe_load_all(out) if doc]


def test_it_renders_with_its_own_flag(toy, cli):
    run = cli("render", "blueprints", "--target", "toy", "--toy-queue", "batch", "--stdout", "--no-cache")
    assert run.returncode == 0, run.stderr
    (job,) = documents(run.stdout)
    assert (job["kind"], job["metadata"]["name"], job["spec"]["parallelism"]) == ("Job", "train-toy", 3)
    assert job["metadata"]["labels"]["toy.example.com/queue"] == "batch"
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "Never"


def test_its_check_is_an_error_at_the_blueprint_line(toy, cli):
    text = write(toy / "blueprints" / "train.yaml", blueprint_text("train", workers=9))
    run = cli("validate", "blueprints", "--target", "toy", "--no-cache")
    line, column = pos(text, "9")
    assert run.returncode == 2
    assert f"blueprints/train.yaml:{line}:{column}: error: spec.workers: the toy target runs at most 8" in run.stderr
    assert cli("validate", "blueprints", "--target", "static", "--no-cache").returncode == 0


def test_mpigen_yaml_and_an_overlay_choose_it(toy, cli):
    write(toy / "mpigen.yaml", "apiVersion: mpigen.dev/v1alpha1\nkind: Config\ntarget: toy\n")
    write(toy / "overlays" / "prod" / "overlay.yaml",
          "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\ntarget: toy\n")
    assert [d["kind"] for d in documents(cli("render", "--stdout", "--no-cache").stdout)] == ["Job"]
    run = cli("render", "blueprints", "--overlay", "prod", "--stdout", "--no-cache")
    assert [d["kind"] for d in documents(run.stdout)] == ["Job"], run.stderr


def test_diff_reports_its_changes_and_what_kubernetes_refuses(toy, cli):
    assert cli("render", "blueprints", "--target", "toy", "-o", "old", "--no-cache").returncode == 0
    write(toy / "blueprints" / "train.yaml", blueprint_text("train", workers=5))
    assert cli("render", "blueprints", "--target", "toy", "-o", "new", "--no-cache").returncode == 0
    run = cli("diff", "old", "new", "--format", "json")
    assert run.returncode == 1, run.stderr
    (job,) = json.loads(run.stdout)["jobs"]
    (changed,) = job["changed"]
    assert {(f["path"], f["old"], f["new"]) for f in changed["fields"]} == {
        ("spec.completions", 3, 5), ("spec.parallelism", 3, 5)}
    # a (non-Indexed) Job's completions cannot change (Kubernetes' ValidateJobSpecUpdate): diff says so
    assert [(i["object"], i["path"]) for i in job["immutable"]] == [("Job default/train-toy", "spec.completions")]


def test_it_is_among_the_choices_help_and_completion(toy, cli):
    shown = " ".join(cli("render", "--help").stdout.decode().split())
    assert "toy: one Job per job (a toy)" in shown and "--toy-queue" in shown
    unknown = cli("render", "blueprints", "--target", "toyy", "--stdout")
    assert unknown.returncode == 2 and "did you mean 'toy'" in unknown.stderr
    choices = [line for line in cli("completion", "bash").stdout.decode().splitlines()
               if "render" in line and "target_choices" in line]
    assert choices and all("trainjob toy)" in line for line in choices), choices
