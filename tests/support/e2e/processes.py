"""The processes the pretend cluster starts, each in a session of its own: ending one ends its
whole process group."""

from __future__ import annotations

import os
import signal
import subprocess


def kill(process: subprocess.Popen) -> None:
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            process.kill()
    process.wait()
