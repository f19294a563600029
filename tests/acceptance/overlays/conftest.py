"""Fixtures of the overlay tests: every test works in its own folder, and `previous`, an -o folder as a user has it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.overlays import blueprint, snapshot
from tests.support.text import write


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    """Every test works in its own folder, as a user in a repository checkout."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MPIGEN_DEBUG", raising=False)
    return tmp_path


@pytest.fixture
def previous(cli):
    """An -o folder as a user has it: a README and an earlier render of one blueprint."""
    write("seed/seed.yaml", blueprint("seed"))
    assert cli("render", "seed", "-o", "out").returncode == 0
    write("out/README.md", "# manifests\n")
    return snapshot(Path("out"))
