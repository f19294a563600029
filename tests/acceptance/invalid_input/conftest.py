"""The previous_render fixture of the invalid-input tests: an -o folder as a user has it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.command_line import run_mpigen
from tests.support.invalid_input import MNIST, RUN_TIMEOUT, env


@pytest.fixture(scope="session")
def previous_render(tmp_path_factory) -> Path:
    """A folder as a user has it: a README and an earlier `mpigen render` of tensorflow-mnist."""
    root = tmp_path_factory.mktemp("previous-render")
    out = root / "out"
    out.mkdir()
    (out / "README.md").write_text("# Rendered manifests\nDo not edit by hand.\n", encoding="utf-8")
    done = run_mpigen("render", str(MNIST), "-o", "out", cwd=root, env=env(), timeout=RUN_TIMEOUT)
    assert done.returncode == 0, done.stderr.decode()
    assert (out / ".mpigen-index").is_file() and (out / "kustomization.yaml").is_file()
    return out
