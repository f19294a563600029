"""The repo fixture of the input tests: the repository, rendered, in a folder every user may enter."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.support.command_line import run_mpigen
from tests.support.input_repository import make_repository


@pytest.fixture
def shared_repository():
    """A repository with its committed output, in a folder every user may enter (pytest's
    own temporary folders are private to their owner), removed afterwards whatever modes
    a test left in it."""
    root = Path(tempfile.mkdtemp(prefix="mpigen-inputs-"))
    root.chmod(0o755)
    try:
        make_repository(root)
        done = run_mpigen("render", cwd=root)
        assert done.returncode == 0, done.stderr.decode()
        yield root
    finally:
        for folder, dirs, files in os.walk(root):
            for name in dirs + files:
                path = Path(folder, name)
                if not path.is_symlink():
                    path.chmod(0o755)
        shutil.rmtree(root)
