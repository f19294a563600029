"""What mpigen saw of an output folder (mpigen.cache.folders) only ever saves reading a file:
a file changed by hand is found by render and check whatever its size and mtime say, a
small change is written in place (the folder and every other file untouched, ctime
included), and a text the cache lost during a run stops the run instead of being written."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from mpigen.cache import folders
from mpigen.cache.folder import judged
from mpigen.output import changes, staleness, write
from tests.support.blueprints import blueprint_text
from tests.support.cache_repository import entries

JOBS = 40  # files: 7 per job, so that one job is less than one file in 16


@pytest.fixture
def rendered_repository(cli, tmp_path, monkeypatch) -> Path:
    """A rendered repository whose output folder mpigen has read once (so that what it saw is
    kept: files changed more than RACY seconds ago, RACY made 0 here)."""
    monkeypatch.setenv("MPIGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(folders, "RACY", 0)
    (tmp_path / "bp").mkdir()
    for index in range(JOBS):
        (tmp_path / "bp" / f"job{index}.yaml").write_text(blueprint_text(f"job{index}", workers=2))
    assert cli("render", "bp", "-o", "out").returncode == 0
    time.sleep(0.05)  # beyond the file system clock's tick: a change from now on gets another ctime
    assert cli("check", "bp", "-o", "out").returncode == 0  # reads every file once, and keeps what it saw
    time.sleep(0.05)
    return tmp_path


def snapshot(out: Path) -> dict[str, tuple]:
    return {p.relative_to(out).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns, p.stat().st_ctime_ns)
            for p in out.rglob("*") if p.is_file()}


def reads(monkeypatch, module) -> list[str]:
    """The files `module` opens from now on."""
    opened: list[str] = []

    def counting(path, *args, **kwargs):
        opened.append(str(path))
        return open(path, *args, **kwargs)

    monkeypatch.setattr(module, "open", counting, raising=False)
    return opened


def test_a_render_after_one_change_reads_and_touches_only_that_jobs_files(rendered_repository, cli, monkeypatch):
    before, folder = snapshot(rendered_repository / "out"), os.stat(rendered_repository / "out").st_ino
    Path("bp/job7.yaml").write_text(blueprint_text("job7", workers=5))
    opened = reads(monkeypatch, changes)
    assert cli("render", "bp", "-o", "out").returncode == 0
    after = snapshot(rendered_repository / "out")
    changed = sorted(path for path in after if after[path] != before.get(path))
    assert changed[0] == ".mpigen-index" and "default/statefulset-job7-worker.yaml" in changed
    assert all("-job7-" in path for path in changed[1:])  # every other file: the same inode, mtime and ctime
    assert os.stat(rendered_repository / "out").st_ino == folder  # written in place, not swapped
    # Only those were read (those of another size not even they), never an unchanged one.
    assert {str(Path(p).relative_to("out")) for p in opened} <= set(changed)


def test_a_full_render_reads_only_the_files_whose_stat_changed(rendered_repository, cli, monkeypatch):
    """A new blueprint takes the whole pipeline (the record of the run cannot patch it): what
    each file of the folder holds, mpigen's bytes or an edit, is known from its stat, and
    only a file edited by hand since is read (and refused), whatever its size."""
    Path("bp/new.yaml").write_text(blueprint_text("new", workers=2))
    edited = rendered_repository / "out" / "default" / "job-job3-launcher.yaml"
    edited.write_bytes(edited.read_bytes() + b"# a note\n")
    opened = reads(monkeypatch, changes)
    done = cli("render", "bp", "-o", "out")
    assert done.returncode == 2 and "out/default/job-job3-launcher.yaml: refusing to overwrite" in done.stderr
    assert opened == ["out/default/job-job3-launcher.yaml"]
    edited.write_bytes(edited.read_bytes()[:-len(b"# a note\n")])
    opened.clear()
    assert cli("render", "bp", "-o", "out").returncode == 0
    assert opened == ["out/default/job-job3-launcher.yaml"]  # read again (its ctime changed), found mpigen's


def test_a_large_change_is_swapped_in(rendered_repository, cli):
    folder = os.stat(rendered_repository / "out").st_ino
    for index in range(JOBS // 2):
        Path(f"bp/job{index}.yaml").write_text(blueprint_text(f"job{index}", workers=3))
    assert cli("render", "bp", "-o", "out").returncode == 0
    assert os.stat(rendered_repository / "out").st_ino != folder
    assert cli("check", "bp", "-o", "out").returncode == 0


@pytest.mark.parametrize("change", ["same size, mtime put back", "removed", "another file"])
def test_a_file_changed_by_hand_is_found_whatever_its_stat_says(rendered_repository, cli, change):
    path = rendered_repository / "out" / "default" / "job-job3-launcher.yaml"
    good, status = path.read_bytes(), path.stat()
    if change == "same size, mtime put back":
        path.write_bytes(good.replace(b"job3", b"jobX", 1))
        os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    elif change == "removed":
        path.unlink()
    else:  # a new inode, of the same bytes but one and the old times
        path.unlink()
        path.write_bytes(good.replace(b"job3", b"jobX", 1))
        os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    checked = cli("check", "bp", "-o", "out")
    assert checked.returncode == 1 and b"default/job-job3-launcher.yaml" in checked.stdout
    rendered = cli("render", "bp", "-o", "out")
    if change != "removed":  # an edit, found: refused until the user discards it (issue 28)
        assert rendered.returncode == 2 and "out/default/job-job3-launcher.yaml: refusing to overwrite" in \
            rendered.stderr
        assert path.read_bytes() != good
        rendered = cli("render", "bp", "-o", "out", "--discard-edits")
    assert rendered.returncode == 0
    assert path.read_bytes() == good
    assert cli("check", "bp", "-o", "out").returncode == 0


def held(record: folders.FolderRecord, out: Path, path: str, digest: bytes) -> bool:
    """Whether `record` says the file at `path` holds the bytes of sha256 `digest` (not read)."""
    return record.unseen(str(out), [(path, digest)]) == []


def test_a_stat_taken_within_racy_seconds_of_a_change_is_not_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(folders, "RACY", 3)
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.yaml").write_text("a\n")
    status = os.stat(out / "a.yaml")
    cache = judged(tmp_path / "cache").folder  # the cache folder, as a run makes it
    for seconds_later, kept in ((0, False), (2, False), (4, True)):  # seconds from the change to the stat
        record = folders.FolderRecord(cache, out)
        record.now = max(status.st_mtime_ns, status.st_ctime_ns) + seconds_later * 10**9
        record.read("a.yaml", status, b"d" * 32)
        record.save()
        again = folders.FolderRecord(cache, out)
        assert held(again, out, "a.yaml", b"d" * 32) is kept
        assert not held(again, out, "a.yaml", b"e" * 32)  # another digest


def test_another_folder_at_the_same_path_trusts_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(folders, "RACY", 0)
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.yaml").write_text("a\n")
    time.sleep(0.05)
    cache = judged(tmp_path / "cache").folder  # the cache folder, as a run makes it
    record = folders.FolderRecord(cache, out)
    record.read("a.yaml", os.stat(out / "a.yaml"), b"d" * 32)
    record.save()
    assert held(folders.FolderRecord(cache, out), out, "a.yaml", b"d" * 32)  # the folder itself: trusted
    os.rename(out, tmp_path / "moved")
    os.rename(tmp_path / "moved", tmp_path / "elsewhere")
    out.mkdir()
    os.link(tmp_path / "elsewhere" / "a.yaml", out / "a.yaml")  # the very same file, in another folder
    assert not held(folders.FolderRecord(cache, out), out, "a.yaml", b"d" * 32)


def test_no_cache_neither_reads_nor_keeps_what_it_saw(rendered_repository, cli, monkeypatch):
    path = rendered_repository / "out" / "default" / "job-job3-launcher.yaml"
    opened = reads(monkeypatch, staleness)
    assert cli("check", "bp", "-o", "out", "--no-cache").returncode == 0
    assert len(opened) == len(snapshot(rendered_repository / "out"))  # every file read: no record trusted
    assert path.exists()


def test_a_text_the_cache_lost_during_the_run_stops_it(rendered_repository, cli, monkeypatch):
    """The texts of unchanged jobs are read from the cache only when written: one removed
    while the run goes on (here: before the folder is written) is an error, and the folder
    is left as it was."""
    (rendered_repository / "out" / "default" / "job-job3-launcher.yaml").unlink()  # so that its text is needed
    before = snapshot(rendered_repository / "out")
    plan = write.find_changes

    def losing(*args):
        for entry in entries(rendered_repository / "cache"):
            entry.write_bytes(b"")
        return plan(*args)

    monkeypatch.setattr(write, "find_changes", losing)
    done = cli("render", "bp", "-o", "out")
    assert done.returncode == 2 and "this cache entry changed while mpigen read it" in done.stderr
    assert "Traceback" not in done.stderr
    assert snapshot(rendered_repository / "out") == before
