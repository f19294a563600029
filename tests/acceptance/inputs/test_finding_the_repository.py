"""Finding the repository (issue 19, point 3): from any sub-folder, mpigen uses the
mpigen.yaml of the nearest folder above it, as git and kustomize do, and works from that
folder: the paths in mpigen.yaml, the output folder and the bytes written are those of a
run at the top; paths typed on the command line are taken from where they were typed.
`-v` says which mpigen.yaml a run uses; outside any repository the messages say that
none was found and show the ways on.

Each test builds its repository in its own folder and runs the command line in-process
from a sub-folder (`run_in`), so that a run that ignored the sub-folder, or did not
find the repository, would read or write somewhere else and fail."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.overlays import CONFIG_HEAD, OVERLAY_HEAD
from tests.support.text import pos, write

CONFIG = CONFIG_HEAD + "blueprints: [blueprints]\noverlays: [dev]\noutput: rendered\n"


@pytest.fixture
def repository(tmp_path) -> Path:
    """A repository: mpigen.yaml, one blueprint, one overlay, and an empty sub-folder docs/notes."""
    write(tmp_path / "mpigen.yaml", CONFIG)
    write(tmp_path / "blueprints" / "job.yaml", blueprint_text("job"))
    write(tmp_path / "overlays" / "dev" / "overlay.yaml", OVERLAY_HEAD + "namespace: dev\n")
    (tmp_path / "docs" / "notes").mkdir(parents=True)
    return tmp_path


@pytest.fixture
def run_in(cli, monkeypatch):
    """run_in(FOLDER, *ARGS): `mpigen ARGS` typed in FOLDER (a run may move to its repository)."""
    def run(folder: Path, *args: str):
        monkeypatch.chdir(folder)
        return cli(*args)

    return run


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_render_in_a_sub_folder_renders_the_repository_into_its_output_folder(repository, run_in):
    done = run_in(repository / "docs" / "notes", "render")
    assert done.returncode == 0, done.stderr
    from_below = files(repository / "rendered")
    assert "dev/kustomization.yaml" in from_below and not (repository / "docs" / "notes" / "rendered").exists()
    assert b"# Source: blueprints/job.yaml, overlays/dev/overlay.yaml\n" in from_below["dev/dev/job-job-launcher.yaml"]
    done = run_in(repository / "blueprints", "check")  # the same bytes as a run at the top
    assert done.returncode == 0, done.stderr
    done = run_in(repository, "render")
    assert done.returncode == 0 and files(repository / "rendered") == from_below


def test_paths_typed_in_a_sub_folder_are_taken_from_there(repository, run_in):
    """PATH, -o DIR and an overlay's path are relative to where they were typed; mpigen.yaml's
    options still apply (its target here), and a bare overlay name is the repository's."""
    write(repository / "mpigen.yaml", CONFIG + "target: jobset\n")
    done = run_in(repository / "blueprints", "render", "job.yaml", "-o", "out")
    assert done.returncode == 0, done.stderr
    written = files(repository / "blueprints" / "out")
    assert "default/jobset-job.yaml" in written and not (repository / "out").exists()
    assert written["default/jobset-job.yaml"].startswith(b"---\n# Source: blueprints/job.yaml\n")
    for overlay in ("dev", "../overlays/dev"):
        done = run_in(repository / "blueprints", "render", "job.yaml", "--overlay", overlay, "--stdout")
        assert done.returncode == 0, done.stderr
        assert {o["metadata"]["namespace"] for o in done.objects()} == {"dev"}


def test_the_nearest_mpigen_yaml_wins(repository, run_in):
    inner = repository / "teams" / "vision"
    write(inner / "mpigen.yaml", CONFIG_HEAD + "blueprints: [jobs]\noutput: out\n")
    write(inner / "jobs" / "resnet.yaml", blueprint_text("resnet"))
    (inner / "jobs" / "more").mkdir()
    done = run_in(inner / "jobs" / "more", "render")
    assert done.returncode == 0, done.stderr
    assert sorted(files(inner / "out")) == sorted(["kustomization.yaml", ".mpigen-index"] + [
        f"default/{kind}-resnet-{suffix}.yaml" for kind, suffix in (
            ("configmap", "config"), ("serviceaccount", "launcher"), ("role", "launcher"),
            ("rolebinding", "launcher"), ("statefulset", "worker"), ("job", "launcher"))])
    assert not (repository / "rendered").exists()


