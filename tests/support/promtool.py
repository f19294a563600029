"""promtool, Debian's `prometheus` package's (`make install-test` installs it): where it is, and a
run of it that says how to install it when it is missing."""

from __future__ import annotations

import subprocess
from pathlib import Path

PROMTOOL = Path("/usr/bin/promtool")


def promtool(*args: str, cwd: Path, timeout: int = 120) -> subprocess.CompletedProcess:
    """`promtool ARGS` in `cwd`, its output as text."""
    assert PROMTOOL.exists(), "promtool is missing: run `make install-test` (Debian's prometheus package)"
    return subprocess.run([str(PROMTOOL), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)
