"""Which cache folder a run may use (mpigen.cache.folder), judged as root on folders of real owners
(chown), as the user nobody, and on a read-only tmpfs: the cases of tests/unit/cache/test_folder.py
that need root or another user."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from mpigen.cache.folder import OWN, TAG, TAG_NAME, judged
from tests.support.any_user import AS_NOBODY, any_user_install
from tests.support.cache_entries import refused, used
from tests.support.output_machine import NOBODY, need_root, sticky_folder, tmpfs


def test_a_tag_of_another_user_does_not_make_a_folder_mpigens(tmp_path):
    need_root()
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / TAG_NAME).write_bytes(TAG)
    os.chown(folder / TAG_NAME, NOBODY, NOBODY)
    assert used(folder) == folder / OWN


def test_a_folder_of_another_user_is_not_used(tmp_path):
    need_root()
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    os.chown(folder, NOBODY, NOBODY)
    assert f"{folder} belongs to another user (uid {NOBODY})" in refused(folder)
    assert list(folder.iterdir()) == []


def test_no_folder_is_made_in_a_folder_of_another_user(tmp_path):
    """`sudo mpigen` with HOME kept: the home is the user's, its .cache missing."""
    need_root()
    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    os.chown(home, NOBODY, NOBODY)
    assert f"{home} belongs to another user (uid {NOBODY})" in refused(home / ".cache" / "mpigen")
    assert list(home.iterdir()) == []


def test_a_link_of_another_user_on_the_way_is_refused(tmp_path):
    need_root()
    (tmp_path / "real").mkdir()
    (tmp_path / "planted").symlink_to("real")
    os.lchown(tmp_path / "planted", NOBODY, NOBODY)
    assert f"{tmp_path / 'planted'} is a link of another user (uid {NOBODY})" in refused(tmp_path / "planted" / "c2")
    assert not (tmp_path / "real" / "c2").exists()


def test_a_folder_that_cannot_be_reached_is_one_warning():
    """Judged as the user nobody, who may not look into a folder of mode 0700."""
    need_root()
    script = "import sys; from mpigen.cache.folder import judged; print(judged(sys.argv[1]).warning)"
    with sticky_folder() as shared:
        (shared / "private").mkdir(mode=0o700)
        done = subprocess.run([*AS_NOBODY, str(any_user_install().python), "-c", script,
                               str(shared / "private" / "cache")],
                              capture_output=True, text=True, cwd="/")
    assert done.returncode == 0, done.stderr
    named = shared / "private" / "cache"
    assert done.stdout == (f"warning: {named}: the cache is not used: {named} cannot be reached (Permission "
                           "denied); set MPIGEN_CACHE_DIR to a folder of your own (the output is the same without "
                           "it)\n")


def test_a_folder_the_machine_refuses_to_make_or_claim_is_no_cache_in_silence(tmp_path):
    with tmpfs(tmp_path / "ro", "1m") as mounted:
        (mounted / "empty").mkdir(mode=0o700)
        subprocess.run(["mount", "-o", "remount,ro", str(mounted)], check=True)
        assert judged(mounted / "cache") == (None, None)  # cannot be made
        assert judged(mounted / "empty") == (None, None)  # cannot be claimed
