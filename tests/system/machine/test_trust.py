"""Whose an mpigen.yaml is (mpigen.load.trust), judged on real files given real owners (chown,
as root) and on the environment a run really gets (SUDO_UID, MPIGEN_SAFE_DIRECTORIES): git's
rule for safe.directory, as its documentation states it (Documentation/config/safe.adoc):
the user's own files are the user's; root's are root's and, when SUDO_UID holds a uid, that
user's too; a link is judged by its own owner (git uses lstat). The command line's behaviour,
and the same rule checked against git itself, are in tests/system/another_user/test_foreign_config.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mpigen.load.trust import foreign, refusal, trusted_by
from tests.support.output_machine import NOBODY, need_root

OTHER = 4321  # a uid no one on the machine has


@pytest.fixture
def repository(tmp_path, monkeypatch) -> Path:
    """A folder holding an mpigen.yaml, both root's; no SUDO_UID, nothing trusted."""
    need_root()
    monkeypatch.delenv("SUDO_UID", raising=False)
    monkeypatch.delenv("MPIGEN_SAFE_DIRECTORIES", raising=False)
    folder = tmp_path / "repo"
    folder.mkdir()
    (folder / "mpigen.yaml").write_text("apiVersion: mpigen.dev/v1alpha1\nkind: Config\n")
    return folder


def owned(path: Path, uid: int) -> Path:
    os.chown(path, uid, uid, follow_symlinks=False)
    return path


def test_the_user_s_own_file_in_the_user_s_own_folder_is_the_user_s(repository):
    assert foreign(repository / "mpigen.yaml") is None


def test_another_user_s_file_is_foreign_with_its_owner(repository):
    found = foreign(owned(repository / "mpigen.yaml", NOBODY))
    assert (found.owner, found.in_folder, found.trusted_by) == (NOBODY, False, None)
    assert found.whose == "owned by nobody (uid 65534), not by you (root)"


def test_the_user_s_file_in_another_user_s_folder_is_foreign_too(repository):
    """git checks the repository's top folder, not only its files."""
    found = foreign(owned(repository, NOBODY) / "mpigen.yaml")
    assert (found.owner, found.in_folder) == (NOBODY, True)
    assert found.whose == "in a folder owned by nobody (uid 65534), not by you (root)"


def test_a_uid_the_system_does_not_name_is_shown_as_its_number(repository):
    assert foreign(owned(repository / "mpigen.yaml", OTHER)).whose == f"owned by uid {OTHER}, not by you (root)"


def test_a_link_is_judged_by_its_own_owner_as_git_does(repository, tmp_path):
    """git reads owners with lstat: a link root made is root's, wherever it points, and a
    link another user made is theirs, even to root's own file."""
    target = tmp_path / "theirs.yaml"
    target.write_text("apiVersion: mpigen.dev/v1alpha1\nkind: Config\n")
    owned(target, NOBODY)
    (repository / "mpigen.yaml").unlink()
    (repository / "mpigen.yaml").symlink_to(target)
    assert foreign(repository / "mpigen.yaml") is None
    owned(target, 0)
    assert foreign(owned(repository / "mpigen.yaml", NOBODY)).owner == NOBODY


@pytest.mark.parametrize(("sudo_uid", "file_owner", "folder_owner", "theirs"), [
    ("65534", NOBODY, NOBODY, None),  # `sudo mpigen` in the user's own repository
    ("65534", 0, 0, None),  # root's own stays root's ("in addition to the id from 'root'")
    ("65534", NOBODY, 0, None),  # both ids count for each path
    ("65534", OTHER, NOBODY, OTHER),  # a third user's file is not the sudo user's
    ("", NOBODY, NOBODY, NOBODY),  # an empty SUDO_UID is no uid
    ("65534x", NOBODY, NOBODY, NOBODY),  # neither is one that is not a number (git's strtoul check)
    ("-1", NOBODY, NOBODY, NOBODY),
])
def test_root_run_by_sudo_owns_what_the_sudo_user_owns(repository, monkeypatch, sudo_uid, file_owner, folder_owner,
                                                       theirs):
    monkeypatch.setenv("SUDO_UID", sudo_uid)
    owned(repository / "mpigen.yaml", file_owner)
    found = foreign(owned(repository, folder_owner) / "mpigen.yaml")
    assert (found and found.owner) == theirs


