"""The tiers of the suite (docs/development.md, Running the tests): tests/unit calls mpigen's
functions in this process, as the user running the suite; tests/acceptance runs the command line
(in this process where the process boundary is not the point); tests/system runs the tools,
the machine (root, another user, mounts) and the pretend cluster. The unit tier's rule, which
tests/conftest.py applies to every test it collects (as pip's tests/conftest.py refuses its
`script` fixture in a unit test): no fixture that runs the command line or another process."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tests.support.paths import ROOT

UNIT = ROOT / "tests" / "unit"
# The fixtures of tests/conftest.py that run the command line (in this process or not) or a tool.
NOT_IN_UNIT = {
    "mpigen_in_process": "runs the command line",
    "cli": "runs the command line",
    "kubectl": "runs kubectl",
}


def is_unit(path: Path) -> bool:
    """Whether the test module at `path` is of the unit tier."""
    return Path(path).resolve().is_relative_to(UNIT)


def unit_refusal(path: Path, fixtures: Iterable[str]) -> str | None:
    """Why a test at `path` taking `fixtures` (every fixture it uses, directly or not) breaks
    the unit tier's rule, or None when it keeps it (or is not a unit test)."""
    if not is_unit(path):
        return None
    refused = [f"`{name}` ({NOT_IN_UNIT[name]})" for name in sorted(set(fixtures)) if name in NOT_IN_UNIT]
    if not refused:
        return None
    return (f"{Path(path).resolve().relative_to(ROOT)}: a unit test calls mpigen's functions in this process, "
            f"and may not use {', '.join(refused)}: call the function the command would, or move the test to "
            "tests/acceptance (the command line) or tests/system (tools, root, other users)")


# What cannot run beside itself on another pytest-xdist worker (`make test` runs the tiers with
# `-n auto --dist loadgroup`): a group's tests run one after another on one worker.
# - "mpi": the pretend cluster's network namespaces are named after the pods (/run/netns/<pod>),
#   the same in every end-to-end test, and tests/conftest.py removes the /tmp/ompi.* session
#   folders an end-to-end test leaves, which would be another worker's mpirun's while it runs.
# - "release": the wheel is built once per session in a copy of the sources (tests/acceptance/
#   install/conftest.py); one worker builds it once rather than each worker again.
MPI_MODULES = ("test_process_count_launchers",)


def xdist_group(path: Path) -> str | None:
    """The group of the test module at `path`, or None when it may run on any worker."""
    path = Path(path)
    if path.stem.startswith("test_e2e") or path.stem in MPI_MODULES:
        return "mpi"
    if path.parent.name == "install":
        return "release"
    return None
