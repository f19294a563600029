"""The command line surface: commands, options, exit codes, default paths, streams."""

from __future__ import annotations

import shutil

from tests.support.blueprints import blueprint_text
from tests.support.command_line import run_mpigen
from tests.support.paths import ROOT


def test_help_and_version():
    assert run_mpigen("--help").returncode == 0
    done = run_mpigen("--version")
    assert done.returncode == 0 and done.stdout.startswith(b"mpigen ")


def test_bare_mpigen_prints_the_help_and_succeeds():
    """As kubectl and helm (git exits 1, which for mpigen would mean "differences found")."""
    bare, helped = run_mpigen(), run_mpigen("--help")
    assert bare.returncode == 0 and bare.stderr == b""
    assert bare.stdout == helped.stdout and b"COMMAND" in bare.stdout and b"render" in bare.stdout


def test_options_without_a_command_are_still_a_usage_error():
    done = run_mpigen("--verbose")
    assert done.returncode == 2 and done.stdout == b"" and b"usage: mpigen" in done.stderr


def test_a_mistyped_command_suggests_the_nearest():
    done = run_mpigen("rendr", "--stdout", cwd=ROOT)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().splitlines()[-1].endswith(
        "argument COMMAND: 'rendr' is not one of render, check, diff, status, import, validate, schema, completion; "
        "did you mean 'render'?")
    far = run_mpigen("frobnicate", cwd=ROOT)
    assert far.returncode == 2 and "did you mean" not in far.stderr.decode()


def test_every_error_has_the_one_form_the_docs_give(tmp_path):
    """docs/cli.md: `PATH:LINE:COLUMN: error: MESSAGE`, or `error: MESSAGE` where there is no
    position, whoever finds the problem: argparse (after its usage line), a command refusing
    how it was asked, or the input."""
    (tmp_path / "blueprints").mkdir()
    (tmp_path / "blueprints" / "a.yaml").write_text(blueprint_text("a", workers=0))
    argparse_error = run_mpigen("render", "--stdout", "--target", "helm", cwd=tmp_path)
    usage_error = run_mpigen("render", cwd=tmp_path)  # no --stdout nor -o, and no mpigen.yaml
    input_error = run_mpigen("validate", cwd=tmp_path)
    assert argparse_error.stderr.decode().splitlines()[0].startswith("usage: mpigen render ")
    assert argparse_error.stderr.decode().splitlines()[-1].startswith("error: argument --target: 'helm' ")
    assert usage_error.stderr.decode().startswith("error: no mpigen.yaml in this folder ")
    assert input_error.stderr.decode().startswith("blueprints/a.yaml:9:16: error: spec.workers: must be >= 1")
    for done in (argparse_error, usage_error, input_error):
        assert done.returncode == 2 and b"mpigen: error" not in done.stderr and b"mpigen render: " not in done.stderr


def test_render_defaults_to_the_blueprints_folder(tmp_path):
    # Without mpigen.yaml (this repository has one, so work in a copy of blueprints/); here its
    # targets rule, which a PATH keeps, is left out by the flag of the default target.
    shutil.copytree(ROOT / "blueprints", tmp_path / "blueprints")
    assert run_mpigen("render", "--stdout", cwd=tmp_path).stdout == run_mpigen("render", "blueprints", "--stdout",
                                                                              "--target", "static", cwd=ROOT).stdout


def test_render_needs_stdout_or_output_folder(tmp_path):
    shutil.copytree(ROOT / "blueprints", tmp_path / "blueprints")
    done = run_mpigen("render", cwd=tmp_path)
    assert done.returncode == 2 and b"--stdout" in done.stderr


def test_unknown_target_is_a_usage_error():
    done = run_mpigen("render", "--stdout", "--target", "helm", cwd=ROOT)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().splitlines()[-1] == ("error: argument --target: 'helm' is not one of "
                                                     "static, mpijob, jobset, trainjob")


def test_mistyped_target_and_profile_flags_suggest_the_nearest():
    done = run_mpigen("render", "--stdout", "--target", "jobsett", cwd=ROOT)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().splitlines()[-1] == ("error: argument --target: 'jobsett' is not one "
                                                     "of static, mpijob, jobset, trainjob; did you mean 'jobset'?")
    done = run_mpigen("validate", "--gitops", "argo", cwd=ROOT)
    assert done.returncode == 2
    assert done.stderr.decode().splitlines()[-1] == ("error: argument --gitops: 'argo' is not one "
                                                     "of none, argocd, flux; did you mean 'argocd'?")


def test_validate_writes_nothing_and_reports_count(tmp_path):
    (tmp_path / "a.yaml").write_text(blueprint_text("a"))
    done = run_mpigen("validate", "a.yaml", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == b""
    assert b"1 blueprint valid" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml"]


def test_folders_skip_other_yaml_but_named_files_must_be_blueprints(tmp_path):
    (tmp_path / "bp").mkdir()
    (tmp_path / "bp" / "job.yml").write_text(blueprint_text("job"))
    (tmp_path / "bp" / "deployment.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n")
    (tmp_path / "bp" / "notes.txt").write_text("not yaml")
    done = run_mpigen("render", "bp", "--stdout", cwd=tmp_path)
    assert done.returncode == 0 and b"Source: bp/job.yml" in done.stdout and b"Deployment" not in done.stdout


def test_multi_document_files(tmp_path):
    (tmp_path / "jobs.yaml").write_text(blueprint_text("a") + "---\n" + blueprint_text("b"))
    done = run_mpigen("render", "jobs.yaml", "--stdout", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout.count(b"kind: Job\n") == 2


def test_warnings_do_not_fail(tmp_path):
    (tmp_path / "gpus.yaml").write_text(blueprint_text("job", workers=1, gpusPerWorker=1, gpuResource="nvidia.com/gpus"))
    done = run_mpigen("render", "gpus.yaml", "--stdout", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout
    assert b"gpus.yaml:" in done.stderr and b": warning: " in done.stderr and b"nvidia.com/gpu?" in done.stderr


def test_schema_is_json_on_stdout():
    import json

    done = run_mpigen("schema")
    assert done.returncode == 0 and json.loads(done.stdout)["title"] == "MPIJobBlueprint"


def test_odd_file_names_cannot_break_the_stream(tmp_path):
    """A line break in a path would end its `# Source:` comment: such a path is refused
    (issue 15, defect 1), in one line of stderr."""
    (tmp_path / "a\nkind: Evil.yaml").write_text(blueprint_text("a"))
    done = run_mpigen("render", ".", "--stdout", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().splitlines() == [
        "error: a\\nkind: Evil.yaml: the path contains the character \\n, which cannot be written into the output "
        "(a line break would end the `# Source:` comment and forge what follows); rename it"]
