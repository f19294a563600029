"""Docs that run (issue 19, point 6): every command of a ```sh block in README.md and docs/
runs as shown, in a copy of this repository, and prints exactly the output the doc shows
right after it. docs/tutorial.md runs from its step 1, which installs mpigen, in
tests/system/install/. The conventions the docs follow are tests/support/docs_run.py's."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.support.docs_run import ENV, assert_shown, commands, not_run, repository, run_block, shell_blocks
from tests.support.paths import ROOT

TUTORIAL = ROOT / "docs" / "tutorial.md"
MIGRATE = ROOT / "docs" / "migrate.md"  # a walkthrough: its blocks run in order, in one folder
OPERATING = ROOT / "docs" / "operating.md"  # every command against a fake API server: test_operating_doc.py
DOCS = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md") if p not in (TUTORIAL, MIGRATE, OPERATING))]
BLOCKS = [block for doc in DOCS for block in shell_blocks(doc)
          if any(not not_run(command) for command in commands(block.text))]


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return repository(tmp_path_factory.mktemp("docs") / "repository")


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: f"{b.doc}:{b.line}")
def test_the_commands_of_the_docs_run_as_shown(block, template, tmp_path):
    """Each block in a fresh copy of the repository, so that no block depends on another."""
    copy = tmp_path / "repository"
    shutil.copytree(template, copy, symlinks=True)
    _, output = run_block(block, copy)
    if block.output is not None:
        assert_shown(f"{block.doc}:{block.line}", output, block.output)


def test_the_migration_walkthrough_runs_in_order(template, tmp_path):
    """docs/migrate.md, block after block in one copy of the repository, as a reader follows
    it: the MPIJob imported, rendered for every target, the renders compared, the TrainJob
    imported back; and the MPIJob it shows is the file it imports."""
    blocks = shell_blocks(MIGRATE)
    assert len(blocks) >= 5
    cwd = tmp_path / "repository"
    shutil.copytree(template, cwd, symlinks=True)
    for block in blocks:
        cwd, output = run_block(block, cwd)
        assert block.output is not None, f"{block.doc}:{block.line}: show what the walkthrough prints"
        assert_shown(f"{block.doc}:{block.line}", output, block.output)
    shown = re.search(r"```yaml\n(.*?)```", MIGRATE.read_text(encoding="utf-8"), re.S).group(1)
    assert shown == (ROOT / "docs" / "migrate" / "bert-horovod.yaml").read_text(encoding="utf-8")
    for target in ("static", "jobset", "mpijob", "trainjob"):
        assert (cwd / "out" / target / "kustomization.yaml").is_file()


def test_the_readme_diff_example_is_what_diff_prints(template, tmp_path):
    """The CI loop of README.md: the change it describes, made in a copy, gives the report shown."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"`mpigen diff --base origin/main` prints:\n\n```\n(.*?)```", readme, re.S).group(1)
    copy = tmp_path / "repository"
    shutil.copytree(template, copy, symlinks=True)
    overlay = copy / "overlays" / "dev" / "overlay.yaml"
    text = overlay.read_text(encoding="utf-8")
    assert text.count("gpusPerWorker: 1\n") == 1
    overlay.write_text(text.replace("gpusPerWorker: 1\n", "gpusPerWorker: 2\n"), encoding="utf-8")
    done = subprocess.run(["mpigen", "diff", "--base", "origin/main"], cwd=copy, env=ENV, capture_output=True)
    assert done.returncode == 1, done.stderr
    assert_shown("README.md, The CI loop", (done.stdout + done.stderr).decode(), shown)


def test_the_overlay_error_example_is_what_validate_prints(template, tmp_path):
    """docs/overlays.md's error of a patched blueprint: the prod overlay's ImageNet patch with
    `workers: 0`, reported at the overlay's line, naming the blueprint."""
    text = (ROOT / "docs" / "overlays.md").read_text(encoding="utf-8")
    shown = re.search(r"^(overlays/prod/overlay\.yaml:\d+:\d+: error: .*\n)", text, re.M).group(1)
    copy = tmp_path / "repository"
    shutil.copytree(template, copy, symlinks=True)
    overlay = copy / "overlays" / "prod" / "overlay.yaml"
    overlay.write_text(overlay.read_text(encoding="utf-8").replace("workers: 16\n", "workers: 0\n"), encoding="utf-8")
    done = subprocess.run(["mpigen", "validate"], cwd=copy, env=ENV, capture_output=True)
    assert (done.returncode, done.stdout + done.stderr) == (2, shown.encode())


def test_only_what_needs_a_cluster_or_another_tool_is_not_run():
    """The commands the tests leave out, each for the reason NOT_RUN gives (and the tutorial's
    installation, which only tests/system/install/ runs, and README's copy of it): a new command
    in the docs is run unless it is added here, visibly. Those of README.md are each run
    elsewhere (tests/acceptance/test_readme.py names where)."""
    skipped = [(block.doc, " ".join(command.split()[:2])) for doc in [*DOCS, TUTORIAL, MIGRATE]
               for block in shell_blocks(doc) for command in commands(block.text) if not_run(command)]
    assert skipped == [
        ("README.md", "make render"), ("README.md", "make test"),
        ("README.md", "python3 -m"), ("README.md", "~/.local/mpigen/bin/pip install"),
        ("README.md", "export PATH=\"$HOME/.local/mpigen/bin:$PATH\""), ("README.md", "mpigen status"),
        ("docs/cli.md", "mpigen validate"),
        ("docs/cli.md", "source <(mpigen"), ("docs/cli.md", "mpigen completion"), ("docs/cli.md", "eval \"$(mpigen"),
        ("docs/cli.md", "mpigen completion"), ("docs/cli.md", "mpigen completion"),
        ("docs/ssh.md", "ssh-keygen -t"), ("docs/ssh.md", "kubectl create"), ("docs/ssh.md", "kubectl create"),
        ("docs/ssh.md", "sops --encrypt"),
        ("docs/tutorial.md", "python3 -m"), ("docs/tutorial.md", "~/.local/mpigen/bin/pip install"),
        ("docs/tutorial.md", "export PATH=\"$HOME/.local/mpigen/bin:$PATH\""), ("docs/tutorial.md", "kubectl apply"),
    ]
