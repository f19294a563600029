"""The cache folder is mpigen's own and the user's alone (issue 28, defects 1, 2 and 6):

- a folder that holds files of others keeps every one of them, byte for byte, however old and
  however much they look like mpigen's, and the cache works in a sub-folder of mpigen's own;
- a folder another user could write into (its group's, anyone's, a folder on the way to it,
  another user's) is not used: every command gives what --no-cache gives (standard output,
  the files written, the exit code) with one warning line more, and an entry planted there
  under the key of the user's blueprint is never printed;
- root makes no folder in another user's home (`sudo` with HOME kept), and that user's own
  runs then keep their cache there.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from mpigen.pipeline import step
from mpigen.cache.store import FORMAT, MAGIC
from tests.support.blueprints import blueprint_text
from tests.support.cache_repository import entries, repository
from tests.support.ci_repository import commit_all, init_git
from tests.support.command_line import run_mpigen
from tests.support.output_machine import NOBODY, as_nobody, chown_tree, files_of, need_root, snapshot, sticky_folder
from tests.support.paths import ROOT

EVIL = "registry.example.org/another-members-image:1"
# Every command that uses the cache, on a repository whose mpigen.yaml names bp/ and out/.
COMMANDS = (("render", "--stdout"), ("render",), ("check",), ("validate",), ("diff", "--base", "HEAD"))
CONFIG = "apiVersion: mpigen.dev/v1alpha1\nkind: Config\nblueprints: [bp]\noutput: out\n"
NOT_USED = "the cache is not used: "


def configured_repository(root: Path) -> None:
    repository(root)
    (root / "mpigen.yaml").write_text(CONFIG)


def as_without_cache(cli, args: tuple[str, ...]) -> list[str]:
    """Run `mpigen ARGS` with the cache and with --no-cache: the same exit code, standard output
    and output folder. The lines of standard error the cached run adds."""
    cached = cli(*args)
    written = files_of(Path("out")) if Path("out").is_dir() else None
    uncached = cli(*args, "--no-cache")
    assert (cached.returncode, cached.stdout, written) == \
        (uncached.returncode, uncached.stdout, files_of(Path("out")) if Path("out").is_dir() else None), args
    lines, without = cached.stderr.splitlines(), uncached.stderr.splitlines()
    assert cached.returncode == 0 and lines[len(lines) - len(without):] == without, (args, cached.stderr)
    return lines[:len(lines) - len(without)]


def test_a_folder_holding_files_of_others_keeps_every_one_and_the_cache_works_beside_them(cli, tmp_path,
                                                                                          monkeypatch):
    folder = tmp_path / "filled"
    fake_entry = "ab" + "cd" * 31
    for path, text in {".gitignore": "build/\n!keep\n", "notes.txt": "the user's notes",
                       "CACHEDIR.TAG": "Signature: 8a477f597d28d172789f06886806bc55\n# another tool's cache\n",
                       f"v1/0123456789abcdef/ab/{fake_entry}": "looks like an entry of mpigen's first format",
                       f"v2/0123456789abcdef/ab/{fake_entry}": "looks like an entry of another build",
                       f"{FORMAT}/fedcba9876543210/notes": "the user's", "v7/keep": ""}.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    week_ago = time.time() - 8 * 24 * 3600
    for path in [folder, *folder.rglob("*")]:
        os.utime(path, (week_ago, week_ago))
    before = snapshot(folder)
    monkeypatch.setenv("MPIGEN_CACHE_DIR", str(folder))
    configured_repository(tmp_path)
    for args in COMMANDS[:4]:
        done = cli(*args)
        assert done.returncode == 0 and NOT_USED not in done.stderr, done.stderr
    after = snapshot(folder)
    assert {path: entry for path, entry in after.items() if path and not path.startswith("mpigen")} == \
        {path: entry for path, entry in before.items() if path}
    assert entries(folder / "mpigen")  # in mpigen's own folder
    first = cli("render", "--stdout")
    loaded = []
    monkeypatch.setattr(step, "load_files", lambda files, read, importable: loaded.append(files) or ([], []))
    assert cli("render", "--stdout").stdout == first.stdout and loaded == []


@pytest.fixture
def forged(cli, tmp_path, monkeypatch) -> Path:
    """A cache folder, made by mpigen, in which "another member of the group" replaced the entry
    of bp/job0.yaml by a valid one of their own, under the same key, that gives their image:
    a trusted cache would print it (checked here). The repository is committed, its output
    folder rendered (without a cache), and the run works in it."""
    repo = tmp_path / "repo"
    configured_repository(repo)
    monkeypatch.chdir(repo)
    made = {}
    for name, image in (("evil", EVIL), ("honest", "example.com/train:1")):  # the file left as it was
        (repo / "bp" / "job0.yaml").write_text(blueprint_text("job0", workers=1, image=image))
        monkeypatch.setenv("MPIGEN_CACHE_DIR", str(tmp_path / name))
        assert cli("render", "--stdout").returncode == 0
        made[name] = {path.name: path for path in entries(tmp_path / name)}
    (honest,), (evil,) = set(made["honest"]) - set(made["evil"]), set(made["evil"]) - set(made["honest"])
    data = made["evil"][evil].read_bytes()
    made["honest"][honest].write_bytes(MAGIC + bytes.fromhex(honest) + data[len(MAGIC) + 32:])
    monkeypatch.setenv("MPIGEN_CACHE_DIR", str(tmp_path / "honest"))
    assert EVIL in cli("render", "--stdout").stdout.decode()  # the forgery is a valid entry
    assert cli("render", "--no-cache").returncode == 0
    init_git(repo)
    commit_all(repo, "the repository")
    shutil.copytree(tmp_path / "honest", tmp_path / "team" / "cache")
    monkeypatch.setenv("MPIGEN_CACHE_DIR", str(tmp_path / "team" / "cache"))
    return tmp_path / "team" / "cache"


UNTRUSTED = {  # how the folder is shared, and the folder the warning names
    "group-writable (2770)": (lambda cache: cache.chmod(0o2770), "others may write into {cache} (mode 2770)"),
    "world-writable": (lambda cache: cache.chmod(0o777), "others may write into {cache} (mode 0777)"),
    "world-writable and sticky": (lambda cache: cache.chmod(0o1777), "others may write into {cache} (mode 1777)"),
    "a writable folder on the way": (lambda cache: cache.parent.chmod(0o777),
                                     "others may write into {cache.parent} (mode 0777)"),
    "another user's": (lambda cache: chown_tree(cache, NOBODY, NOBODY),
                       f"{{cache}} belongs to another user (uid {NOBODY})"),
}


@pytest.mark.parametrize("shared", UNTRUSTED)
def test_a_cache_others_may_write_into_is_not_used_and_says_so_once(cli, forged, shared):
    share, reason = UNTRUSTED[shared]
    if shared == "another user's":
        need_root()
    share(forged)
    before = snapshot(forged)
    for args in COMMANDS:
        (warned,) = as_without_cache(cli, args)
        assert warned.startswith(f"warning: {forged}: {NOT_USED}{reason.format(cache=forged)}"), (args, warned)
        assert warned.endswith(" (the output is the same without it)")
        assert ("chmod go-w" in warned) != (shared == "another user's")
    assert EVIL not in cli("render", "--stdout").stdout.decode()
    assert snapshot(forged) == before  # nothing read is kept, nothing written, nothing pruned


def test_the_warning_docs_cli_md_shows_is_the_one_mpigen_prints(cli, tmp_path, monkeypatch):
    text = (ROOT / "docs" / "cli.md").read_text()
    section = text[text.index("### The cache"):text.index("## mpigen check")]
    (shown,) = [line for line in section.splitlines() if line.startswith("warning: ")]
    cache = tmp_path / "srv" / "team" / "cache"
    cache.mkdir(parents=True)
    cache.chmod(0o2770)
    monkeypatch.setenv("MPIGEN_CACHE_DIR", str(cache))
    repository(tmp_path)
    assert cli("validate", "bp").stderr.splitlines()[0] == shown.replace("/srv/team/cache", str(cache))


def test_root_makes_no_folder_in_another_users_home_and_that_users_runs_keep_their_cache(monkeypatch):
    """`sudo mpigen` with HOME kept, in a home without .cache; then the user's own run."""
    need_root()
    with sticky_folder() as shared:
        repository(shared / "repo")
        home = shared / "home"
        home.mkdir(mode=0o755)
        os.chown(home, NOBODY, NOBODY)
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.delenv("MPIGEN_CACHE_DIR", raising=False)
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
        as_root = run_mpigen("render", "bp", "--stdout", cwd=shared / "repo")
        uncached = run_mpigen("render", "bp", "--stdout", "--no-cache", cwd=shared / "repo")
        assert (as_root.returncode, as_root.stdout) == (uncached.returncode, uncached.stdout) == (0, as_root.stdout)
        assert as_root.stderr.decode().splitlines() == [
            f"warning: {home}/.cache/mpigen: {NOT_USED}{home} belongs to another user (uid {NOBODY}); run mpigen as "
            "that user, or set MPIGEN_CACHE_DIR to a folder of your own (the output is the same without it)",
            *uncached.stderr.decode().splitlines()]
        assert list(home.iterdir()) == []
        as_user = as_nobody("render", "bp", "--stdout", cwd=shared / "repo")
        assert (as_user.returncode, as_user.stdout, as_user.stderr) == (0, uncached.stdout, uncached.stderr)
        made = [home / ".cache", home / ".cache" / "mpigen", *entries(home / ".cache" / "mpigen")]
        assert len(made) == 6 and all(path.stat().st_uid == NOBODY for path in made)