def test_verbose_says_which_mpigen_yaml_on_standard_error(repository, run_in):
    quiet = run_in(repository / "docs", "render", "--stdout")
    done = run_in(repository / "docs", "render", "--stdout", "-v")
    assert done.returncode == 0 and done.stdout == quiet.stdout
    root = repository.resolve().as_posix()
    assert done.stderr == (f"mpigen: using {root}/mpigen.yaml (the paths in it and in the messages are relative to "
                           f"{root})\n")
    assert quiet.stderr == ""
    for command in ("validate", "check"):
        done = run_in(repository / "docs", command, "--verbose")
        assert done.stderr.splitlines()[0] == f"mpigen: using {root}/mpigen.yaml (the paths in it and in the " \
                                              f"messages are relative to {root})", done.stderr


def test_problems_found_from_a_sub_folder_name_the_repository_s_files(repository, run_in):
    """Messages name files as the output does, relative to the repository: mpigen.yaml at its line."""
    config = write(repository / "mpigen.yaml", CONFIG.replace("[dev]", "[dve]"))
    done = run_in(repository / "blueprints", "validate")
    line, column = pos(config, "dve")
    assert done.returncode == 2 and done.lines("error") == [
        f"mpigen.yaml:{line}:{column}: error: no overlay named 'dve' (overlays/dve does not exist); the overlays "
        "are dev; did you mean 'dev'?"]
    write(repository / "mpigen.yaml", CONFIG)
    text = write(repository / "blueprints" / "job.yaml", blueprint_text("job", workers=0))
    done = run_in(repository / "blueprints", "validate", "job.yaml")
    line, column = pos(text, '"workers": 0', "0")
    assert done.returncode == 2
    assert done.lines("error") == [f"blueprints/job.yaml:{line}:{column}: error: spec.workers: must be >= 1, got 0"]


def test_outside_any_repository_render_says_so_and_shows_the_ways_on(tmp_path, run_in):
    write(tmp_path / "blueprints" / "job.yaml", blueprint_text("job"))
    done = run_in(tmp_path, "render")
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr == ("error: no mpigen.yaml in this folder or any folder above it to name the output "
                           "folder: say where the output goes, mpigen render PATH --stdout or mpigen render PATH -o "
                           "DIR, or create mpigen.yaml at the top of the repository (docs/overlays.md#mpigenyaml)\n")
    assert sorted(os.listdir(tmp_path)) == ["blueprints"]
    done = run_in(tmp_path, "check")
    assert done.returncode == 2 and done.stderr == ("error: say which output folder to check: -o DIR (no "
                                                    "mpigen.yaml in this folder or any folder above it to name it)\n")


def test_outside_any_repository_without_blueprints_validate_says_so(tmp_path, run_in):
    """Not `error: blueprints: no such file or folder`: the folder was never asked for."""
    for command in (("validate",), ("render", "--stdout"), ("validate", "-v")):
        done = run_in(tmp_path, *command)
        assert done.returncode == 2 and done.stdout == b""
        lines = done.stderr.splitlines()
        if "-v" in command:
            assert lines.pop(0) == ("mpigen: no mpigen.yaml in this folder or any folder above it: reading the "
                                    "paths given, else blueprints/, with the default options")
        assert lines == ["error: no mpigen.yaml in this folder or any folder above it, and no blueprints/ folder "
                         "here to read by default: name the blueprints (mpigen validate PATH, mpigen render PATH "
                         "--stdout or -o DIR), or create mpigen.yaml at the top of the repository "
                         "(docs/overlays.md#mpigenyaml)"]


def test_with_mpigen_yaml_and_a_path_render_still_needs_the_output(repository, run_in):
    done = run_in(repository / "blueprints", "render", "job.yaml")
    assert done.returncode == 2 and done.stderr == (
        "error: say where the output goes: --stdout or -o DIR (mpigen.yaml names the output folder of the "
        "whole repository, rendered with no PATH)\n")
