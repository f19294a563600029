"""A user repository for the CI loop tests (tests/acceptance/ci/): built in a temporary folder
from this repository's blueprints/, overlays/ and mpigen.yaml, with git as a user's machine
runs it, the changes the tests make to it, and mpigen run in it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from tests.support.blueprints import example_blueprints
from tests.support.command_line import run_mpigen
from tests.support.paths import ROOT


BIN = Path(sys.executable).parent
# git as a user's machine runs it, without the global or system configuration of the
# machine running the tests (signing, hooks, default branch).
ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0"}
ENV.pop("MPIGEN_PROCESSES", None)
ENV.pop("MPIGEN_DEBUG", None)
OUT = "rendered"
# The examples (blueprints/*.yaml) and the environments mpigen.yaml renders each of them for.
EXAMPLES = example_blueprints()
ENVIRONMENTS = yaml.safe_load((ROOT / "mpigen.yaml").read_text(encoding="utf-8"))["overlays"]

INTEL = "blueprints/intel-pi.yaml"
RESNET = "blueprints/resnet50-imagenet.yaml"
MPICH = "blueprints/mpich-pi.yaml"
# Changes to a blueprint, as (file, old text, new text), and what they do on the clusters.
WORKER_CPU = (INTEL, "worker: {cpu: 2, memory: 2Gi}", "worker: {cpu: 3, memory: 2Gi}")  # StatefulSet template only
IMAGE = (INTEL, "image: mpioperator/mpi-pi:intel", "image: mpioperator/mpi-pi:intel-2")  # launcher Job template
WORKERS = (INTEL, "  workers: 2\n", "  workers: 3\n")  # prod only (dev patches workers to 1); mpirun -np too
GPUS = (RESNET, "gpusPerWorker: 8", "gpusPerWorker: 4")  # prod only: 16 x 8 -> 16 x 4 GPUs
MPICH_CPU = (MPICH, "worker: {cpu: 1, memory: 1Gi}", "worker: {cpu: 2, memory: 1Gi}")

POSITIONED = re.compile(r"^[^:\s]+:\d+:\d+: error: ")


# --- helpers ---------------------------------------------------------------------------------

@dataclass
class Run:
    code: int
    out: str
    err: str


def mpigen(cwd: Path, *args: str, env: dict | None = None) -> Run:
    done = run_mpigen(*args, cwd=cwd, env={**ENV, **(env or {})})
    return Run(done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env=ENV, capture_output=True, text=True)
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def init_git(root: Path) -> None:
    git(root, "-c", "init.defaultBranch=main", "init", "-q")
    git(root, "config", "user.name", "Test User")
    git(root, "config", "user.email", "test@example.com")


def commit_all(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def copy_overlays(root: Path) -> None:
    """The example overlays, all in the operator-exact profile: these tests follow objects by
    the operator's names (the argocd profile of prod renames them per run; its own tests
    are in tests/acceptance/gitops/). Without its profile, prod's cleanPodPolicy Running has
    nothing to act on it (mpigen warns of that at the field, as it should a user): it becomes
    None, as the warning advises, which changes no object of the operator-exact profile."""
    shutil.copytree(ROOT / "overlays", root / "overlays")
    prod = root / "overlays" / "prod" / "overlay.yaml"
    text, count = re.subn(r"(?m)^gitops: .*\n", "", prod.read_text(encoding="utf-8"))
    assert count == 1
    text, count = re.subn(r"(?m)^(\s+cleanPodPolicy: )Running$", r"\1None", text)
    assert count == 1
    prod.write_text(text, encoding="utf-8")


def make_repo(root: Path, output: str | None = OUT, render: bool = True, commit: bool = True) -> Path:
    """A user repository: the example's blueprints, overlays and mpigen.yaml (output changed),
    rendered and committed on main."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(ROOT / "blueprints", root / "blueprints")
    copy_overlays(root)
    config = (ROOT / "mpigen.yaml").read_text(encoding="utf-8")
    # Without the Argo CD Applications: these tests follow the output folder alone.
    config, count = re.subn(r"(?ms)^# Argo CD Applications.*\Z", "", config)
    assert count == 1
    if output is not None:
        config, count = re.subn(r"(?m)^output: .*$", f"output: {output}", config)
        assert count == 1
    (root / "mpigen.yaml").write_text(config, encoding="utf-8")
    init_git(root)
    if render:
        run = mpigen(root, "render")
        assert run.code == 0, run.err
    if commit:
        commit_all(root, "blueprints and their render")
    return root


def edit(root: Path, change: tuple[str, str, str]) -> None:
    path, old, new = change
    text = (root / path).read_text(encoding="utf-8")
    assert text.count(old) == 1, (path, old)
    (root / path).write_text(text.replace(old, new), encoding="utf-8")


def snapshot(root: Path) -> dict:
    """Every file's bytes and every file's and folder's mtime below root (.git skipped)."""
    state = {".": ("dir", root.stat().st_mtime_ns, None)}
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in dirs + sorted(names):
            path = Path(folder, name)
            rel = path.relative_to(root).as_posix()
            st = path.lstat()
            state[rel] = ("dir", st.st_mtime_ns, None) if path.is_dir() else ("file", st.st_mtime_ns, path.read_bytes())
    return state


def folder_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def headers(diff: str) -> list[tuple[str, str]]:
    """The (---, +++) file pairs of a unified diff, in order."""
    lines = diff.splitlines()
    return [(a[4:], b[4:]) for a, b in zip(lines, lines[1:]) if a.startswith("--- ") and b.startswith("+++ ")]


# The environment of a run that must not find the git repository around tmp_path.
def no_git(tmp_path: Path) -> dict:
    return {"GIT_CEILING_DIRECTORIES": str(tmp_path)}
