"""README.md is a first page for users (issue 53): short, what mpigen is and how to install it
at the top, the table for choosing a target rendered from the targets' table
(tests/support/readme_targets.py), a link to every guide, and every command it shows run by a
test: tests/system/test_docs_run.py runs its shell blocks but for the commands it leaves out
(NOT_RUN, INSTALL in tests/support/docs_run.py), and for each of those RUN_ELSEWHERE names
the test that runs it; the ones only this module can run, it runs."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import tomllib

import pytest

from mpigen.render.targets import TARGETS
from tests.support.docs_run import ENV, Block, commands, not_run, repository, run_block, shell_blocks
from tests.support.paths import ROOT
from tests.support.readme_targets import shown, table

README = ROOT / "README.md"
TUTORIAL = ROOT / "docs" / "tutorial.md"
MAX_LINES = 250
# What a reader finds near the top: (what, a line that says it, within how many lines).
NEAR_THE_TOP = [
    ("the install step: a pip install or make render line", r"^(?:\S*pip install |make render\b)", 40),
    ("what mpigen is, with its four targets", r"\bfour targets\b", 12),
]
TUTORIAL_INSTALL = "the same block as docs/tutorial.md's step 1, which tests/system/install/test_wheel.py runs"
# The commands of README.md that tests/system/test_docs_run.py does not run, by their start, in
# README's order, with the test that runs each.
RUN_ELSEWHERE = {
    "make render": "test_make_render_leaves_nothing_to_commit, below",
    "make test": "the suite itself: CI's .ci/run runs it (tests/acceptance/test_docs.py::test_quick_start_targets_exist)",
    "python3 -m venv ": TUTORIAL_INSTALL,
    "~/.local/mpigen/bin/pip install ": TUTORIAL_INSTALL,
    'export PATH="$HOME/.local/mpigen/bin:$PATH"': TUTORIAL_INSTALL,
    "mpigen status": "test_the_commands_block_runs_against_a_cluster, below",
}


def readme() -> str:
    return README.read_text(encoding="utf-8")


def test_the_readme_is_a_first_page_not_a_manual():
    assert len(readme().splitlines()) <= MAX_LINES


@pytest.mark.parametrize(("what", "pattern", "within"), NEAR_THE_TOP, ids=[case[0] for case in NEAR_THE_TOP])
def test_the_readme_says_it_near_the_top(what, pattern, within):
    found = [number for number, line in enumerate(readme().splitlines(), 1) if re.search(pattern, line)]
    assert found and found[0] <= within, f"README.md: {what} at line {found[:1] or 'none'}, not within {within}"


def test_the_table_of_targets_is_the_targets_table():
    """README's table is rendered from mpigen/render/targets.py, a line for every target."""
    assert all(target.options.who_runs for target in TARGETS.values())
    assert len(table().splitlines()) == 2 + len(TARGETS)
    assert shown(readme()) == table(), "run: python -m tests.support.readme_targets --update"


def test_the_readme_links_every_guide_and_the_changelog():
    linked = set(re.findall(r"\]\(([^)#\s]+)", readme()))
    guides = {f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md")}
    assert guides | {"CHANGELOG.md"} <= linked


def test_the_changelog_starts_with_the_version_of_pyproject():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    versions = re.findall(r"^## \[([^\]]+)\]", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), re.M)
    assert versions[:1] == [version]


def test_every_command_of_the_readme_is_run_by_a_test():
    """Those tests/system/test_docs_run.py leaves out are RUN_ELSEWHERE's, one by one."""
    left_out = [command for block in shell_blocks(README) for command in commands(block.text) if not_run(command)]
    assert [next((start for start in RUN_ELSEWHERE if command.startswith(start)), command)
            for command in left_out] == list(RUN_ELSEWHERE)


def test_the_install_block_is_the_tutorials_step_1():
    installing = [block.text for block in shell_blocks(README) if "pip install" in block.text]
    assert installing == [shell_blocks(TUTORIAL)[0].text]


def test_make_render_leaves_nothing_to_commit(tmp_path):
    """`make render` in a clone renders what is committed (the suite's environment standing in
    for the .venv it would make, installed already)."""
    command, = [c for block in shell_blocks(README) for c in commands(block.text) if c.startswith("make render")]
    for name in ("blueprints", "overlays", "schemas", "golden/overlays", "golden/argocd-applications"):
        shutil.copytree(ROOT / name, tmp_path / name)
    for name in ("mpigen.yaml", "Makefile"):
        shutil.copy2(ROOT / name, tmp_path / name)
    for git in ("git init --quiet --initial-branch=main", "git add --all", "git commit --quiet --message clone"):
        subprocess.run(["bash", "-c", git], cwd=tmp_path, env=ENV, check=True, capture_output=True)
    argv = [*shlex.split(command, comments=True), f"VENV={sys.prefix}", "RENDER_STAMP="]
    done = subprocess.run(argv, cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "mpigen: rendered" in done.stderr
    status = subprocess.run(["git", "status", "--porcelain"], cwd=tmp_path, env=ENV, capture_output=True, text=True)
    assert status.stdout == ""


def test_the_commands_block_runs_against_a_cluster(tmp_path):
    """README's block of commands, `mpigen status` included, in a copy of the repository, with
    docs/operating.md's cluster (the prod environment's jobs as their controllers write them)."""
    pytest.importorskip("kubernetes")
    from tests.support.operating_doc import cluster, reader_env

    block: Block = next(b for b in shell_blocks(README) if any(c.startswith("mpigen status") for c in commands(b.text)))
    repo = repository(tmp_path / "repository")
    with cluster(repo) as server:
        run_block(block, repo, reader_env(tmp_path, server), ("mpigen status",))
        assert any(path.startswith("/apis/") or path.startswith("/api/") for _, path, _ in server.requests)
