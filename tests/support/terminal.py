"""`mpigen ARGS` with its standard error (and, when asked, its standard output) on a terminal: a
pseudo-terminal of 100 x 24 in raw mode, so that the bytes read are the bytes mpigen wrote (no
\\n -> \\r\\n). The other stream is a pipe, as in CI."""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import termios
import threading
import tty
from dataclasses import dataclass
from pathlib import Path

from tests.support.command_line import MPIGEN

ANSI = re.compile(rb"\x1b\[[0-9;]*m")


@dataclass
class TerminalRun:
    returncode: int
    stdout: bytes
    stderr: bytes


def plain(data: bytes) -> bytes:
    """The bytes without their colour escapes."""
    return ANSI.sub(b"", data)


def terminal() -> tuple[int, int]:
    """(leader, follower) of a new pseudo-terminal of 100 columns and 24 lines, in raw mode."""
    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    tty.setraw(follower)
    return leader, follower


def drain(fd: int, into: bytearray) -> None:
    """Read the terminal's leader side into `into` until its follower is closed."""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the other end is closed (Linux)
            return
        if not chunk:
            return
        into.extend(chunk)


def on_terminal(*args: str, cwd: Path, env: dict[str, str] | None = None, stdout_terminal: bool = False,
                timeout: float = 120) -> TerminalRun:
    """Run mpigen with standard error on a terminal; `env` is added to this environment, which
    loses NO_COLOR and gets TERM=xterm-256color first (so that each test says what it sets)."""
    full = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | {"TERM": "xterm-256color"} | (env or {})
    terminals = {name: terminal() for name in (("stdout", "stderr") if stdout_terminal else ("stderr",))}
    process = subprocess.Popen(
        [*MPIGEN, *args], cwd=cwd, env=full, stdin=subprocess.DEVNULL,
        stdout=terminals["stdout"][1] if stdout_terminal else subprocess.PIPE, stderr=terminals["stderr"][1])
    for _, follower in terminals.values():
        os.close(follower)
    read = {name: bytearray() for name in terminals}
    readers = [threading.Thread(target=drain, args=(leader, read[name])) for name, (leader, _) in terminals.items()]
    for reader in readers:
        reader.start()
    piped = b"" if stdout_terminal else process.stdout.read()
    process.wait(timeout)
    for reader in readers:
        reader.join(timeout)
    for leader, _ in terminals.values():
        os.close(leader)
    if not stdout_terminal:
        process.stdout.close()
    return TerminalRun(process.returncode, bytes(read["stdout"]) if stdout_terminal else piped, bytes(read["stderr"]))
