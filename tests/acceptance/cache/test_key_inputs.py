"""Every input a render reads reaches its cache key: the run is watched with an audit hook
(every file the process opens, every module it imports), and each file is put where it
belongs: the run's own inputs, outputs and cache; Python's standard library (in the key by
Python's version); mpigen's package (in the key by its bytes); or an installed distribution,
which must be one that the key of that render holds (mpigen.cache.fingerprint). A library
added to the render path, or data read from a new package, fails here until the key holds it."""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mpigen
from mpigen.cache.fingerprint import RUN_LIBRARIES
from mpigen.render.mpijob.crd import SCHEMAS_LIBRARY
from tests.support.paths import ROOT

# The runs, in one process each, after the interpreter has started: what it loaded before
# mpigen's first import (site, .pth hooks) is no input of a render.
PROBE = """
import json, os, sys
before = {getattr(m, "__file__", None) for m in list(sys.modules.values())}
opened = set()
sys.addaudithook(lambda event, args: opened.add(os.path.abspath(os.fsdecode(args[0])))
                 if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)) else None)
from mpigen.cli.main import main
for argv in json.loads(sys.argv[1]):
    try:
        main(argv)
    except SystemExit:
        pass
loaded = {getattr(m, "__file__", None) for m in list(sys.modules.values())} - before
print(json.dumps(sorted(p for p in opened | loaded if p)))
"""

RUNS = {
    "every target, profile and command": [
        *[["render", "blueprints", "--stdout", "--target", target] for target in ("static", "mpijob", "jobset",
                                                                                   "trainjob")],
        *[["render", "blueprints", "--stdout", "--gitops", profile, "--target", target]
          for profile in ("argocd", "flux") for target in ("static", "jobset")],
        ["render"], ["render"], ["check"], ["validate"], ["render", "blueprints", "-o", "out", "--target", "trainjob"],
    ],
    "--with-crd": [["render", "blueprints", "-o", "crd", "--target", "mpijob", "--with-crd", "--kube-version", v]
                   for v in ("1.30", "1.31")] + [["check", "blueprints", "-o", "crd", "--target", "mpijob",
                                                   "--with-crd"]],
}
KEYED = {"every target, profile and command": set(RUN_LIBRARIES),
         "--with-crd": {*RUN_LIBRARIES, SCHEMAS_LIBRARY}}


def owners() -> dict[str, str]:
    """Each installed file's real path -> the name of its distribution."""
    found = {}
    for dist in importlib.metadata.distributions():
        for file in dist.files or ():
            found.setdefault(os.path.realpath(dist.locate_file(file)), dist.metadata["Name"])
    return found


def read_by(tmp_path: Path, runs: list[list[str]]) -> list[str]:
    repo = tmp_path / "repo"
    for name in ("blueprints", "overlays"):
        shutil.copytree(ROOT / name, repo / name)
    shutil.copy(ROOT / "mpigen.yaml", repo / "mpigen.yaml")
    (tmp_path / "scratch").mkdir()  # the spill of --stdout and of a compared folder
    env = {**os.environ, "MPIGEN_CACHE_DIR": str(tmp_path / "cache"), "MPIGEN_PROCESSES": "1",
           "TMPDIR": str(tmp_path / "scratch")}
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(runs)], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("runs", RUNS)
def test_every_installed_library_a_render_reads_is_in_its_key(tmp_path, runs):
    installed = owners()
    ours = (os.path.realpath(tmp_path), os.path.realpath(Path(mpigen.__file__).parent),
            os.path.realpath(os.path.dirname(os.__file__)))  # the run's folders, mpigen's package, the standard library
    libraries, unknown = set(), []
    for path in map(os.path.realpath, read_by(tmp_path, RUNS[runs])):
        if any(path == folder or path.startswith(folder + os.sep) for folder in ours):
            continue
        if path in installed:
            libraries.add(installed[path])
        else:
            unknown.append(path)
    assert unknown == [], "read by a render, and in no cache key"

    assert {"PyYAML", "pydantic", "Jinja2"} <= libraries  # the probe saw the render
    normalized = {name.lower().replace("_", "-") for name in KEYED[runs]}
    assert {name for name in libraries if name.lower().replace("_", "-") not in normalized} == set()
    assert (SCHEMAS_LIBRARY in libraries) == (runs == "--with-crd")
