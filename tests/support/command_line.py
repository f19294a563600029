"""`mpigen ARGS` as a user runs it: in a subprocess (run_mpigen), and the result of a run in this
process (InProcessRun, made by the mpigen_in_process and cli fixtures of tests/conftest.py)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

# The command line as a user runs it (for subprocess.Popen, where a run is started, not awaited).
MPIGEN = (sys.executable, "-m", "mpigen")


def run_mpigen(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 60,
               prefix: tuple[str, ...] | list[str] = (), python: Path | None = None,
               **run) -> subprocess.CompletedProcess:
    """`mpigen ARGS` in a subprocess, its output captured (unless `stdout` or `stderr` is given).
    `prefix` is a command the run goes through (setpriv as another user, a shell closing the
    standard output), `python` another interpreter than this one (the copy every user may run,
    tests/support/any_user.py); further keywords go to subprocess.run (stdout, preexec_fn, text, check)."""
    if "stdout" not in run and "stderr" not in run:
        run["capture_output"] = True
    command = MPIGEN if python is None else (str(python), "-m", "mpigen")
    return subprocess.run([*prefix, *command, *args], cwd=cwd, env=env, timeout=timeout, **run)


@dataclass
class InProcessRun:
    """The result of `mpigen ARGS` run in-process (see the mpigen_in_process fixture)."""

    returncode: int
    stdout: bytes
    stderr: str

    def lines(self, severity: str) -> list[str]:
        return [line for line in self.stderr.splitlines()
                if f": {severity}: " in line or line.startswith(f"{severity}: ")]

    def objects(self) -> list[dict]:
        return [o for o in yaml.safe_load_all(self.stdout.decode()) if o]
