"""The launch line an import reads (mpigen.decompile.launch_line): command and mpirunArgs
wherever mpigen writes the same line (Open MPI's options in any order: its mpirun reads
them so), else launcherCommand and, for a literal process count, why, since the count no
longer follows spec.workers."""

from __future__ import annotations

import pytest

from mpigen.decompile.launch_line import launch_fields

SPEC = {"image": "img:1", "workers": 2, "slotsPerWorker": 1}
HOROVOD = ["--allow-run-as-root", "--bind-to", "none", "--map-by", "slot", "-x", "LD_LIBRARY_PATH", "-x", "PATH",
           "--mca", "pml", "ob1", "--mca", "btl", "^openib"]


def test_mpigens_own_line_is_command_and_mpirun_args():
    argv = ["mpirun", "-np", "2", *HOROVOD, "-x", "NCCL_DEBUG=INFO", "python", "train.py"]
    assert launch_fields(argv, "OpenMPI", SPEC) == (
        {"framework": "horovod", "mpirunArgs": ["-x", "NCCL_DEBUG=INFO"], "command": ["python", "train.py"]}, None)


@pytest.mark.parametrize("argv", [
    ["mpirun", "--allow-run-as-root", "-np", "2", *HOROVOD[1:], "python", "train.py"],
    ["mpirun", "-x", "NCCL_DEBUG=INFO", "-np", "2", *reversed(HOROVOD[:1]), *HOROVOD[1:], "python", "train.py"],
    ["mpirun", "--allow-run-as-root", "-np", "2", "-bind-to", "none", "-map-by", "slot", "-x", "LD_LIBRARY_PATH",
     "-x", "PATH", "-mca", "pml", "ob1", "-mca", "btl", "^openib", "python", "train.py"],
])
def test_open_mpi_options_in_another_order_are_the_same_line(argv):
    fields, said = launch_fields(argv, "OpenMPI", SPEC)
    assert said is None and fields["framework"] == "horovod" and fields["command"] == ["python", "train.py"]
    assert "launcherCommand" not in fields


def test_a_setting_given_twice_in_another_order_keeps_the_line():
    """The last --mca btl holds: mpigen's order would change which one."""
    argv = ["mpirun", "--mca", "btl", "tcp,self", "-np", "2", "--allow-run-as-root", "--mca", "btl", "self",
            "python", "train.py"]
    fields, said = launch_fields(argv, "OpenMPI", SPEC)
    assert fields == {"launcherCommand": argv}
    assert said is not None and said[0] == 5 and "stays 2 when spec.workers changes" in said[1]


@pytest.mark.parametrize("argv, index, words", [
    (["mpirun", "-n", "2", "/home/mpiuser/pi"], 2,
     "whose nearest to this line is 'mpirun -np 2 --allow-run-as-root /home/mpiuser/pi'"),
    (["sh", "-c", "mpirun -np 2 --allow-run-as-root python train.py && echo done"], 2,
     "and this line starts with 'sh', not with mpirun"),
])
def test_a_frozen_process_count_is_said_with_why(argv, index, words):
    fields, said = launch_fields(argv, "OpenMPI", SPEC)
    assert fields == {"launcherCommand": argv}
    assert said == (index, "kept as spec.launcherCommand, so this process count stays 2 when spec.workers changes: "
                           "mpigen writes `mpirun -np <workers x slots> <framework flags> <mpirunArgs> <command>` "
                           f"(its options in any order), {words}")


@pytest.mark.parametrize("argv", [
    ["mpirun", "-np", "$NP", "python", "train.py"],  # the user's variable: nothing frozen
    ["sh", "-c", "python prepare.py"],               # no mpirun at all
])
def test_a_line_without_a_literal_count_is_kept_without_a_word(argv):
    assert launch_fields(argv, "OpenMPI", SPEC) == ({"launcherCommand": argv}, None)


def test_hydra_options_keep_their_order():
    """Hydra's lines are mpigen's own order or launcherCommand: only Open MPI's are reordered."""
    mpich = {**SPEC, "mpiImplementation": "MPICH"}
    argv = ["mpirun", "-ppn", "1", "-np", "2", "/home/mpiuser/pi"]
    fields, said = launch_fields(argv, "MPICH", mpich)
    assert fields == {"launcherCommand": argv} and said is not None and said[0] == 4
    assert launch_fields(["mpirun", "-np", "2", "-ppn", "1", "/home/mpiuser/pi"], "MPICH", mpich) == (
        {"mpirunArgs": ["-ppn", "1"], "command": ["/home/mpiuser/pi"]}, None)
