"""The pre-commit hooks (.pre-commit-hooks.yaml): the manifest follows pre-commit's schema,
and the hooks run in the example repository.

Every case works in a small user repository built in a temporary folder from this
repository's blueprints/, overlays/ and mpigen.yaml (output: rendered). Expectations are
taken from what mpigen really renders for these blueprints: the dev overlay sets every
job to 1 worker, prod gives resnet50-imagenet 16 workers x 8 GPUs.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from tests.support.paths import ROOT
from tests.support.ci_repository import (BIN, ENV, ENVIRONMENTS, EXAMPLES, Run, WORKER_CPU, edit, git, make_repo,
                                         snapshot)


# --- 6. pre-commit hooks ------------------------------------------------------------------------

HOOKS = ROOT / ".pre-commit-hooks.yaml"
# pre-commit's manifest schema (pre_commit/clientlib.py, MANIFEST_HOOK_DICT) and languages.
REQUIRED = {"id": str, "name": str, "entry": str, "language": str}
OPTIONAL = {"alias": str, "files": str, "exclude": str, "types": list, "types_or": list, "exclude_types": list,
            "additional_dependencies": list, "args": list, "always_run": bool, "fail_fast": bool,
            "pass_filenames": bool, "description": str, "language_version": str, "log_file": str,
            "require_serial": bool, "stages": list, "verbose": bool, "minimum_pre_commit_version": str}
LANGUAGES = {"conda", "coursier", "dart", "docker", "docker_image", "dotnet", "fail", "golang", "haskell", "julia",
             "lua", "node", "perl", "pygrep", "python", "python_venv", "r", "ruby", "rust", "script", "swift",
             "system"}


def hooks() -> list[dict]:
    return yaml.safe_load(HOOKS.read_text(encoding="utf-8"))


def test_pre_commit_manifest_follows_the_schema():
    manifest = hooks()
    assert isinstance(manifest, list) and manifest
    ids = [hook.get("id") for hook in manifest]
    assert ids == ["mpigen-validate", "mpigen-render", "mpigen-check"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    for hook in manifest:
        assert isinstance(hook, dict)
        for key, kind in REQUIRED.items():
            assert isinstance(hook.get(key), kind) and hook[key], (hook.get("id"), key)
        assert set(hook) <= set(REQUIRED) | set(OPTIONAL), set(hook) - set(REQUIRED) - set(OPTIONAL)
        for key, kind in OPTIONAL.items():
            if key in hook:
                assert isinstance(hook[key], kind), (hook["id"], key)
        assert hook["language"] in LANGUAGES
        assert hook["pass_filenames"] is False  # mpigen reads mpigen.yaml, not the files of the commit
        # language: python installs this repository (pip install .): the entry must be its script.
        assert shlex.split(hook["entry"])[0] in scripts
        files = re.compile(hook["files"])  # pre-commit uses re.search on paths relative to the root
        for path in ("mpigen.yaml", "blueprints/x.yaml", "blueprints/team/x.yml", "overlays/dev/overlay.yaml"):
            assert files.search(path), (hook["id"], path)
        for path in ("README.md", "mpigen/cli/main.py", "docs/overlays.md"):
            assert not files.search(path), (hook["id"], path)
        if "exclude" in hook:
            re.compile(hook["exclude"])


def run_hook(hook_id: str, cwd: Path) -> Run:
    """The hook's entry as pre-commit runs it with pass_filenames: false (no file arguments)."""
    hook = next(h for h in hooks() if h["id"] == hook_id)
    command = shlex.split(hook["entry"]) + list(hook.get("args", []))
    path = os.pathsep.join([str(BIN), ENV.get("PATH", "")])
    executable = shutil.which(command[0], path=path)
    if executable is None:
        pytest.skip(f"{command[0]} is not installed next to {sys.executable}")
    done = subprocess.run([executable, *command[1:]], cwd=cwd, env={**ENV, "PATH": path}, capture_output=True)
    return Run(done.returncode, done.stdout.decode(), done.stderr.decode())


def test_pre_commit_hooks_in_the_example_repository(tmp_path):
    root = make_repo(tmp_path / "example", output=None)  # mpigen.yaml as it is: output golden/overlays
    assert (root / "golden" / "overlays" / "dev" / "kustomization.yaml").is_file()
    validate = run_hook("mpigen-validate", root)
    assert validate.code == 0, validate.err
    assert validate.err == f"mpigen: {len(EXAMPLES)} blueprints valid under {len(ENVIRONMENTS)} overlays\n"
    before = snapshot(root)
    render = run_hook("mpigen-render", root)
    assert render.code == 0, render.err
    assert git(root, "status", "--porcelain") == ""  # up to date: pre-commit lets the commit through
    assert {k: v[2] for k, v in snapshot(root).items()} == {k: v[2] for k, v in before.items()}
    check = run_hook("mpigen-check", root)
    assert check.code == 0, check.out + check.err
    # A blueprint changed without rendering: the render hook changes the output (pre-commit then
    # stops the commit so that it can be added), the check hook fails until it is.
    edit(root, WORKER_CPU)
    assert run_hook("mpigen-check", root).code == 1
    render = run_hook("mpigen-render", root)
    assert render.code == 0
    changed = sorted(line[3:] for line in git(root, "status", "--porcelain").splitlines())
    assert changed == ["blueprints/intel-pi.yaml", "golden/overlays/.mpigen-index",
                       "golden/overlays/dev/ml-dev/statefulset-intel-pi-worker.yaml",
                       "golden/overlays/prod/hpc/statefulset-intel-pi-worker.yaml"]
    assert run_hook("mpigen-check", root).code == 0
