"""The progress bar of long renders and validations: on standard error, on a terminal only, after
about a second; standard output, the files written and every other byte of standard error are
those of a run in a pipe."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

from mpigen.pipeline import pool
from mpigen.cli import progress
from mpigen.cli.main import main
from tests.support.blueprints import blueprint_text
from tests.support.command_line import MPIGEN, run_mpigen
from tests.support.terminal import drain, on_terminal, terminal


def blueprints(folder: Path, count: int) -> Path:
    folder.mkdir()
    for i in range(count):
        (folder / f"j{i}.yaml").write_text(blueprint_text(f"j{i}"))
    return folder


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def in_process_on_a_terminal(monkeypatch, *args: str) -> bytes:
    """mpigen ARGS in this process with standard error on a terminal; what the terminal got."""
    leader, follower = terminal()
    stream = open(follower, "w", encoding="utf-8", closefd=False)
    got = bytearray()
    reader = threading.Thread(target=drain, args=(leader, got))
    reader.start()
    with monkeypatch.context() as patch:
        patch.setattr(sys, "stderr", stream)
        patch.setenv("TERM", "xterm-256color")  # whatever the TERM of the machine running the tests
        assert main(list(args)) == 0
        stream.flush()
    os.close(follower)
    reader.join(10)
    os.close(leader)
    return bytes(got)


def test_each_chunk_moves_the_bar_and_nothing_else_changes(tmp_path, monkeypatch, capsysbinary):
    """Without the second's delay and with one file per chunk, so that five blueprints draw it."""
    monkeypatch.chdir(tmp_path)
    blueprints(tmp_path / "bp", 5)
    assert main(["render", "bp", "-o", "piped"]) == 0
    piped = capsysbinary.readouterr()
    monkeypatch.setattr(progress, "DELAY", 0)
    monkeypatch.setattr(pool, "MAX_SLICE", 1)
    shown = in_process_on_a_terminal(monkeypatch, "render", "bp", "-o", "shown")
    assert capsysbinary.readouterr().out == piped.out == b""
    assert files(tmp_path / "shown") == files(tmp_path / "piped")
    for done in range(5):
        assert f"rendering: {done * 20:3d}%".encode() in shown and f"| {done}/5 [".encode() in shown
    # The bar's line is cleared before anything else is printed, and then the bytes are a pipe's.
    bar, cleared, rest = shown.rpartition(b"\r" + b" " * 10)
    assert bar.startswith(b"\rrendering:   0%") and b"\n" not in bar
    assert rest.lstrip(b" ") == b"\r" + piped.err.replace(b"piped", b"shown")


def test_stdout_is_the_same_bytes_with_a_bar(tmp_path, monkeypatch, capsysbinary):
    monkeypatch.chdir(tmp_path)
    blueprints(tmp_path / "bp", 3)
    assert main(["validate", "bp"]) == 0 and main(["render", "bp", "--stdout"]) == 0
    piped = capsysbinary.readouterr()
    monkeypatch.setattr(progress, "DELAY", 0)
    monkeypatch.setattr(pool, "MAX_SLICE", 1)
    shown = in_process_on_a_terminal(monkeypatch, "validate", "bp")
    shown += in_process_on_a_terminal(monkeypatch, "render", "bp", "--stdout")
    assert capsysbinary.readouterr().out == piped.out
    assert b"validating:" in shown and b"rendering:" in shown
    assert [part.split(b"\r")[-1] for part in shown.split(b"\n")] == piped.err.split(b"\n")


def test_a_quick_run_on_a_terminal_shows_no_bar(tmp_path):
    blueprints(tmp_path / "bp", 3)
    for args in (("render", "bp", "-o", "out"), ("validate", "bp"), ("check", "bp", "-o", "out")):
        piped = run_mpigen(*args, cwd=tmp_path)
        shown = on_terminal(*args, cwd=tmp_path)
        assert (shown.returncode, shown.stdout, shown.stderr) == (piped.returncode, piped.stdout, piped.stderr)


def test_a_run_in_a_pipe_never_loads_tqdm(tmp_path):
    blueprints(tmp_path / "bp", 2)
    code = ("import sys; from mpigen.cli.main import main; code = main(['render', 'bp', '--stdout']); "
            "print('tqdm' in sys.modules, file=sys.stderr); sys.exit(code)")
    done = run_mpigen(cwd=tmp_path, prefix=(MPIGEN[0], "-c", code))
    assert done.returncode == 0 and done.stderr.endswith(b"False\n"), done.stderr


def test_a_long_render_shows_the_bar_after_a_second(tmp_path):
    """3,000 blueprints in one process: a few seconds, whatever the machine."""
    blueprints(tmp_path / "bp", 3000)
    shown = on_terminal("render", "bp", "--stdout", cwd=tmp_path, env={"MPIGEN_PROCESSES": "1"})
    assert shown.returncode == 0
    assert shown.stdout.count(b"\nkind: Job\n") == 3000
    assert b"rendering:" in shown.stderr and b"/3000 [00:0" in shown.stderr
    assert shown.stderr.endswith(b"\r") and shown.stderr.rstrip(b"\r ").endswith(b"]")  # cleared: no line left
