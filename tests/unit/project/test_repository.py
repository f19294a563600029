"""The repository a run works in (mpigen.project.repository), found as git finds its own: the
nearest folder from the working folder up that holds mpigen.yaml; a run from a sub-folder moves
to it and reads the paths typed in the sub-folder from there (as `git -C` and git's pathspecs
relative to the working folder do)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mpigen.project.repository import Moved, enter_repository, find_config
from tests.support.text import write

CONFIG = "apiVersion: mpigen.dev/v1alpha1\nkind: Config\n"


def test_the_nearest_mpigen_yaml_from_the_folder_up(tmp_path):
    write(tmp_path / "mpigen.yaml", CONFIG)
    write(tmp_path / "team" / "mpigen.yaml", CONFIG)
    (tmp_path / "team" / "deep" / "deeper").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    assert find_config(tmp_path / "team" / "deep" / "deeper") == tmp_path / "team" / "mpigen.yaml"
    assert find_config(tmp_path / "other") == tmp_path / "mpigen.yaml"
    assert find_config(tmp_path) == tmp_path / "mpigen.yaml"


def test_none_when_no_folder_above_holds_one(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    found = find_config(tmp_path / "a" / "b")
    assert found is None or not found.is_relative_to(tmp_path)  # (one above the test's folder is not ours)


def test_a_broken_link_named_mpigen_yaml_is_found_so_that_it_is_reported(tmp_path):
    (tmp_path / "mpigen.yaml").symlink_to(tmp_path / "missing.yaml")
    assert find_config(tmp_path) == tmp_path / "mpigen.yaml"


def test_a_run_from_a_sub_folder_moves_to_the_repository(tmp_path, monkeypatch):
    write(tmp_path / "mpigen.yaml", CONFIG)
    (tmp_path / "blueprints" / "team").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "blueprints" / "team")
    moved = enter_repository()
    assert moved == Moved(tmp_path, os.path.join("blueprints", "team"))
    assert Path.cwd() == tmp_path


def test_a_run_at_the_top_stays(tmp_path, monkeypatch):
    write(tmp_path / "mpigen.yaml", CONFIG)
    monkeypatch.chdir(tmp_path)
    assert enter_repository() is None and Path.cwd() == tmp_path


@pytest.mark.parametrize("given, seen", [
    ("job.yaml", "blueprints/team/job.yaml"),
    ("../other.yaml", "blueprints/other.yaml"),
    ("./sub/../job.yaml", "blueprints/team/job.yaml"),
    (".", "blueprints/team"),
    ("/abs/job.yaml", "/abs/job.yaml"),
])
def test_paths_typed_in_the_sub_folder_are_read_from_the_repository(given, seen):
    assert Moved(Path("/repo"), "blueprints/team").path(given) == seen
