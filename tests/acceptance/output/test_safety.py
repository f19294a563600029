"""The output folder survives a killed run and is never an input (issue 7, point 6).

- A render killed at any moment leaves the folder in the old state or the new one, never
  in between (the new state is built beside it and swapped in with one atomic rename);
  the next run removes what the killed run left beside it.
- A killed run's folders are recognised by the process id in their names: those of a
  process that is gone are cleaned up, those of a running process are left alone, and a
  backup with no folder beside it (killed between the two renames of the fallback swap)
  is the old state and is put back.
- No output folder (-o DIR, or the Argo CD / Flux folders of mpigen.yaml) may contain or
  lie inside a blueprint or overlay folder, or another output folder.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.command_line import MPIGEN, run_mpigen
from tests.support.paths import ROOT


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def leftovers(parent: Path, name: str = "out") -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith(f".{name}.mpigen-"))


@pytest.fixture(scope="module")
def repository(tmp_path_factory) -> Path:
    """A generated repository of 150 blueprints (the benchmark's), rendered for one overlay."""
    if str(ROOT / "bench") not in sys.path:
        sys.path.insert(0, str(ROOT / "bench"))
    from bench import generate  # bench/bench.py, as test_import imports it

    root = tmp_path_factory.mktemp("repo")
    generate(root, 150, seed=7)
    return root


def render(root: Path, out: str, **popen) -> subprocess.Popen:
    return subprocess.Popen([*MPIGEN, "render", "blueprints", "--overlay", "dev", "-o", out],
                            cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                            **popen)


def test_a_render_killed_at_any_moment_leaves_the_old_or_the_new_state(repository):
    root = repository
    old_out, new_out = root / "expected-old", root / "expected-new"
    assert render(root, "expected-old").wait() == 0
    # the new state: every blueprint's image changes, so every object file changes
    blueprints = sorted((root / "blueprints").glob("*.yaml"))
    originals = {p: p.read_text() for p in blueprints}
    for path, text in originals.items():
        path.write_text(text.replace("image: ", "image: registry.example.com/", 1))
    assert render(root, "expected-new").wait() == 0
    old, new = tree(old_out), tree(new_out)
    assert old != new

    started = time.perf_counter()
    assert render(root, "probe").wait() == 0
    duration = time.perf_counter() - started
    rng = random.Random(11)
    states = []
    for attempt in range(8):
        if (root / "out").exists():
            shutil.rmtree(root / "out")
        shutil.copytree(old_out, root / "out")
        process = render(root, "out")
        time.sleep(rng.uniform(0.2, 1.0) * duration)  # from start-up to the swap itself
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        state = tree(root / "out")
        assert state in (old, new), f"attempt {attempt}: the folder is neither the old nor the new state"
        states.append("old" if state == old else "new")
    # the next run finishes the job and clears what the killed runs left beside the folder
    assert render(root, "out").wait() == 0
    assert tree(root / "out") == new
    assert leftovers(root) == []
    print("states after the kills:", states)


def test_folders_of_a_killed_run_are_cleaned_up_and_those_of_a_live_one_kept(tmp_path):
    from mpigen.output.recovery import recover_abandoned

    dead = _dead_pid()
    (tmp_path / "out").mkdir()
    (tmp_path / f".out.mpigen-{dead}-abc").mkdir()             # a staging folder of a killed run
    (tmp_path / f".out.mpigen-{os.getppid()}-xyz").mkdir()     # of a run still going
    (tmp_path / ".out.mpigen-notes").mkdir()                   # not mpigen's: no process id
    (tmp_path / ".other.mpigen-1-abc").mkdir()                 # beside another folder
    assert [p.name for p in recover_abandoned(tmp_path / "out")] == [f".out.mpigen-{dead}-abc"]
    assert leftovers(tmp_path) == sorted([".out.mpigen-notes", f".out.mpigen-{os.getppid()}-xyz"])
    assert (tmp_path / ".other.mpigen-1-abc").is_dir()


def test_a_backup_without_its_folder_is_put_back(tmp_path):
    """Killed between the fallback swap's two renames: DIR is gone and its backup holds the
    old state, which the next run restores before it plans anything."""
    from mpigen.output.recovery import recover_abandoned

    backup = tmp_path / f".out.mpigen-old-{_dead_pid()}-q1"
    backup.mkdir()
    (backup / "kustomization.yaml").write_text("resources: []\n")
    assert recover_abandoned(tmp_path / "out") == [backup]
    assert tree(tmp_path / "out") == {"kustomization.yaml": b"resources: []\n"}
    assert leftovers(tmp_path) == []


def _dead_pid() -> int:
    """The id of a process that has exited."""
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


OVERLAY = "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\nnamespace: dev\n"
BLUEPRINT = blueprint_text("one")


@pytest.mark.parametrize("out", ["overlays/dev", "overlays/dev/out", "overlays", "overlays/base"])
def test_the_output_folder_must_not_overlap_an_overlay(tmp_path, out):
    """The overlay's folder, one inside it, the overlays folder, and its base's folder."""
    (tmp_path / "bp").mkdir()
    (tmp_path / "bp" / "one.yaml").write_text(BLUEPRINT)
    for name, body in (("dev", OVERLAY + "bases: [base]\n"), ("base", OVERLAY)):
        (tmp_path / "overlays" / name).mkdir(parents=True)
        (tmp_path / "overlays" / name / "overlay.yaml").write_text(body)
    before = tree(tmp_path)
    done = run_mpigen("render", "bp", "--overlay", "dev", "-o", out, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert f"error: {out}: the output folder overlaps the input overlays/".encode() in done.stderr
    assert tree(tmp_path) == before and leftovers(tmp_path / "overlays") == []


def test_a_companion_folder_must_not_overlap_the_output(tmp_path):
    """mpigen.yaml's Argo CD Applications folder inside the rendered output would be
    rendered over (and listed by) the output's kustomization."""
    (tmp_path / "blueprints").mkdir()
    (tmp_path / "blueprints" / "one.yaml").write_text(BLUEPRINT)
    (tmp_path / "mpigen.yaml").write_text(
        "apiVersion: mpigen.dev/v1alpha1\nkind: Config\noutput: deploy\n"
        "argocd: {repoURL: 'https://git.example.com/ml.git', applications: deploy/apps}\n")
    done = run_mpigen("render", cwd=tmp_path)
    assert done.returncode == 2
    assert b"error: deploy/apps: the output folder overlaps the output folder deploy;" in done.stderr
    assert not (tmp_path / "deploy").exists()
