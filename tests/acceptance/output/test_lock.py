"""The writers' lock of an output folder is an flock on DIR's parent, which any user who may
read that folder can take (flock(2) asks for nothing more than an open descriptor). A render
that finds it held by someone else says whose it is before it waits, instead of hanging
without a word, and goes on when it is let go (issue 28: what another user does is named,
never silently suffered). The holder here is util-linux's flock(1), run as user nobody."""

from __future__ import annotations

import pwd
import select
import subprocess
import time

from tests.support.any_user import AS_NOBODY
from tests.support.command_line import MPIGEN
from tests.support.output_machine import blueprints, snapshot

DEADLINE = 120  # seconds: a bound on a hang, not a measurement


def _line_from(stream, deadline: float) -> bytes:
    ready, _, _ = select.select([stream], [], [], max(deadline - time.monotonic(), 0))
    assert ready, "no line came before the deadline"
    return stream.readline()


def test_a_render_names_the_other_users_process_holding_the_lock_then_waits_for_it(shared, tmp_path):
    blueprints(tmp_path / "bp", ["one", "two"])
    holder = subprocess.Popen([*AS_NOBODY, "flock", str(shared), "-c", "echo held; read line"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    render = None
    try:
        deadline = time.monotonic() + DEADLINE
        assert _line_from(holder.stdout, deadline) == b"held\n"
        render = subprocess.Popen([*MPIGEN, "render", "bp", "-o", str(shared / "out")], cwd=tmp_path,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        said = _line_from(render.stderr, deadline).decode()
        assert not (shared / "out").exists()  # waiting, nothing written
        nobody = pwd.getpwuid(65534).pw_name
        # setpriv becomes flock(1) (one pid), which takes the lock and runs the shell as its child
        assert said.startswith(f"warning: {shared}: waiting for process {holder.pid} of user {nobody}, which holds "
                               f"the writers' lock of {shared / 'out'} (an flock on this folder); the render goes "
                               "on when it lets go"), said
        holder.communicate(b"done\n", timeout=DEADLINE)
        out, err = render.communicate(timeout=DEADLINE)
    finally:
        for process in (holder, render):
            if process is not None and process.poll() is None:
                process.kill()
    assert render.returncode == 0, err
    assert b"waiting" not in err  # said once
    assert {path for path in snapshot(shared / "out") if path.endswith("-launcher.yaml")} >= {
        "team/job-one-launcher.yaml", "team/job-two-launcher.yaml"}


def test_a_free_lock_is_taken_without_a_word(shared, tmp_path):
    blueprints(tmp_path / "bp", ["one"])
    done = subprocess.run([*MPIGEN, "render", "bp", "-o", str(shared / "out")], cwd=tmp_path, capture_output=True,
                          timeout=DEADLINE)
    assert done.returncode == 0 and b"warning" not in done.stderr, done.stderr
