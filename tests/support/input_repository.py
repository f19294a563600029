"""The repository of the input tests (tests/acceptance/inputs/): blueprints at three depths,
overlays with a base, mpigen.yaml; the commands that read it, skipping with a reason (never
under CI), and a refused run's error lines."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.text import write
from tests.support.any_user import NOBODY  # noqa: F401 (the other user of the input tests)

OVERLAY = "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n"
CONFIG = """\
apiVersion: mpigen.dev/v1alpha1
kind: Config
blueprints: [blueprints]
overlays: [dev, prod]
output: out
"""
# The four ways a run reads the repository: render (into the output folder, and as a
# stream), validate, and check.
COMMANDS = {"render-o": ("render", "-o", "out"), "render-stdout": ("render", "--stdout"),
            "validate": ("validate",), "check": ("check",)}


def need(reason: str | None) -> None:
    """Skip with the reason, except under CI, which must run every test."""
    if reason and os.environ.get("CI") == "true":
        pytest.fail(f"CI must run this test, but {reason}")
    if reason:
        pytest.skip(reason)


def make_repository(root: Path) -> None:
    write(root / "mpigen.yaml", CONFIG)
    write(root / "blueprints/one.yaml", blueprint_text("one"))
    write(root / "blueprints/team/two.yaml", blueprint_text("two"))
    write(root / "blueprints/team/deep/three.yaml", blueprint_text("three"))
    write(root / "overlays/dev/overlay.yaml", OVERLAY + "namespace: dev\n")
    write(root / "overlays/prod/overlay.yaml", OVERLAY + "bases: [pool]\nnamespace: prod\n")
    write(root / "overlays/pool/overlay.yaml", OVERLAY + "labels: {pool: a100}\n")


def snapshot(root: Path) -> dict[str, tuple]:
    """Every path below root with its type and mode, and the bytes of the files."""
    state = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            info = path.lstat()
            content = path.read_bytes() if stat.S_ISREG(info.st_mode) and os.access(path, os.R_OK) else None
            state[path.relative_to(root).as_posix()] = (stat.S_IFMT(info.st_mode), stat.S_IMODE(info.st_mode), content)
    return state


def refused(done, where: str) -> list[str]:
    """The error lines of a run that must have been refused: exit 2, no traceback, nothing
    on standard output."""
    stderr = done.stderr.decode()
    assert "Traceback" not in stderr and "internal error" not in stderr, f"{where}:\n{stderr}"
    assert done.returncode == 2, f"{where}: exit {done.returncode}\n{stderr}"
    assert done.stdout in (b"", None), where  # (None: it went to /dev/full)
    return stderr.splitlines()


# The fix an error names for a file met in a search of a folder.
SEARCHED = "or move it out of the searched folder"
