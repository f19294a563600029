"""The cache is only ever an optimisation: an unchanged file is not read into the pipeline
again, a damaged, truncated or foreign entry is ignored, and a cache folder the machine
refuses (read-only, a full disk) leaves the run as it would be without it, silently; one
that is not the user's leaves it so too, with one warning line (more in test_cache_folder.py)."""

from __future__ import annotations

import hashlib
import os
import pickle
import subprocess
import time
from pathlib import Path

import pytest

from mpigen.cache.memo import CACHED_CLASSES
from mpigen.pipeline import step
from mpigen.cache.folder import judged
from mpigen.cache.store import FORMAT, MAGIC, EntryStore
from tests.support.blueprints import blueprint_text
from tests.support.cache_repository import entries, repository
from tests.support.command_line import MPIGEN, run_mpigen
from tests.support.output_machine import NOBODY, as_nobody, chown_tree, sticky_folder, tmpfs


def same_as_without_cache(root: Path, *args: str, run=run_mpigen, warned: str | None = None) -> None:
    """`mpigen ARGS` with the cache gives what it gives with --no-cache, but for one warning line
    first when `warned` (its start) is given."""
    cached, uncached = run(*args, cwd=root), run(*args, "--no-cache", cwd=root)
    assert (cached.returncode, cached.stdout) == (uncached.returncode, uncached.stdout)
    lines = cached.stderr.decode().splitlines()
    if warned is not None:
        assert lines[0].startswith(warned), lines
        lines = lines[1:]
    assert lines == uncached.stderr.decode().splitlines()
    assert cached.returncode == 0 and b"warning" in uncached.stderr


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("MPIGEN_CACHE_DIR", str(folder))
    return folder


def test_an_unchanged_file_is_neither_read_nor_rendered_again(cli, cache, monkeypatch):
    repository(Path.cwd())
    first = cli("render", "bp", "--stdout")
    assert len(entries(cache)) == 4  # three blueprints and the broken file
    assert (cache / ".gitignore").read_text() == "*\n" and (cache / "CACHEDIR.TAG").read_text().startswith(
        "Signature: 8a477f597d28d172789f06886806bc55\n")
    loaded = []
    monkeypatch.setattr(step, "load_files", lambda files, read, importable: loaded.append(files) or ([], []))
    assert cli("render", "bp", "--stdout").stdout == first.stdout
    assert loaded == []
    Path("bp/job1.yaml").write_text(blueprint_text("job1", workers=7))
    cli("render", "bp", "--stdout")
    assert [[(path.as_posix(), named) for path, named in files] for files in loaded] == [[("bp/job1.yaml", False)]]


def test_no_cache_neither_reads_nor_writes_it(cli, cache):
    repository(Path.cwd())
    for argv in (["render", "bp", "--stdout"], ["render", "bp", "-o", "out"], ["check", "bp", "-o", "out"],
                 ["validate", "bp"]):
        assert cli(*argv, "--no-cache").returncode == 0
    assert not cache.exists()


@pytest.mark.parametrize("damage", ["flipped", "truncated", "empty", "another entry", "another format",
                                    "a forbidden class"])
