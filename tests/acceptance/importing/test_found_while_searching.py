"""An MPIJob or a TrainJob where blueprints are looked for (issue 36): it is what `mpigen import`
reads, so mpigen says so at its kind line instead of skipping it without a word."""

from __future__ import annotations

import shutil

from tests.support.blueprints import blueprint_text
from tests.support.command_line import run_mpigen
from tests.support.paths import ROOT
from tests.support.text import pos, write

FIXTURES = ROOT / "tests" / "support" / "fixtures"
MPIJOB = FIXTURES / "mpi-operator-v2beta1" / "tensorflow-mnist.yaml"  # the operator's example, as published


def test_an_mpijob_in_a_searched_folder_points_to_import(tmp_path):
    write(tmp_path / "blueprints" / "job.yaml", blueprint_text("job"))
    shutil.copy(MPIJOB, tmp_path / "blueprints" / "copied.yaml")
    done = run_mpigen("validate", cwd=tmp_path)
    assert done.returncode == 0
    line, col = pos(MPIJOB.read_text(), "kind: MPIJob", "MPIJob")
    assert done.stderr.decode().splitlines() == [
        f"blueprints/copied.yaml:{line}:{col}: warning: an MPIJob, not a blueprint: turn it into one with mpigen "
        "import blueprints/copied.yaml", "mpigen: 1 blueprint valid"]
    # and the advice works: the import is a blueprint
    imported = run_mpigen("import", "blueprints/copied.yaml", "--stdout", cwd=tmp_path)
    assert imported.returncode == 0 and b"kind: MPIJobBlueprint" in imported.stdout


def test_a_trainjob_too_and_other_kinds_stay_quiet(tmp_path):
    write(tmp_path / "blueprints" / "job.yaml", blueprint_text("job"))
    text = write(tmp_path / "blueprints" / "train.yaml", "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
                                                         "metadata: {name: t}\nspec: {}\n")
    write(tmp_path / "blueprints" / "other.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    write(tmp_path / "blueprints" / "lookalike.yaml", "apiVersion: example.com/v1\nkind: MPIJob\nmetadata: {name: m}\n")
    done = run_mpigen("validate", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stderr.decode().splitlines() == [
        "blueprints/train.yaml:%d:%d: warning: a TrainJob, not a blueprint: turn it into one with mpigen import "
        "blueprints/train.yaml" % pos(text, "TrainJob\n", "TrainJob"), "mpigen: 1 blueprint valid"]


def test_a_named_mpijob_is_an_error_that_points_to_import(tmp_path):
    shutil.copy(MPIJOB, tmp_path / "job.yaml")
    done = run_mpigen("render", "job.yaml", "--stdout", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode() == ("job.yaml:%d:%d: error: an MPIJob, not a blueprint: turn it into one with mpigen "
                                    "import job.yaml\n" % pos(MPIJOB.read_text(), "kind: MPIJob", "MPIJob"))
