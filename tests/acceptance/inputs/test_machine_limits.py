"""A machine that cannot take the output is an error of the machine: a standard output that
is closed or full is an `error:` line and exit 2, never exit 3, a reader that stops reading
ends the output quietly, and running out of memory is the machine's limit (issue 15,
defect 8).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.command_line import run_mpigen
from tests.support.input_repository import need, refused
from tests.support.text import write


# --- standard output that cannot take the output ---------------------------------------------

def _drift(shared_repository: Path) -> None:
    """A change that `check` reports and `diff` shows."""
    write(shared_repository / "blueprints/one.yaml", blueprint_text("one", workers=3))


# A shell that starts mpigen with its standard output closed (as `>&-`).
CLOSED_STDOUT = ("sh", "-c", 'exec "$0" "$@" >&-')
# Every command that writes standard output, with what it writes there.
WRITERS = {"render": ("render", "--stdout"), "schema": ("schema",), "check": ("check",),
           "diff": ("diff", "out/dev", "out/prod"), "import": ("import", "import.yaml", "--stdout")}
MPIJOB = """\
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: imported}
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers: [{name: mpi-launcher, image: example.com/train:1, command: [mpirun, python, train.py]}]
    Worker:
      replicas: 2
      template:
        spec:
          containers: [{name: mpi-worker, image: example.com/train:1}]
"""


@pytest.fixture
def writers_repo(shared_repository):
    _drift(shared_repository)
    write(shared_repository / "import.yaml", MPIJOB)
    return shared_repository


@pytest.mark.parametrize("command", WRITERS)
def test_a_closed_standard_output_is_an_error_of_the_machine(writers_repo, command):
    done = run_mpigen(*WRITERS[command], cwd=writers_repo, prefix=CLOSED_STDOUT)
    assert refused(done, command) == ["error: cannot write to standard output: Bad file descriptor; it is closed: "
                                      "run the command with an open standard output"]


@pytest.mark.parametrize("command", WRITERS)
def test_a_full_standard_output_is_an_error_of_the_machine(writers_repo, command):
    need(None if os.path.exists("/dev/full") else "/dev/full does not exist here")
    with open("/dev/full", "wb") as full:
        done = run_mpigen(*WRITERS[command], cwd=writers_repo, stdout=full, stderr=subprocess.PIPE)
    assert refused(done, command) == ["error: cannot write to standard output: No space left on device; free some "
                                      "space, or send the output elsewhere"]


# A reader that stops reading is not a failure: the command's exit code stays its own.
OWN_EXIT = {"render": 0, "schema": 0, "check": 1, "diff": 1, "import": 0}


@pytest.mark.parametrize("command", WRITERS)
def test_a_reader_that_stops_reading_ends_the_output_quietly(writers_repo, command):
    read, write_end = os.pipe()
    os.close(read)  # before mpigen starts: its first write meets a pipe nobody reads (EPIPE)
    try:
        done = run_mpigen(*WRITERS[command], cwd=writers_repo, stdout=write_end, stderr=subprocess.PIPE)
    finally:
        os.close(write_end)
    stderr = done.stderr.decode()
    assert done.returncode == OWN_EXIT[command], stderr
    assert "error" not in stderr and "Traceback" not in stderr and "Exception ignored" not in stderr, stderr


def test_nothing_to_write_is_no_error_even_with_a_closed_standard_output(shared_repository):
    """As `cat /dev/null >&-`: an up-to-date check writes nothing, so a closed standard
    output does not matter."""
    done = run_mpigen("check", cwd=shared_repository, prefix=CLOSED_STDOUT)
    assert done.returncode == 0, done.stderr.decode()


def test_running_out_of_memory_is_the_machine_s_limit_not_a_bug(tmp_path):
    """Under a 130 MiB address-space limit (ulimit -v) a blueprint with 100,000 env entries
    cannot be rendered: one error line, exit 2, no traceback, nothing on stdout."""
    import json
    import resource

    env = {f"V{i}": "x" for i in range(100_000)}
    text = blueprint_text("big", env=env)
    assert json.loads(text)["spec"]["env"] == env
    write(tmp_path / "big.yaml", text)

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (130 << 20, 130 << 20))

    done = run_mpigen("render", "big.yaml", "--stdout", cwd=tmp_path, preexec_fn=limit, timeout=120)
    assert (done.returncode, done.stdout) == (2, b""), done.stderr
    assert done.stderr.decode() == ("error: mpigen ran out of memory; give it more (ulimit -v, the container's "
                                    "memory limit) or render fewer blueprints at once\n")
