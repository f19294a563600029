"""The release files of this checkout, built once per session as `make dist` builds them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.docs_run import ENV
from tests.support.paths import ROOT
from tests.support.release import SOURCES


@dataclass
class Release:
    """A copy of the sources, and what `make dist` printed and wrote into its dist/."""

    sources: Path
    dist: Path
    printed: str


@pytest.fixture(scope="session")
def release(tmp_path_factory) -> Release:
    """`make dist` in a copy of the sources, with the suite's environment as the Makefile's
    (its test extras, build and twine among them, already installed: no stamp to make)."""
    sources = tmp_path_factory.mktemp("release") / "mpigen"
    sources.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, sources / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, sources / name)
    done = subprocess.run(["make", "dist", f"VENV={sys.prefix}", "TEST_STAMP="], cwd=sources, env=ENV,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return Release(sources, sources / "dist", done.stdout + done.stderr)
