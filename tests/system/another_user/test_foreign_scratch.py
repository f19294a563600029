"""A run repairs only what a killed run of the same user left: folders named like mpigen's
scratch folders that another user put beside DIR (a shared folder such as /tmp holds
anybody's) or inside it (a folder others may write into) are never renamed into place,
removed or read, and a journal that names a path outside DIR moves nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.support.command_line import run_mpigen
from tests.support.output_machine import NOBODY, blueprints, chown_tree, files_of, index_of, need_root


@pytest.fixture
def shared():
    """A folder every user may write into, as /tmp is (sticky, mode 1777)."""
    need_root()
    path = Path(tempfile.mkdtemp(prefix="mpigen-scratch-", dir="/tmp"))
    path.chmod(0o1777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def planted(folder: Path, files: dict[str, str], owner: int = NOBODY, mode: int = 0o700) -> dict:
    """A folder of `owner` holding `files`, as another user would leave it; what it holds."""
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    chown_tree(folder, owner, owner)
    folder.chmod(mode)
    return files_of(folder)


def render(root: Path) -> subprocess.CompletedProcess:
    done = run_mpigen("render", "bp", "-o", "out", cwd=root)
    assert done.returncode == 0, done.stderr
    return done


def test_another_users_backup_beside_a_missing_folder_is_not_put_in_its_place(shared):
    blueprints(shared / "bp", ["one"])
    backup = shared / f".out.mpigen-old-{dead_pid()}-x1"
    backup.mkdir()
    held = planted(backup, {"kustomization.yaml": "resources: [evil.yaml]\n", "evil.yaml": "kind: Secret\n"})
    render(shared)
    assert files_of(backup) == held and backup.stat().st_uid == NOBODY
    out = shared / "out"
    assert out.stat().st_uid == os.geteuid() and "evil.yaml" not in files_of(out)
    assert set(index_of(out)) == set(files_of(out)) - {".mpigen-index"}


def test_another_users_staging_folder_beside_the_output_is_left_alone(shared):
    blueprints(shared / "bp", ["one"])
    render(shared)
    staging = shared / f".out.mpigen-{dead_pid()}-x2"
    staging.mkdir()
    held = planted(staging, {"notes.txt": "mine\n"})
    blueprints(shared / "bp", ["one", "two"])
    render(shared)
    assert files_of(staging) == held


@pytest.mark.parametrize("owner, mode", [(NOBODY, 0o700), (0, 0o777)], ids=["another user's", "writable by all"])
def test_a_stage_inside_the_output_that_is_not_this_users_own_is_not_rolled_back(shared, owner, mode):
    blueprints(shared / "bp", ["one"])
    render(shared)
    out = shared / "out"
    out.chmod(0o777)  # a folder others may write into
    before = files_of(out)
    stage = out / f".mpigen-stage-{dead_pid()}-x3"
    stage.mkdir()
    journal = {"folders": [], "paths": ["kustomization.yaml"], "stale": [], "new": []}
    held = planted(stage, {"journal.json": json.dumps(journal), "new/.mpigen-index": "{}",
                           "old/kustomization.yaml": "resources: [evil.yaml]\n"}, owner, mode)
    render(shared)
    assert files_of(stage) == held
    assert {k: v for k, v in files_of(out).items() if not k.startswith(stage.name)} == before


def test_a_journal_naming_a_path_outside_the_output_moves_nothing(tmp_path):
    from mpigen.output.recovery import recover_abandoned

    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "victim.txt").write_text("the user's\n")
    stage = out / f".mpigen-stage-{dead_pid()}-x4"
    (stage / "old").mkdir(parents=True)
    (stage / "victim.txt").write_text("evil\n")  # stage/old/../victim.txt
    (stage / "new").mkdir()
    (stage / "new" / ".mpigen-index").write_text("{}")
    (stage / "journal.json").write_text(json.dumps({"folders": [], "paths": ["../victim.txt"], "stale": [],
                                                     "new": ["../victim.txt"]}))
    stage.chmod(0o700)
    assert recover_abandoned(out) == [stage]
    assert (tmp_path / "victim.txt").read_text() == "the user's\n" and not stage.exists()
