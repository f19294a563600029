"""A FIFO, socket or device, named or met in a search, as an overlay or as mpigen.yaml, is an
error, without being opened (the subprocess timeout guards the hang); so are broken and
looping symbolic links on the command line (issue 15, defects 7 and 8).
"""

from __future__ import annotations

import os
import socket
import subprocess

import pytest

from tests.support.command_line import MPIGEN, run_mpigen
from tests.support.input_repository import COMMANDS, SEARCHED, need, refused, snapshot


# --- FIFOs, sockets and devices: refused without being opened --------------------------------

FIFO = "is a FIFO (named pipe), not a regular file or folder; use a regular file"


@pytest.fixture
def fifo_repo(shared_repository):
    os.mkfifo(shared_repository / "pipe.yaml")
    return shared_repository


@pytest.mark.parametrize("args", [("render", "pipe.yaml", "--stdout"), ("render", "pipe.yaml", "-o", "elsewhere"),
                                  ("validate", "pipe.yaml"), ("import", "pipe.yaml", "--stdout")],
                         ids=["render-stdout", "render-o", "validate", "import"])
def test_a_fifo_named_on_the_command_line_is_an_error_not_a_hang(fifo_repo, args):
    before = snapshot(fifo_repo)
    done = run_mpigen(*args, cwd=fifo_repo, timeout=60)  # the timeout is the hang guard
    assert refused(done, " ".join(args)) == [f"error: pipe.yaml: {FIFO} or leave it off the command line"]
    assert snapshot(fifo_repo) == before


def test_a_fifo_in_a_searched_folder_is_an_error_not_a_hang_nor_a_skip(shared_repository):
    os.mkfifo(shared_repository / "blueprints/team/deep/pipe.yaml")
    before = snapshot(shared_repository)
    for name, args in COMMANDS.items():
        done = run_mpigen(*args, cwd=shared_repository, timeout=60)
        assert refused(done, name) == [f"error: blueprints/team/deep/pipe.yaml: {FIFO} {SEARCHED}"], name
        assert snapshot(shared_repository) == before


def test_a_fifo_as_an_overlay_or_in_an_overlay_folder_is_an_error(shared_repository):
    os.mkfifo(shared_repository / "overlays/odd.yaml")
    done = run_mpigen("render", "blueprints", "--overlay", "overlays/odd.yaml", "--stdout", cwd=shared_repository)
    assert refused(done, "--overlay FIFO") == [f"error: overlays/odd.yaml: {FIFO} or stop using this overlay"]
    os.mkfifo(shared_repository / "overlays/pool/extra.yaml")
    before = snapshot(shared_repository)
    for name, args in COMMANDS.items():
        done = run_mpigen(*args, cwd=shared_repository, timeout=60)
        assert refused(done, name) == [f"error: overlays/pool/extra.yaml: {FIFO} or move it out of the overlay "
                                       "folder"], name
        assert snapshot(shared_repository) == before


def test_mpigen_yaml_as_a_fifo_is_an_error_not_ignored(shared_repository):
    (shared_repository / "mpigen.yaml").unlink()
    os.mkfifo(shared_repository / "mpigen.yaml")
    for name, args in COMMANDS.items():
        done = run_mpigen(*args, cwd=shared_repository, timeout=60)
        assert refused(done, name) == [f"error: mpigen.yaml: {FIFO} or run mpigen in another folder"], name


def test_a_socket_is_an_error(shared_repository, monkeypatch):
    monkeypatch.chdir(shared_repository / "blueprints")  # a relative name: socket paths are limited to 108 bytes
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind("sock.yaml")
        done = run_mpigen("validate", cwd=shared_repository)
        assert refused(done, "socket") == ["error: blueprints/sock.yaml: is a socket, not a regular file or folder; "
                                           f"use a regular file {SEARCHED}"]
        done = run_mpigen("import", "blueprints/sock.yaml", "--stdout", cwd=shared_repository)
        assert refused(done, "socket")[0].startswith("error: blueprints/sock.yaml: is a socket")
    finally:
        server.close()


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/urandom"])
@pytest.mark.parametrize("command", [("render", "--stdout"), ("validate",), ("import", "--stdout")],
                         ids=["render", "validate", "import"])
def test_a_device_is_an_error(tmp_path, device, command):
    need(None if os.path.exists(device) else f"{device} does not exist here")
    done = run_mpigen(command[0], device, *command[1:], cwd=tmp_path, timeout=60)
    assert refused(done, device) == [f"error: {device}: is a character device, not a regular file or folder; "
                                     "use a regular file or leave it off the command line"]


def test_dev_stdin_that_is_a_pipe_is_an_error_not_a_hang(tmp_path):
    """/dev/stdin is whatever standard input is: here a pipe nobody ever writes to."""
    with subprocess.Popen([*MPIGEN, "render", "/dev/stdin", "--stdout"], cwd=tmp_path,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        try:
            out, err = proc.communicate(timeout=60)  # stdin stays open until then: a read would wait
        finally:
            proc.kill()
    assert proc.returncode == 2 and out == b""
    assert err.decode().splitlines() == ["error: /dev/stdin: is a FIFO (named pipe), not a regular file or folder; "
                                         "use a regular file or leave it off the command line"]


# --- links on the command line ------------------------------------------------------------

LINK = "a symbolic link that leads nowhere (or in a loop); remove it or fix its target"
LINKS = {"self": {"self.yaml": "self.yaml"}, "dangling": {"dangling.yaml": "missing.yaml"},
         "loop": {"loop.yaml": "loop2.yaml", "loop2.yaml": "loop.yaml"}}


@pytest.mark.parametrize("kind", LINKS)
@pytest.mark.parametrize("args", [("render", "{}", "--stdout"), ("render", "{}", "-o", "elsewhere"),
                                  ("validate", "{}"), ("import", "{}", "--stdout"),
                                  ("render", "blueprints", "--overlay", "./{}", "--stdout")],
                         ids=["render-stdout", "render-o", "validate", "import", "overlay"])
def test_a_broken_or_looping_link_on_the_command_line_is_an_error(shared_repository, kind, args):
    for name, target in LINKS[kind].items():
        os.symlink(target, shared_repository / name)
    first = next(iter(LINKS[kind]))
    before = snapshot(shared_repository)
    done = run_mpigen(*(a.format(first) for a in args), cwd=shared_repository, timeout=60)
    assert refused(done, f"{kind} {args}") == [f"error: {first}: {LINK}"]
    assert snapshot(shared_repository) == before


def test_mpigen_yaml_as_a_broken_link_is_an_error_not_ignored(shared_repository):
    (shared_repository / "mpigen.yaml").unlink()
    os.symlink("nowhere.yaml", shared_repository / "mpigen.yaml")
    for name, args in COMMANDS.items():
        done = run_mpigen(*args, cwd=shared_repository, timeout=60)
        assert refused(done, name) == [f"error: mpigen.yaml: {LINK}"], name
