"""A launcherCommand whose literal -np is not the job's slots: an imported MPIJob keeps its
mpirun line, -np frozen, and lowering `workers` later would start 2 ranks on one worker. An
error at the item of launcherCommand that holds the number, naming both numbers and the fields."""

from __future__ import annotations

from tests.support.blueprints import blueprint_yaml
from tests.support.text import pos

SPEC = """\
image: example.com/train:1
workers: {workers}
launcherCommand:
  - /bin/sh
  - -c
  - mpirun -np 2 --bind-to none python /train.py
"""


def test_a_frozen_np_after_workers_changed_is_an_error_at_its_line(cli_job):
    text = blueprint_yaml("job", spec=SPEC.format(workers=1))
    for command in (("validate",), ("render", "--stdout")):
        done = cli_job(text, *command)
        assert done.returncode == 2 and done.stdout == b"", done.stderr
        line, column = pos(text, "mpirun -np 2")
        [message] = [m for m in done.stderr.splitlines() if ": error: " in m]
        assert message.startswith(f"job.yaml:{line}:{column}: error: spec.launcherCommand[2]: "), message
        assert "asked for 2 processes" in message and "has 1 slots" in message and "spec.workers 1" in message
        assert "Traceback" not in done.stderr


def test_the_same_line_with_the_workers_it_was_written_for_renders(cli_job):
    done = cli_job(blueprint_yaml("job", spec=SPEC.format(workers=2)), "render", "--stdout")
    assert done.returncode == 0, done.stderr
    assert "launcherCommand" not in done.stderr
