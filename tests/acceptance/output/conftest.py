"""The output tests' folder that several users share."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest


@pytest.fixture
def shared():
    """A folder every user can reach and write into, as a team's folder or /tmp is (pytest's
    tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="mpigen-shared-", dir="/tmp"))
    path.chmod(0o777)
    yield path
    shutil.rmtree(path, ignore_errors=True)
