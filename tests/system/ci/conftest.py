"""The repo fixture of the CI loop tests: a user repository, rendered and committed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.ci_repository import make_repo


@pytest.fixture
def ci_repository(tmp_path) -> Path:
    return make_repo(tmp_path / "repo")
