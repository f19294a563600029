"""Colour on a terminal, for errors, warnings and diffs; and, where the bytes do not go to a
terminal that takes colour (a pipe, a file, NO_COLOR, TERM=dumb), the very bytes mpigen wrote
before it had colour."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.command_line import run_mpigen
from tests.support.terminal import on_terminal, plain

ESC = b"\x1b["


def invalid(tmp_path: Path) -> Path:
    (tmp_path / "bad.yaml").write_text(blueprint_text("bad", workers=0))
    (tmp_path / "long.yaml").write_text(blueprint_text("job", workers=1, gpusPerWorker=1,
                                                       gpuResource="nvidia.com/gpus"))  # a warning
    return tmp_path


def test_errors_and_warnings_are_in_colour_on_a_terminal(tmp_path):
    where = invalid(tmp_path)
    for args, code in ((("validate", "bad.yaml"), 2), (("validate", "long.yaml"), 0)):
        piped = run_mpigen(*args, cwd=where)
        shown = on_terminal(*args, cwd=where)
        assert shown.returncode == piped.returncode == code
        assert ESC not in piped.stderr and plain(shown.stderr) == piped.stderr  # today's bytes, on a pipe
    assert shown.stderr.startswith(b"\x1b[1mlong.yaml:15:20:\x1b[0m \x1b[1m\x1b[35mwarning:\x1b[0m spec.gpuResource: ")
    shown = on_terminal("validate", "bad.yaml", cwd=where)
    assert shown.stderr == b"\x1b[1mbad.yaml:9:16:\x1b[0m \x1b[1;31merror:\x1b[0m spec.workers: must be >= 1, got 0\n"


@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {"NO_COLOR": "false"}, {"TERM": "dumb"}],
                         ids=["NO_COLOR=1", "NO_COLOR=false", "TERM=dumb"])
def test_no_color_and_a_dumb_terminal_get_the_plain_bytes(tmp_path, env):
    """no-color.org: any non-empty value of NO_COLOR turns colour off."""
    where = invalid(tmp_path)
    for args in (("validate", "bad.yaml"), ("validate", "long.yaml")):
        piped = run_mpigen(*args, cwd=where)
        shown = on_terminal(*args, cwd=where, env=env)
        assert (shown.returncode, shown.stderr) == (piped.returncode, piped.stderr)


def test_an_empty_no_color_leaves_colour_on(tmp_path):
    shown = on_terminal("validate", "bad.yaml", cwd=invalid(tmp_path), env={"NO_COLOR": ""})
    assert ESC in shown.stderr


def test_usage_errors_are_in_colour_too(tmp_path):
    (tmp_path / "blueprints").mkdir()
    (tmp_path / "blueprints" / "a.yaml").write_text(blueprint_text("a"))
    for args in (("render", "--target", "helm"), ("render",)):  # argparse's, and mpigen's own
        piped = run_mpigen(*args, cwd=tmp_path)
        shown = on_terminal(*args, cwd=tmp_path)
        assert shown.returncode == piped.returncode == 2
        assert shown.stderr.splitlines()[-1].startswith(b"\x1b[1;31merror:\x1b[0m ") and ESC not in piped.stderr
        assert plain(shown.stderr) == piped.stderr
        assert on_terminal(*args, cwd=tmp_path, env={"NO_COLOR": "1"}).stderr == piped.stderr


def two_renders(tmp_path: Path) -> Path:
    """old/ and new/: a job going from 2 to 3 workers and a new image (an immutable change)."""
    (tmp_path / "bp").mkdir()
    (tmp_path / "bp" / "a.yaml").write_text(blueprint_text("a"))
    assert run_mpigen("render", "bp", "-o", "old", cwd=tmp_path).returncode == 0
    (tmp_path / "bp" / "a.yaml").write_text(blueprint_text("a", workers=3, image="example.com/train:2"))
    assert run_mpigen("render", "bp", "-o", "new", cwd=tmp_path).returncode == 0
    return tmp_path


def test_diff_is_in_colour_when_its_standard_output_is_a_terminal(tmp_path):
    where = two_renders(tmp_path)
    piped = run_mpigen("diff", "old", "new", cwd=where)
    shown = on_terminal("diff", "old", "new", cwd=where, stdout_terminal=True)
    assert shown.returncode == piped.returncode == 1
    assert ESC not in piped.stdout and plain(shown.stdout) == piped.stdout
    assert shown.stdout.startswith(b"\x1b[1mjob default/a\x1b[0m\n\x1b[1;31mIMMUTABLE: ")
    assert b"  \x1b[33m~ changed StatefulSet default/a-worker\x1b[0m\n" in shown.stdout
    assert b"        \x1b[32m+a-worker-2 slots=1\x1b[0m\n" in shown.stdout  # the hostfile's line diff
    # markdown and json are for comments and programs: never in colour.
    for fmt in ("markdown", "json"):
        assert on_terminal("diff", "old", "new", "--format", fmt, cwd=where, stdout_terminal=True).stdout == \
            run_mpigen("diff", "old", "new", "--format", fmt, cwd=where).stdout
    # Standard error on a terminal is not standard output on one.
    assert on_terminal("diff", "old", "new", cwd=where).stdout == piped.stdout
    assert on_terminal("diff", "old", "new", cwd=where, stdout_terminal=True,
                       env={"NO_COLOR": "1"}).stdout == piped.stdout


def test_check_colours_its_unified_diff_on_a_terminal(tmp_path):
    where = two_renders(tmp_path)
    shutil.copytree(where / "old", where / "out")
    piped = run_mpigen("check", "bp", "-o", "out", cwd=where)
    shown = on_terminal("check", "bp", "-o", "out", cwd=where, stdout_terminal=True)
    assert shown.returncode == piped.returncode == 1
    assert ESC not in piped.stdout and plain(shown.stdout) == piped.stdout
    assert b"\x1b[1m--- a/out/default/configmap-a-config.yaml\x1b[0m\n" in shown.stdout
    assert b"\x1b[36m@@ " in shown.stdout and b"\x1b[31m-  replicas: 2\x1b[0m\n\x1b[32m+  replicas: 3\x1b[0m\n" \
        in shown.stdout
    assert shown.stderr == piped.stderr  # its summary is no error


def test_written_files_are_the_same_bytes_from_a_terminal(tmp_path):
    (tmp_path / "bp").mkdir()
    (tmp_path / "bp" / "a.yaml").write_text(blueprint_text("a"))
    assert run_mpigen("render", "bp", "-o", "piped", cwd=tmp_path).returncode == 0
    assert on_terminal("render", "bp", "-o", "shown", cwd=tmp_path, stdout_terminal=True).returncode == 0
    files = sorted(p.relative_to(tmp_path / "piped") for p in (tmp_path / "piped").rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "shown") for p in (tmp_path / "shown").rglob("*") if p.is_file())
    assert all((tmp_path / "piped" / f).read_bytes() == (tmp_path / "shown" / f).read_bytes() for f in files)
    stdout = on_terminal("render", "bp", "--stdout", cwd=tmp_path, stdout_terminal=True).stdout
    assert stdout == run_mpigen("render", "bp", "--stdout", cwd=tmp_path).stdout
