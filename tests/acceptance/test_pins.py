"""Every git ref of mpigen the docs pin resolves (issue 53): the `@vX.Y.Z` of a pip URL,
pre-commit's `rev:` and a clone "checked out at `vX.Y.Z`" each name `v` + pyproject.toml's
version, and in a clone of this repository on which the release step (`make release-tag`) ran,
each is a commit, the one the step tagged, and the tool that reads the pin reaches it with the
git commands it runs. The forms, and those commands, are the table tests/cases/pins.yaml."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.support.docs_run import ENV
from tests.support.paths import ROOT

FORMS = yaml.safe_load((ROOT / "tests" / "cases" / "pins.yaml").read_text(encoding="utf-8"))
DOCS = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*") if p.suffix in (".md", ".yml", ".yaml"))]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
# What the release step reads from the working tree: uncommitted changes to them count, as a
# version raised but not yet committed.
RELEASE_INPUTS = ("pyproject.toml", "Makefile")


@dataclass(frozen=True)
class Pin:
    form: dict
    doc: str
    line: int
    ref: str

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}: {self.ref}"


def pins() -> list[Pin]:
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for form in FORMS:
            for match in re.finditer(form["pattern"], text):
                line = text.count("\n", 0, match.start("ref")) + 1
                found.append(Pin(form, doc.relative_to(ROOT).as_posix(), line, match["ref"]))
    return found


PINS = pins()


def git(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, env=ENV, capture_output=True, text=True, timeout=120)


@dataclass(frozen=True)
class Released:
    """A clone of this repository, its working tree's release inputs committed, after `make
    release-tag`: what it printed, and the commit it tagged."""

    repo: Path
    head: str
    printed: str


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> Released:
    repo = tmp_path_factory.mktemp("pins") / "mpigen"
    # No tags: the pins must resolve because of the release step, whatever tags this repository has.
    done = git("clone", "--quiet", "--no-tags", str(ROOT), str(repo), cwd=repo.parent)
    assert done.returncode == 0, done.stderr
    for name in RELEASE_INPUTS:
        shutil.copy2(ROOT / name, repo / name)
    if git("status", "--porcelain", cwd=repo).stdout:
        assert git("commit", "--quiet", "--all", "--message", "the working tree's release inputs", cwd=repo).returncode == 0
    assert git("tag", "--list", cwd=repo).stdout == ""
    done = subprocess.run(["make", "--no-print-directory", "release-tag"], cwd=repo, env=ENV, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return Released(repo, git("rev-parse", "HEAD", cwd=repo).stdout.strip(), done.stdout + done.stderr)


@pytest.mark.parametrize("form", FORMS, ids=[form["form"] for form in FORMS])
def test_each_form_of_pin_is_found_where_the_table_says(form):
    where = {pin.doc for pin in PINS if pin.form is form}
    assert set(form["found_in"]) <= where, f"{form['form']}: the pattern no longer matches in {form['found_in']}"


@pytest.mark.parametrize("pin", PINS, ids=str)
def test_the_pin_is_the_version_of_pyproject(pin):
    """A version raised in pyproject.toml without the docs' pins (or the other way) fails here."""
    assert pin.ref == f"v{VERSION}", f"{pin}: pin v{VERSION}, the version of pyproject.toml"


@pytest.mark.parametrize("pin", PINS, ids=str)
def test_the_pin_names_the_commit_the_release_step_tagged(pin, released):
    done = git("rev-parse", "--verify", "--quiet", f"{pin.ref}^{{commit}}", cwd=released.repo)
    assert done.returncode == 0, f"{pin}: no such commit after make release-tag ({released.printed.strip()})"
    assert done.stdout.strip() == released.head
    assert git("cat-file", "-t", pin.ref, cwd=released.repo).stdout.strip() == "tag"  # annotated


@pytest.mark.parametrize("pin", PINS, ids=str)
def test_the_tool_that_reads_the_pin_checks_out_the_tagged_commit(pin, released, tmp_path):
    failures = []
    for number, way in enumerate(pin.form["ways"]):
        dest = tmp_path / f"way-{number}"
        for command in way:
            args = [arg.format(repo=released.repo, dest=dest, ref=pin.ref) for arg in command]
            done = git(*args, cwd=tmp_path)
            if done.returncode != 0:
                failures.append(f"git {' '.join(args)}: {done.stderr.strip()}")
                break
        else:
            assert git("rev-parse", "HEAD", cwd=dest).stdout.strip() == released.head
            assert (dest / ".pre-commit-hooks.yaml").is_file() and (dest / "pyproject.toml").is_file()
            return
    pytest.fail(f"{pin} ({pin.form['form']}): " + "; ".join(failures))


def test_the_release_step_refuses_a_changed_tree_and_a_tag_on_another_commit(released, tmp_path):
    """make release-tag tags only a clean tree, never moves a release, and says what to do."""
    repo = tmp_path / "mpigen"
    assert git("clone", "--quiet", str(released.repo), str(repo), cwd=tmp_path).returncode == 0
    make = ["make", "--no-print-directory", "release-tag"]
    again = subprocess.run(make, cwd=repo, env=ENV, capture_output=True, text=True)
    assert (again.returncode, again.stdout) == (0, f"v{VERSION} already tags {released.head}\n")
    (repo / "README.md").write_text("changed\n")
    dirty = subprocess.run(make, cwd=repo, env=ENV, capture_output=True, text=True)
    assert dirty.returncode == 2 and "working tree has changes" in dirty.stdout
    assert git("commit", "--quiet", "--all", "--message", "after the release", cwd=repo).returncode == 0
    moved = subprocess.run(make, cwd=repo, env=ENV, capture_output=True, text=True)
    assert moved.returncode == 2 and f"v{VERSION} already tags {released.head}, not " in moved.stdout
    assert "raise the version in pyproject.toml" in moved.stdout
    assert git("rev-parse", f"v{VERSION}^{{commit}}", cwd=repo).stdout.strip() == released.head