def test_the_user_s_word_names_the_folder_or_every_folder(repository, monkeypatch, tmp_path):
    config = owned(repository / "mpigen.yaml", NOBODY)
    (tmp_path / "link").symlink_to(repository)
    monkeypatch.setenv("HOME", str(tmp_path))  # ~/repo is the repository
    for value, entry in [(str(repository), str(repository)), (f"{repository}/", f"{repository}/"),
                         (f"/elsewhere{os.pathsep}{os.pathsep}{repository}", str(repository)),
                         (str(tmp_path / "link"), str(tmp_path / "link")), ("~/repo", "~/repo"),
                         (f"/elsewhere{os.pathsep}*", "*")]:
        monkeypatch.setenv("MPIGEN_SAFE_DIRECTORIES", value)
        assert foreign(config).trusted_by == entry, value


@pytest.mark.parametrize("value", ["", "repo", "./repo", "{parent}", "{repository}/mpigen.yaml", "{repository}x",
                                   "{repository}/sub"])
def test_a_relative_path_a_parent_or_the_file_itself_trusts_nothing(repository, monkeypatch, value):
    """An entry names one repository's folder: not the folders below a parent (git's `/*`
    suffix is not taken), and a relative path means no folder (it would change with the
    working folder)."""
    monkeypatch.chdir(repository.parent)
    monkeypatch.setenv("MPIGEN_SAFE_DIRECTORIES", value.format(parent=repository.parent, repository=repository))
    assert trusted_by(repository) is None
    assert foreign(owned(repository / "mpigen.yaml", NOBODY)).trusted_by is None


def test_the_refusal_says_whose_how_to_trust_it_and_how_to_go_on(repository, monkeypatch):
    found = foreign(owned(repository / "mpigen.yaml", NOBODY))
    how = ("owned by nobody (uid 65534), not by you (root): mpigen uses another user's mpigen.yaml only when you "
           "say it is safe, as git does a repository; if you trust it, add its folder to MPIGEN_SAFE_DIRECTORIES ")
    assert str(refusal(found, here=True)) == (
        f"error: {repository}/mpigen.yaml: {how}(export MPIGEN_SAFE_DIRECTORIES={repository}), else work in a "
        "copy of your own")
    assert str(refusal(found, here=False)).endswith(
        f"(export MPIGEN_SAFE_DIRECTORIES={repository}), else run mpigen outside {repository}, or in a folder of "
        "yours that holds an mpigen.yaml of its own (the nearest is used)")
    monkeypatch.setenv("MPIGEN_SAFE_DIRECTORIES", "/srv/other")  # what the user trusts already is kept
    assert f'(export MPIGEN_SAFE_DIRECTORIES="$MPIGEN_SAFE_DIRECTORIES":{repository})' in str(refusal(found, True))


def test_the_refusal_quotes_a_folder_for_the_shell(tmp_path, monkeypatch):
    need_root()
    monkeypatch.delenv("MPIGEN_SAFE_DIRECTORIES", raising=False)
    folder = tmp_path / "team repo"
    folder.mkdir()
    (folder / "mpigen.yaml").write_text("")
    found = foreign(owned(folder / "mpigen.yaml", NOBODY))
    assert f"(export MPIGEN_SAFE_DIRECTORIES='{folder}')" in str(refusal(found, here=True))


def test_sudo_names_both_users(repository, monkeypatch):
    monkeypatch.setenv("SUDO_UID", str(NOBODY))
    found = foreign(owned(repository / "mpigen.yaml", OTHER))
    assert found.whose == f"owned by uid {OTHER}, not by you (root or nobody by sudo)"
