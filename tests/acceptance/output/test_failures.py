"""`render -o DIR` on a hostile machine (issue 15, defects 4, 5 and 8): whatever fails (no
permission, a full disk, a read-only file system, a mount point), DIR holds exactly the old
state or the complete new one, the cause is one `error:` line and exit 2, and the owner and
mode of what exists are kept.

The machine's facts come from the machine: a user who may not write (setpriv to nobody),
a full disk (a small tmpfs), an output folder that is a mount point (a tmpfs mounted on
it), a kill -9 in the middle of the write, two renders at once. Tests that need root or
mount skip with the reason, except under CI=true, where they fail instead.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.command_line import run_mpigen
from tests.support.output_machine import (NOBODY, as_nobody, assert_index_lists_exactly_its_files, blueprints,
                                          chown_tree, error_lines, files_of, leftovers, need_root, snapshot, tmpfs)


# --- defects 4 and 8: failures keep the old state, exit 2 ---------------------------------

def test_an_output_path_whose_parent_cannot_be_created(tmp_path):
    blueprints(tmp_path / "bp", ["one"])
    (tmp_path / "file").write_text("x")
    done = run_mpigen("render", "bp", "-o", "file/sub/out", cwd=tmp_path)
    assert done.returncode == 2
    (line,) = error_lines(done.stderr)
    assert line == ("error: file/sub/out: cannot create the folder file: Not a directory; a file is in the way: "
                    "move it, or choose another output folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bp", "file"]


def test_no_permission_to_create_the_output_folder(shared):
    blueprints(shared / "bp", ["one"])
    (shared / "locked").mkdir(mode=0o755)
    done = as_nobody("render", "bp", "-o", "locked/deep/out", cwd=shared)
    assert done.returncode == 2, done.stderr
    (line,) = error_lines(done.stderr)
    assert line.startswith("error: locked/deep/out: cannot create the folder locked/deep: Permission denied; "
                           "give this user permission there")
    assert list((shared / "locked").iterdir()) == []


def test_an_output_folder_this_user_may_not_write_into(shared):
    """Rendered by root; nobody may write the parent (so could swap the folder) but not
    the folder itself, which mpigen then must not replace with one of its own."""
    blueprints(shared / "bp", ["one", "two"])
    assert run_mpigen("render", "bp", "-o", "w/out", cwd=shared).returncode == 0
    (shared / "w").chmod(0o777)
    blueprints(shared / "bp", ["one", "two"], image="example.com/train:2")
    before = snapshot(shared / "w")
    done = as_nobody("render", "bp", "-o", "w/out", cwd=shared)
    assert done.returncode == 2, done.stderr
    # root's index lists nothing of nobody's (issue 28): each changed file is in the way
    assert b"warning: w/out/.mpigen-index: set aside: another user, root (uid 0), owns it;" in done.stderr
    assert error_lines(done.stderr) == [f"error: w/out/team/{file}: refusing to overwrite team/{file}: mpigen did not "
                                        "write it (it is not in .mpigen-index); move it away or choose another "
                                        "output folder" for file in ("job-one-launcher.yaml", "job-two-launcher.yaml",
                                                                     "statefulset-one-worker.yaml",
                                                                     "statefulset-two-worker.yaml")]
    assert snapshot(shared / "w") == before


def test_a_folder_of_the_output_this_user_may_not_write_into_is_undone(shared):
    """The user's own output folder, but one namespace folder belongs to root: the files
    renamed in before the refusal are put back."""
    blueprints(shared / "bp", ["one"], namespace="aaa")
    blueprints(shared / "bp", ["two"], namespace="zzz")
    out = shared / "out"
    assert as_nobody("render", "bp", "-o", "out", cwd=shared).returncode == 0
    chown_tree(out / "zzz", 0, 0)
    blueprints(shared / "bp", ["one"], namespace="aaa", image="example.com/train:2")
    blueprints(shared / "bp", ["two"], namespace="zzz", image="example.com/train:2")
    before = snapshot(out)
    done = as_nobody("render", "bp", "-o", "out", cwd=shared)
    assert done.returncode == 2, done.stderr
    (line,) = error_lines(done.stderr)
    assert line.startswith("error: out/zzz/") and ": cannot write: Permission denied;" in line
    assert line.endswith("(out is unchanged)")
    assert snapshot(out) == before and leftovers(out) == []


def test_an_unreadable_folder_inside_the_output_folder(shared):
    blueprints(shared / "bp", ["one"])
    out = shared / "out"
    assert as_nobody("render", "bp", "-o", "out", cwd=shared).returncode == 0
    (out / "private").mkdir(mode=0o700)  # root's
    before = snapshot(out)
    for command in ("render", "check"):
        # (without the cache: the full render lists the folder; one the run's record answers
        # touches only the files it recorded, and never looks into this one)
        done = as_nobody(command, "bp", "-o", "out", "--no-cache", cwd=shared)
        assert done.returncode == 2, done.stderr
        assert error_lines(done.stderr) == ["error: out/private: cannot read: Permission denied; give this user "
                                            "permission there, or choose another output folder"]
    assert snapshot(out) == before


def fill(folder: Path, leave: int) -> None:
    """Fill the file system of `folder` up to `leave` free bytes, with a user's file."""
    free = os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize
    (folder / "filler").write_bytes(b"\0" * max(free - leave, 0))


