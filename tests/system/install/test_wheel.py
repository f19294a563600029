"""mpigen installs as the docs say (issue 36, item 1): `make dist` builds an sdist and a wheel
that twine passes, with the build tools alone (issue 53), the wheel holds every file of the
package and is the one the sdist builds, and docs/tutorial.md runs from step 1, installing that
wheel into a fresh virtual environment, to the folder Argo CD syncs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.support.docs_run import ENV, assert_shown, run_block, shell_blocks
from tests.support.paths import ROOT
from tests.support.release import SDIST, WHEEL, reader_shell

TUTORIAL = ROOT / "docs" / "tutorial.md"
VENV = Path(".local", "mpigen")  # the tutorial's virtual environment, in the reader's home


def members(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_make_dist_builds_the_sdist_and_the_wheel_and_twine_passes_both(release):
    assert sorted(p.name for p in release.dist.iterdir()) == sorted([SDIST, WHEEL])
    checked = re.findall(r"^Checking (\S+): (?:\x1b\[\d+m)?(\w+)", release.printed, re.M)
    assert sorted(checked) == sorted([(f"dist/{SDIST}", "PASSED"), (f"dist/{WHEEL}", "PASSED")]), release.printed


# What `make dist`'s environment holds: every distribution build and twine need, on this
# platform (their requirements' markers evaluated, extras not taken), and nothing else but what
# `python -m venv` seeds it with.
NEEDED = """
import json, re, sys
from importlib.metadata import distributions, requires
from packaging.requirements import Requirement

def name(text):
    return re.sub(r"[-_.]+", "-", text).lower()

needed, todo = set(), ["build", "twine"]
while todo:
    wanted = name(todo.pop())
    if wanted not in needed:
        needed.add(wanted)
        todo += [r.name for r in map(Requirement, requires(wanted) or []) if not r.marker or r.marker.evaluate({"extra": ""})]
print(json.dumps({"installed": sorted({name(d.metadata["Name"]) for d in distributions()}), "needed": sorted(needed)}))
"""


def test_make_dist_installs_the_build_tools_alone(release):
    """`make dist` needs only build and twine: not mpigen, its dependencies, the test extras or
    MPICH (issue 53: it installed all of them, 448 MB, to build a wheel)."""
    # isolated (-I): neither the working folder (this checkout, whose mpigen.egg-info an editable
    # install leaves there) nor PYTHONPATH may add a distribution that environment does not hold
    done = subprocess.run([release.venv / "bin" / "python", "-I", "-c", NEEDED], capture_output=True, text=True,
                          check=True)
    found = json.loads(done.stdout)
    seeded = {"pip", "setuptools"}
    assert {"build", "twine"} <= set(found["needed"])
    assert set(found["installed"]) - seeded == set(found["needed"])
    assert not (release.venv / "mpich").exists()


def test_the_wheel_holds_every_file_of_the_package_and_its_templates(release):
    """Every file of mpigen/ in this checkout (the modules, and the templates render reads as
    package data), byte for byte, and nothing else of the package."""
    package = {p.relative_to(ROOT).as_posix(): p.read_bytes() for p in (ROOT / "mpigen").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    templates = [name for name in package if name.startswith("mpigen/render/parts/templates/")]
    assert len(templates) >= 5 and any(name.endswith(".j2") for name in templates)
    held = {name: data for name, data in members(release.dist / WHEEL).items() if name.startswith("mpigen/")}
    assert held == package


def test_the_sdist_builds_the_wheel_the_sources_build(release, tmp_path):
    """`make dist` builds its wheel from the sdist: the same wheel, file for file, as the
    sources build directly, so the sdist leaves out nothing the wheel needs."""
    done = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path), str(release.sources)],
                          env=ENV, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert members(tmp_path / WHEEL) == members(release.dist / WHEEL)


def test_the_tutorial_runs_from_step_1_with_the_wheel(release, tmp_path):
    """docs/tutorial.md, block after block in one folder, as a new user follows it, from the
    wheel in an empty folder: the virtual environment made, the wheel installed into it, its
    `mpigen` on the PATH, and every command after prints what the tutorial shows, up to the
    folder Argo CD syncs (Argo CD itself is not run)."""
    env = reader_shell(tmp_path)
    start = tmp_path / "start"
    start.mkdir()
    shutil.copy2(release.dist / WHEEL, start / WHEEL)
    assert where_mpigen(env, start) == ""  # nothing of mpigen before step 1
    blocks = shell_blocks(TUTORIAL)
    assert len(blocks) >= 8 and "pip install ./" + WHEEL in blocks[0].text
    cwd = start
    for block in blocks:
        cwd, output = run_block(block, cwd, env)
        if block.output is not None:
            assert_shown(f"{block.doc}:{block.line}", output, block.output)
    venv = Path(env["HOME"]) / VENV
    assert where_mpigen(env, start) == f"{venv}/bin/mpigen"
    imported = subprocess.run([venv / "bin" / "python", "-c", "import mpigen; print(mpigen.__file__)"],
                              cwd=start, env=env, capture_output=True, text=True, check=True).stdout
    assert Path(imported.strip()).is_relative_to(venv / "lib")
    assert (cwd / "rendered" / "prod" / "kustomization.yaml").is_file()
    assert (cwd / "argocd" / "application-mpigen-prod.yaml").is_file()


def where_mpigen(env: dict[str, str], cwd: Path) -> str:
    """The `mpigen` the reader's shell runs, or "" when there is none."""
    return subprocess.run(["bash", "-c", "command -v mpigen || true"], cwd=cwd, env=env, capture_output=True,
                          text=True).stdout.strip()