def test_a_damaged_or_foreign_entry_is_ignored(tmp_path, cache, damage):
    repository(tmp_path)
    first = run_mpigen("render", "bp", "--stdout", cwd=tmp_path)
    found = entries(cache)
    for path, other in zip(found, found[1:] + found[:1]):
        data = path.read_bytes()
        if damage == "flipped":
            data = data[:-10] + bytes([data[-10] ^ 1]) + data[-9:]
        elif damage == "truncated":
            data = data[:len(data) // 2]
        elif damage == "empty":
            data = b""
        elif damage == "another entry":
            data = other.read_bytes()
        elif damage == "another format":
            data = b"mpigen-cache 9\n" + data[len(MAGIC):]
        else:  # a whole entry, checksum and all, of a pickle that would run a command
            payload = pickle.dumps(_Touch(str(tmp_path / "ran")))
            rest = len(payload).to_bytes(8, "big") + payload
            data = MAGIC + bytes.fromhex(path.name) + hashlib.sha256(rest).digest() + rest
        path.write_bytes(data)
    again = run_mpigen("render", "bp", "--stdout", cwd=tmp_path)
    assert (again.returncode, again.stdout, again.stderr) == (first.returncode, first.stdout, first.stderr)
    assert not (tmp_path / "ran").exists()
    same_as_without_cache(tmp_path, "render", "bp", "--stdout")


class _Touch:
    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


@pytest.fixture
def shared():
    """A folder every user can reach and write into, sticky as /tmp (pytest's tmp_path is
    private to root)."""
    with sticky_folder() as path:
        yield path


def test_a_read_only_cache_folder_is_read_and_never_an_error(shared, monkeypatch):
    repository(shared / "repo")
    chown_tree(shared / "repo", NOBODY, NOBODY)
    cache = shared / "cache"
    monkeypatch.setenv("MPIGEN_CACHE_DIR", str(cache))
    assert as_nobody("render", "bp", "--stdout", cwd=shared / "repo").returncode == 0
    made = entries(cache)
    assert made and all(path.stat().st_uid == NOBODY for path in made)
    for folder in [cache, *cache.rglob("*")]:
        if folder.is_dir():
            folder.chmod(0o555)
    (shared / "repo" / "bp" / "job1.yaml").write_text(blueprint_text("job1", workers=9))
    same_as_without_cache(shared / "repo", "render", "bp", "--stdout", run=_nobody)
    same_as_without_cache(shared / "repo", "validate", "bp", run=_nobody)
    assert entries(cache) == made


def test_a_cache_folder_of_another_user_is_not_used(shared, monkeypatch):
    repository(shared / "repo")
    cache = shared / "cache"
    cache.mkdir(mode=0o777)
    cache.chmod(0o777)  # root's, and anyone may write into it: no entry in it can be trusted
    monkeypatch.setenv("MPIGEN_CACHE_DIR", str(cache))
    same_as_without_cache(shared / "repo", "render", "bp", "--stdout", run=_nobody,
                          warned=f"warning: {cache}: the cache is not used: {cache} belongs to another user (uid 0); ")
    assert list(cache.iterdir()) == []


def _nobody(*args: str, cwd: Path):
    return as_nobody(*args, cwd=cwd)


def test_a_full_disk_turns_the_cache_off_silently(tmp_path, monkeypatch):
    (tmp_path / "bp").mkdir()
    for index in range(30):  # about 30 entries of 4 KiB or more: more than the 64 KiB the disk holds
        (tmp_path / "bp" / f"job{index}.yaml").write_text(blueprint_text(f"job{index}", workers=index + 1))
    (tmp_path / "bp" / "broken.yaml").write_text("notes: [unclosed\n")
    with tmpfs(tmp_path / "cache", "64k") as cache:
        monkeypatch.setenv("MPIGEN_CACHE_DIR", str(cache))
        for argv in (["render", "bp", "--stdout"], ["render", "bp", "-o", "out"], ["check", "bp", "-o", "out"]):
            same_as_without_cache(tmp_path, *argv)
        assert 0 < len(entries(cache)) < 31
        assert not list(cache.rglob(".new-*"))  # no half-written entry left behind


def test_the_entries_of_builds_and_formats_unused_for_a_week_are_removed(cli, cache):
    repository(Path.cwd())
    assert judged(cache).folder == cache  # the cache folder, as a run makes it
    old, recent = cache / FORMAT / "0123456789abcdef", cache / FORMAT / "fedcba9876543210"
    old_format, recent_format, not_ours = cache / "v1" / "0123456789abcdef", cache / "v3" / "0123", cache / "vx"
    for folder in (old, recent, old_format, recent_format, not_ours):
        (folder / "00").mkdir(parents=True)
        (folder / "00" / ("00" * 32)).write_bytes(b"an entry of another build")
    week_ago = time.time() - 7 * 24 * 3600 - 60
    for folder in (old, old_format.parent, not_ours):
        os.utime(folder, (week_ago, week_ago))
    cli("render", "bp", "--stdout")
    assert not old.exists() and recent.exists() and len(entries(cache)) == 5
    assert not old_format.parent.exists() and recent_format.exists() and not_ours.exists()


def test_a_render_after_one_change_rewrites_only_that_jobs_files(cli, cache):
    repository(Path.cwd())
    cli("render", "bp", "-o", "out")
    before = {p.relative_to("out").as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns, p.read_bytes())
              for p in Path("out").rglob("*") if p.is_file()}
    time.sleep(0.01)
    Path("bp/job1.yaml").write_text(blueprint_text("job1", workers=7))
    assert cli("render", "bp", "-o", "out").returncode == 0
    after = {p.relative_to("out").as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns, p.read_bytes())
             for p in Path("out").rglob("*") if p.is_file()}
    changed = sorted(path for path in after if after[path] != before.get(path))
    assert changed[0] == ".mpigen-index" and "default/statefulset-job1-worker.yaml" in changed
    assert all("-job1-" in path for path in changed[1:])  # every other file: the same inode, bytes and mtime


def test_runs_at_the_same_time_share_the_cache_unharmed(tmp_path, cache):
    (tmp_path / "bp").mkdir()
    for index in range(40):
        (tmp_path / "bp" / f"job{index}.yaml").write_text(blueprint_text(f"job{index}", workers=index + 1))
    expected = run_mpigen("render", "bp", "--stdout", "--no-cache", cwd=tmp_path).stdout
    runs = [subprocess.Popen([*MPIGEN, "render", "bp", "--stdout"], cwd=tmp_path, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE) for _ in range(4)]
    assert [run.communicate(timeout=120) for run in runs] == [(expected, b"")] * 4
    store = EntryStore(cache, entries(cache)[0].parent.parent.name, CACHED_CLASSES)
    assert len(entries(cache)) == 40 and all(store.get(bytes.fromhex(path.name)) for path in entries(cache))
    assert not list(cache.rglob(".new-*"))
