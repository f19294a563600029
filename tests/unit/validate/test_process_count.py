"""The process count a launcherCommand gives mpirun (validate.process_count), read from each
spelling the launchers accept; then the check against the job's slots, through
validate_document. That the real Open MPI mpirun and MPICH's Hydra mpiexec read each spelling
so is tests/system/tools/test_process_count_launchers.py."""

from __future__ import annotations

import pytest

from mpigen.load.parser import parse
from mpigen.validate.document import validate_document
from mpigen.validate.process_count import asked_counts
from mpigen.validate.reserved import Reserved
from tests.support.blueprints import blueprint_text


@pytest.mark.parametrize("command, hydra, expected", [
    (["mpirun", "--bind-to", "none", "-np", "8", "python", "train.py", "-n", "3"], False, [(4, 8)]),
    (["mpirun", "--mca", "pml", "ob1", "-x", "NCCL_DEBUG", "-np", "8", "python", "train.py"], False, [(7, 8)]),
    (["/bin/sh", "-c", "cd /work && exec mpirun -np 8 python train.py -n 3"], False, [(2, 8)]),
    (["bash", "-lc", "mpirun -np 4 a; mpirun -np 16 b"], False, [(2, 4), (2, 16)]),
    (["env", "A=1", "/opt/mpi/bin/mpiexec", "-n", "2", "a"], True, [(4, 2)]),
    (["mpirun", "-np", "$NP", "python", "train.py"], False, []),
    (["/bin/sh", "-c", "mpirun -np ${NP} python train.py"], False, []),
    (["mpirun", "-np", "2", "a", ":", "-np", "2", "b"], False, []),  # MPMD: the counts add up
    (["python", "train.py", "-n", "3"], False, []),
    (["mpirun", "python", "train.py"], False, []),
    (["/bin/sh", "-c", "mpirun -np 'unbalanced"], False, []),
])
def test_the_counts_of_a_command(command, hydra, expected):
    assert asked_counts(command, hydra) == expected


def problems(**spec) -> list[tuple[str, str]]:
    (doc,) = parse(blueprint_text("job", command=None, **spec), "job.yaml")
    return [(d.severity, d.message) for d in validate_document(doc, Reserved())[1]]


@pytest.mark.parametrize("spec, count, slots", [
    ({"workers": 1, "launcherCommand": ["mpirun", "-np", "2", "python", "train.py"]}, 2, 1),
    ({"workers": 2, "slotsPerWorker": 4, "launcherCommand": ["/bin/sh", "-c", "mpirun -np 4 python t.py"]}, 4, 8),
    ({"workers": 2, "gpusPerWorker": 8, "launcherCommand": ["mpirun", "-np", "8", "python", "t.py"]}, 8, 16),
    ({"workers": 2, "slotsPerWorker": 2, "launcher": {"runAsWorker": True},
      "launcherCommand": ["mpirun", "-np", "4", "python", "t.py"]}, 4, 6),
    ({"workers": 2, "mpiImplementation": "MPICH", "launcherCommand": ["mpiexec", "-n", "3", "a"]}, 3, 2),
])
def test_a_count_other_than_the_jobs_slots_is_an_error_naming_both(spec, count, slots):
    found = [(s, m) for s, m in problems(**spec) if m.startswith("spec.launcherCommand")]
    assert [s for s, _ in found] == ["error"], found
    message = found[0][1]
    assert f"asked for {count} processes" in message and f"has {slots} slots" in message
    assert f"spec.workers {spec['workers']}" in message


@pytest.mark.parametrize("spec", [
    {"workers": 2, "launcherCommand": ["mpirun", "-np", "2", "python", "train.py"]},
    {"workers": 2, "slotsPerWorker": 4, "launcherCommand": ["/bin/sh", "-c", "mpirun -np 8 python t.py"]},
    {"workers": 2, "slotsPerWorker": 2, "launcher": {"runAsWorker": True},
     "launcherCommand": ["mpirun", "-np", "6", "python", "t.py"]},
    {"workers": 1, "launcherCommand": ["mpirun", "-np", "$NP", "python", "train.py"]},
])
def test_the_jobs_slots_or_a_variable_say_nothing(spec):
    assert [m for _, m in problems(**spec) if m.startswith("spec.launcherCommand")] == []
