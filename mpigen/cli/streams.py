"""Standard output and standard error: what every command prints goes through here, in colour
where it goes to a terminal (mpigen.cli.colour)."""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Iterable

from mpigen.cli import colour
from mpigen.errors import NOWHERE, Diagnostic, InputError, error


def write_stdout(*texts: str) -> None:
    """Write the texts to standard output, as UTF-8 bytes with LF endings whatever the locale or
    platform, and flush it. Every command writes its standard output through here.

    A reader that stops reading (`| head -1`) is not an error: the rest of the output is
    dropped quietly and the command's exit code still says what it found (as for
    `mpigen check | head`, 1 on drift). A standard output that cannot take the output
    (closed, a full disk, /dev/full) is an error of the machine: exit 2."""
    stream_stdout(text.encode("utf-8") for text in texts)


def stream_stdout(chunks: Iterable[bytes]) -> None:
    """write_stdout of bytes written as they come: a long output is never held whole.
    Standard output is not touched when there is nothing to write."""
    chunks = iter(chunks)
    first = next((chunk for chunk in chunks if chunk), None)
    if first is None:
        return
    try:
        if sys.stdout is None:  # started with standard output closed (`>&-`)
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        sys.stdout.flush()
        out = sys.stdout.buffer
        out.write(first)
        for chunk in chunks:
            out.write(chunk)
        out.flush()
    except BrokenPipeError:
        silence_stdout()
    except OSError as exc:
        silence_stdout()  # so that the flush at exit does not fail again
        hint = {errno.EBADF: "it is closed: run the command with an open standard output",
                errno.ENOSPC: "free some space, or send the output elsewhere"}.get(
            exc.errno, "send the output to a file or a program that reads it")
        raise InputError([error(NOWHERE, f"cannot write to standard output: {exc.strerror or exc}; {hint}")])


def silence_stdout() -> None:
    """Point standard output at /dev/null, so that what is still buffered goes nowhere."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, 1 if sys.stdout is None else sys.stdout.fileno())
        finally:
            os.close(devnull)
    except OSError:
        pass


def print_diagnostics(diagnostics: Iterable[Diagnostic]) -> None:
    """Diagnostics on standard error, one line each (PATH:LINE:COLUMN: severity: MESSAGE)."""
    painted = colour.wanted(sys.stderr)
    for diagnostic in diagnostics:
        print(colour.diagnostic(diagnostic) if painted else diagnostic, file=sys.stderr)


def say_error(message: str) -> None:
    """`error: MESSAGE` on standard error (its `error:` in colour on a terminal): the form of a
    problem in no file, as a Diagnostic with no position prints it, whoever found the problem
    (argparse, a command, the machine)."""
    print_diagnostics([error(NOWHERE, message)])


def colour_on_stdout() -> bool:
    """Whether standard output is a terminal that takes colour (see mpigen.cli.colour)."""
    return colour.wanted(sys.stdout)


def say(message: str) -> None:
    """A line of mpigen's own on standard error: `mpigen: MESSAGE`."""
    print(f"mpigen: {message}", file=sys.stderr)


def plural(count: int, noun: str) -> str:
    """`1 job`, `2 jobs`."""
    return f"{count} {noun}{'s' if count != 1 else ''}"
