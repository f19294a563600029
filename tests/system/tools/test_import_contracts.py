"""The import contracts of pyproject.toml (import-linter) hold on the code and break on a
planted violation of each: a stage importing a later one, a target importing another
target, a package outside render/ importing a target's package or render's parts, rendering
loading the live-cluster client, a module besides the dashboard's loading
Grafana's builders. A contract that cannot break proves
nothing, so each is run on a copy of the package with one import added."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"

PLANTED = {
    # contract id: (module, the import added to it, the contract's name as lint-imports prints it)
    "stages": ("mpigen/kube/quantity.py", "import mpigen.formats.base",
               "A stage imports only the stages before it"),
    "targets": ("mpigen/render/jobset/pods.py", "from mpigen.render.trainjob import names as _planted",
                "A target is a package of its own: targets never import each other"),
    "targets-new-package": ("mpigen/render/volcano/target.py", "from mpigen.render.static import launcher",
                            "A target is a package of its own: targets never import each other"),
    "render-door": ("mpigen/pipeline/run.py", "from mpigen.render.parts import stamp as _planted",
                    "Outside render/, nothing imports render.parts or a target's package"),
    "render-door-target": ("mpigen/review/live.py", "from mpigen.render.jobset import names as _planted",
                           "Outside render/, nothing imports render.parts or a target's package"),
    "render-path": ("mpigen/render/parts/stamp.py", "import kubernetes",
                    "Rendering never loads the live-cluster client or the schema validators"),
    "dashboard-builders": ("mpigen/monitoring/dashboard_queries.py", "import grafana_foundation_sdk",
                           "Only mpigen.monitoring.dashboard loads Grafana's dashboard builders"),
}


def copy_of_the_package(folder: Path) -> Path:
    shutil.copytree(ROOT / "mpigen", folder / "mpigen", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", folder / "pyproject.toml")
    return folder


def lint_imports(folder: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(folder)}
    return subprocess.run([str(LINT_IMPORTS), "--no-logo", "--no-cache"], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_contracts_hold_on_a_copy_of_the_package(tmp_path):
    run = lint_imports(copy_of_the_package(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "5 kept, 0 broken" in run.stdout


@pytest.mark.parametrize("planted", PLANTED)
def test_a_planted_violation_breaks_its_contract(tmp_path, planted):
    """Also for a target package the contract does not list by name (a fifth target's)."""
    module, line, contract = PLANTED[planted]
    folder = copy_of_the_package(tmp_path)
    path = folder / module
    if not path.exists():  # a new target package
        path.parent.mkdir()
        (path.parent / "__init__.py").write_text('"""A planted target."""\n', encoding="utf-8")
        path.write_text('"""A planted module."""\n', encoding="utf-8")
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    run = lint_imports(folder)
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"{contract} BROKEN" in run.stdout, run.stdout
    assert "1 broken" in run.stdout, run.stdout
