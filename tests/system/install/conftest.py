"""The release files of this checkout, built once per session as `make dist` builds them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tests.support.release import SOURCES, reader_shell


@dataclass
class Release:
    """A copy of the sources, and what `make dist` printed and wrote into its dist/ and the
    virtual environment it made."""

    sources: Path
    dist: Path
    printed: str
    venv: Path


@pytest.fixture(scope="session")
def release(tmp_path_factory) -> Release:
    """`make dist` in a copy of the sources, as a reader with nothing of mpigen runs it: the
    Makefile makes its virtual environment (build and twine, from the reader's package index)."""
    root = tmp_path_factory.mktemp("release")
    sources = root / "mpigen"
    sources.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, sources / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, sources / name)
    venv = root / "venv"
    done = subprocess.run(["make", "dist", f"VENV={venv}", f"PYTHON={sys._base_executable}"], cwd=sources,
                          env=reader_shell(root), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return Release(sources, sources / "dist", done.stdout + done.stderr, venv)