def test_a_full_disk_keeps_the_old_state(tmp_path):
    blueprints(tmp_path / "bp", [f"job-{i:02d}" for i in range(30)])
    with tmpfs(tmp_path / "disk", "4m") as disk:
        assert run_mpigen("render", "bp", "-o", "disk/out", cwd=tmp_path).returncode == 0
        blueprints(tmp_path / "bp", [f"job-{i:02d}" for i in range(30)], image="example.com/train:2")
        fill(disk, 20 * 4096)  # room for a third of the changed files (a page each)
        before = snapshot(disk)
        done = run_mpigen("render", "bp", "-o", "disk/out", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        (line,) = error_lines(done.stderr)
        assert line.startswith("error: disk/out/team/") and line.endswith(
            ": cannot write: No space left on device; free some space on its file system, then run mpigen again "
            "(disk/out is unchanged)")
        assert snapshot(disk) == before
        (disk / "filler").unlink()
        assert run_mpigen("render", "bp", "-o", "disk/out", cwd=tmp_path).returncode == 0
        assert b"train:2" in (disk / "out" / "team" / "job-job-00-launcher.yaml").read_bytes()
        assert_index_lists_exactly_its_files(disk / "out") and leftovers(disk / "out") == []


def test_a_full_disk_or_a_read_only_one_under_a_new_output_folder(tmp_path):
    blueprints(tmp_path / "bp", [f"job-{i:02d}" for i in range(30)])
    with tmpfs(tmp_path / "disk", "100k") as disk:
        done = run_mpigen("render", "bp", "-o", "disk/a/b/out", cwd=tmp_path)
        assert done.returncode == 2
        (line,) = error_lines(done.stderr)
        assert line.startswith("error: disk/a/b/out/team/") and line.endswith(
            ": cannot write: No space left on device; free some space on its file system, then run mpigen again")
        assert list(disk.iterdir()) == []  # nor the folders made for it
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        done = run_mpigen("render", "bp", "-o", "disk/out", cwd=tmp_path)
        assert done.returncode == 2
        assert error_lines(done.stderr) == ["error: disk/out: cannot create the folder: Read-only file system; its "
                                            "file system is read-only: choose another output folder"]


def test_a_read_only_file_system(tmp_path):
    blueprints(tmp_path / "bp", ["one"])
    with tmpfs(tmp_path / "disk", "1m") as disk:
        assert run_mpigen("render", "bp", "-o", "disk/out", cwd=tmp_path).returncode == 0
        blueprints(tmp_path / "bp", ["one"], image="example.com/train:2")
        before = snapshot(disk)
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        done = run_mpigen("render", "bp", "-o", "disk/out", cwd=tmp_path)
        assert done.returncode == 2
        assert error_lines(done.stderr) == ["error: disk/out: cannot write: Read-only file system; its file system "
                                            "is read-only: choose another output folder (disk/out is unchanged)"]
        assert snapshot(disk) == before


def test_an_output_folder_that_is_a_mount_point(tmp_path):
    """The folder cannot be swapped: files are staged inside it and renamed in; the result
    is the same as in any other folder, and a full disk keeps the old state."""
    names = [f"job-{i:02d}" for i in range(30)]
    blueprints(tmp_path / "bp", names)
    reference = tmp_path / "reference"
    with tmpfs(tmp_path / "out", "4m") as out:
        (out / "README.md").write_text("mine\n")
        for image in ("example.com/train:1", "example.com/train:2"):
            blueprints(tmp_path / "bp", names, image=image)
            done = run_mpigen("render", "bp", "-o", "out", cwd=tmp_path)
            assert done.returncode == 0, done.stderr
            shutil.rmtree(reference, ignore_errors=True)
            assert run_mpigen("render", "bp", "-o", "reference", cwd=tmp_path).returncode == 0
            assert files_of(out) == {**files_of(reference), "README.md": b"mine\n"}
            assert leftovers(out) == []
        blueprints(tmp_path / "bp", names[:20], image="example.com/train:3")
        (tmp_path / "bp" / "job-29.yaml").unlink()
        fill(out, 10 * 4096)
        before = snapshot(out)
        done = run_mpigen("render", "bp", "-o", "out", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        (line,) = error_lines(done.stderr)
        assert ": cannot write: No space left on device;" in line and line.endswith("(out is unchanged)")
        assert snapshot(out) == before and leftovers(out) == []


# --- defect 5: owners and modes --------------------------------------------------------------

@pytest.mark.parametrize("mounted", [False, True], ids=["folder", "mount-point"])
def test_a_run_as_root_keeps_the_owner_and_mode_of_what_exists(tmp_path, mounted):
    need_root()
    blueprints(tmp_path / "bp", ["one"])
    with (tmpfs(tmp_path / "out", "4m") if mounted else contextlib.nullcontext(tmp_path / "out")) as out:
        assert run_mpigen("render", "bp", "-o", "out", cwd=tmp_path).returncode == 0
        chown_tree(out, NOBODY, NOBODY)
        out.chmod(0o750)
        (out / "team").chmod(0o2770)
        (out / "notes").mkdir(mode=0o700)
        os.chown(out / "notes", NOBODY, NOBODY)
        (out / "team" / "job-one-launcher.yaml").chmod(0o640)
        blueprints(tmp_path / "bp", ["one"], image="example.com/train:2")
        blueprints(tmp_path / "bp", ["two"], namespace="other")
        before = snapshot(out)
        # as `sudo mpigen render` by the folder's owner: its index is the user's (git's rule for sudo)
        done = run_mpigen("render", "bp", "-o", "out", cwd=tmp_path, preexec_fn=lambda: os.umask(0o022),
                          env={**os.environ, "SUDO_UID": str(NOBODY)})
        assert done.returncode == 0, done.stderr
        after = snapshot(out)
        for rel in ("", "team", "notes", "team/job-one-launcher.yaml", "kustomization.yaml", ".mpigen-index"):
            assert after[rel][2:5] == before[rel][2:5], rel  # uid, gid, mode
        assert b"train:2" in (out / "team" / "job-one-launcher.yaml").read_bytes()
        assert after["other"][2:5] == (0, 0, 0o755)  # a folder mpigen made: its user, the umask
        assert after["other/job-two-launcher.yaml"][2:5] == (0, 0, 0o644)
