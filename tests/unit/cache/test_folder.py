"""Which cache folder a run may use (mpigen.cache.folder), judged on real folders: mpigen's own
(made, claimed when empty, or tagged), else its sub-folder `mpigen`; never a folder that
another user could write into or swap, nor one on the way to which another user could; the
machine's refusals in silence. Modes are the machine's: the tests change them (chmod) and read
them back with stat; the cases that need root or another user (chown, nobody, a read-only tmpfs)
are in tests/system/machine/test_cache_folder_owners.py."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from mpigen.cache.folder import OWN, TAG, TAG_NAME, cache_folder, judged
from tests.support.cache_entries import refused, used
from tests.support.output_machine import sticky_folder


def tree(root: Path) -> dict[str, tuple]:
    """Every path under `root`: its kind, mode, owner and bytes."""
    out = {}
    for path in sorted(root.rglob("*")):
        status = path.lstat()
        data = path.read_bytes() if stat.S_ISREG(status.st_mode) else None
        out[path.relative_to(root).as_posix()] = (stat.S_IFMT(status.st_mode), stat.S_IMODE(status.st_mode),
                                                 status.st_uid, data)
    return out


def test_a_missing_folder_is_made_private_with_its_tag_and_gitignore(tmp_path):
    folder = tmp_path / "a" / "b" / "cache"
    assert used(folder) == folder
    for made in (tmp_path / "a", tmp_path / "a" / "b", folder):
        assert stat.S_IMODE(made.stat().st_mode) == 0o700
    assert (folder / TAG_NAME).read_bytes() == TAG and (folder / ".gitignore").read_bytes() == b"*\n"
    assert sorted(p.name for p in folder.iterdir()) == [".gitignore", TAG_NAME]


def test_an_empty_folder_is_claimed_and_a_tagged_one_used_untouched(tmp_path):
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o755)
    assert used(folder) == folder and (folder / TAG_NAME).read_bytes() == TAG
    (folder / ".gitignore").write_text("# the user's own\n")
    before = tree(folder)
    assert used(folder) == folder
    assert tree(folder) == before


def test_a_folder_holding_other_files_is_left_alone_and_its_own_sub_folder_used(tmp_path):
    folder = tmp_path / "cache"
    (folder / "v1").mkdir(parents=True)
    (folder / ".gitignore").write_text("build/\n")
    (folder / "v1" / "notes").write_text("mine")
    before = tree(folder)
    assert used(folder) == folder / OWN
    after = tree(folder)
    assert {path: entry for path, entry in after.items() if not path.startswith(f"{OWN}")} == before
    assert (folder / OWN / TAG_NAME).read_bytes() == TAG and stat.S_IMODE((folder / OWN).stat().st_mode) == 0o700


@pytest.mark.parametrize("tag", ["another tool's", "a link to mpigen's", "a folder"])
def test_only_mpigens_own_tag_makes_a_folder_mpigens(tmp_path, tag):
    folder = tmp_path / "cache"
    folder.mkdir()
    if tag == "another tool's":  # the same signature, another comment
        (folder / TAG_NAME).write_bytes(TAG.split(b"\n")[0] + b"\n# made by another tool\n")
    elif tag == "a link to mpigen's":
        (tmp_path / "tag").write_bytes(TAG)
        (folder / TAG_NAME).symlink_to(tmp_path / "tag")
    else:
        (folder / TAG_NAME).mkdir()
    assert used(folder) == folder / OWN


def test_a_sub_folder_holding_files_of_others_too_is_one_warning(tmp_path):
    folder = tmp_path / "cache"
    (folder / OWN).mkdir(parents=True, mode=0o700)
    (folder / OWN / "notes").write_text("mine")
    before = tree(folder)
    line = refused(folder)
    assert f"{folder} holds files mpigen did not make" in line and f"empty {folder / OWN}" in line
    assert tree(folder) == before


@pytest.mark.parametrize("mode", [0o2770, 0o770, 0o777, 0o1777, 0o720, 0o702])
def test_a_folder_others_may_write_into_is_not_used(tmp_path, mode):
    folder = tmp_path / "cache"
    folder.mkdir()
    folder.chmod(mode)
    line = refused(folder)
    assert f"others may write into {folder} (mode {mode:04o})" in line and f"chmod go-w {folder}" in line
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o757])
def test_a_folder_on_the_way_that_others_may_write_into_is_not_used(tmp_path, mode):
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared").chmod(mode)
    line = refused(tmp_path / "shared" / "me" / "cache")
    assert f"others may write into {tmp_path / 'shared'} (mode {mode:04o})" in line
    assert list((tmp_path / "shared").iterdir()) == []  # nothing made below it


def test_a_sticky_folder_on_the_way_is_used_as_tmp_is():
    with sticky_folder() as shared:
        assert used(shared / "cache") == shared / "cache"


def test_links_on_the_way_are_followed_and_judged_by_their_owner(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to("real")
    (tmp_path / "up").symlink_to(tmp_path / "real" / "..")
    assert used(tmp_path / "link" / "cache") == tmp_path / "real" / "cache"
    assert used(tmp_path / "up" / "real" / "cache") == tmp_path / "real" / "cache"


def test_a_file_in_the_way_and_a_loop_of_links_are_one_warning(tmp_path):
    (tmp_path / "file").write_text("")
    assert f"{tmp_path / 'file'} is not a folder" in refused(tmp_path / "file" / "cache")
    (tmp_path / "loop").symlink_to("loop")
    assert f"the way to it meets more than 40 links (at {tmp_path / 'loop'})" in refused(tmp_path / "loop" / "cache")


def test_the_folder_named_is_absolute_and_no_home_is_no_cache(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPIGEN_CACHE_DIR", "relative/cache")
    assert cache_folder() == tmp_path / "relative" / "cache"
    monkeypatch.delenv("MPIGEN_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_folder() == tmp_path / "xdg" / "mpigen"
    assert judged(None) == (None, None)
