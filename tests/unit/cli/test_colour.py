"""mpigen.cli.colour: when a stream gets colour, and what the colours leave unchanged."""

from __future__ import annotations

import io
import re

import pytest

from mpigen.cli import colour
from mpigen.errors import Diagnostic, Mark, error, warning

ANSI = re.compile(r"\x1b\[[0-9;]*m")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        if self.closed:
            raise ValueError("I/O operation on closed file")  # as a real file says
        return True


@pytest.mark.parametrize("env, stream, expected", [
    ({}, Terminal(), True),
    ({}, io.StringIO(), False),               # a file or a pipe
    ({}, None, False),                        # a closed standard stream
    ({"NO_COLOR": "1"}, Terminal(), False),
    ({"NO_COLOR": "0"}, Terminal(), False),   # any non-empty value
    ({"NO_COLOR": ""}, Terminal(), True),
    ({"TERM": "dumb"}, Terminal(), False),
])
def test_colour_only_on_a_terminal_that_takes_it(monkeypatch, env, stream, expected):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert colour.wanted(stream) is expected


def test_a_closed_stream_gets_no_colour():
    stream = Terminal()
    stream.close()
    assert colour.wanted(stream) is False


@pytest.mark.parametrize("item", [
    error(Mark("a.yaml", 3, 7), "spec.workers: must be >= 1"),
    warning(Mark("a b: error: .yaml", 1, 1), "a path that looks like a severity"),
    error(Mark("blueprints/pipe.yaml"), "is a FIFO"),
    error(Mark(""), "cannot write to standard output"),
    Diagnostic(Mark("x\n.yaml", 2, 2), "a path with a line break\x1b[31m", "error"),
])
def test_a_diagnostic_in_colour_is_the_same_text_between_the_escapes(item):
    painted = colour.diagnostic(item)
    assert ANSI.sub("", painted) == str(item) and painted != str(item)
    assert f"{colour.BOLD_RED if item.severity == 'error' else colour.BOLD + colour.MAGENTA}{item.severity}:" \
        in painted


DIFF = """--- a/out/x.yaml
+++ b/out/x.yaml
@@ -1,3 +1,3 @@
 kind: ConfigMap
--- a separator removed
+++ a separator added
 data: {}
@@ -9 +9 @@
-old
+new
\\ No newline at end of file
--- /dev/null
+++ b/out/y.yaml
@@ -0,0 +1 @@
+kind: Job
"""


def test_a_unified_diff_is_coloured_as_git_does_counting_each_hunk():
    painted = colour.unified_diff(DIFF)
    assert ANSI.sub("", painted) == DIFF
    lines = painted.splitlines()
    assert lines[0] == f"{colour.BOLD}--- a/out/x.yaml{colour.RESET}"
    assert lines[2] == f"{colour.CYAN}@@ -1,3 +1,3 @@{colour.RESET}"
    assert lines[3] == " kind: ConfigMap"
    # Inside a hunk, `--- ...` is a removed line, not a file header.
    assert lines[4] == f"{colour.RED}--- a separator removed{colour.RESET}"
    assert lines[5] == f"{colour.GREEN}+++ a separator added{colour.RESET}"
    assert lines[10] == "\\ No newline at end of file"
    assert lines[11] == f"{colour.BOLD}--- /dev/null{colour.RESET}"
    assert lines[14] == f"{colour.GREEN}+kind: Job{colour.RESET}"


def test_no_diff_is_no_text():
    assert colour.unified_diff("") == ""
