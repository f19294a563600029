"""The launcher command (contract section 1): `mpirun -np <workers*slots> <framework flags>
<env forwarding> <mpirunArgs> <program>`, always with two-dash long options."""

from __future__ import annotations

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.rendering import by_kind, render_text

HOROVOD = ["--allow-run-as-root", "--bind-to", "none", "--map-by", "slot", "-x", "LD_LIBRARY_PATH", "-x", "PATH",
           "--mca", "pml", "ob1", "--mca", "btl", "^openib"]


def command(**spec) -> list[str]:
    job = by_kind(render_text(blueprint_text(**spec)))["Job"]
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert "args" not in container
    return container["command"]


def test_tensorflow_mnist_line_matches_the_operator_example_in_two_dash_spelling():
    # examples/horovod/tensorflow-mnist.yaml: mpirun -np 2 --allow-run-as-root -bind-to none -map-by slot
    # -x LD_LIBRARY_PATH -x PATH -mca pml ob1 -mca btl ^openib python /examples/tensorflow_mnist.py
    example = ("mpirun -np 2 --allow-run-as-root -bind-to none -map-by slot -x LD_LIBRARY_PATH -x PATH "
               "-mca pml ob1 -mca btl ^openib python /examples/tensorflow_mnist.py").split()
    two_dash = [("-" + a) if a in ("-bind-to", "-map-by", "-mca") else a for a in example]
    assert command(framework="horovod", workers=2, slotsPerWorker=1,
                   command=["python", "/examples/tensorflow_mnist.py"]) == two_dash


def test_np_is_the_total_slot_count():
    assert command(workers=4, gpusPerWorker=8)[:3] == ["mpirun", "-np", "32"]
    assert command(workers=3, slotsPerWorker=5)[:3] == ["mpirun", "-np", "15"]
    assert command(workers=3)[:3] == ["mpirun", "-np", "3"]


def test_order_flags_env_mpirun_args_program():
    line = command(framework="horovod", workers=1, env={"NCCL_DEBUG": "INFO", "OMP_NUM_THREADS": "4"},
                   mpirunArgs=["--mca", "btl_tcp_if_exclude", "lo"], command=["python", "t.py"])
    assert line == ["mpirun", "-np", "1", *HOROVOD, "-x", "NCCL_DEBUG", "-x", "OMP_NUM_THREADS",
                    "--mca", "btl_tcp_if_exclude", "lo", "python", "t.py"]


def test_env_already_forwarded_by_the_framework_is_not_repeated():
    line = command(framework="horovod", env={"PATH": "/opt/bin:/usr/bin"})
    assert line.count("PATH") == 1


@pytest.mark.parametrize("framework", ["horovod", "tensorflow", "mxnet", "pytorch", "deepspeed", "custom"])
def test_no_single_dash_long_options(framework):
    for arg in command(framework=framework):
        assert arg not in ("-bind-to", "-map-by", "-mca", "-allow-run-as-root")


def test_custom_framework_adds_only_what_open_mpi_needs_to_run_as_root():
    """prterun refuses root without --allow-run-as-root (found by the property test through the
    pretend cluster: "prterun has detected an attempt to run as root"); no other flag."""
    assert command(framework="custom", env={"A": "1"}) == ["mpirun", "-np", "2", "--allow-run-as-root", "-x", "A",
                                                           "python", "train.py"]


@pytest.mark.parametrize("implementation", ["IntelMPI", "MPICH"])
def test_hydra_passes_the_whole_environment_without_a_flag(implementation):
    """A -genvlist would narrow Hydra's default (all of the launcher's environment) to its list."""
    line = command(mpiImplementation=implementation, framework="horovod", env={"A": "1", "B": "2"})
    assert line == ["mpirun", "-np", "2", "python", "train.py"]


def test_launcher_command_replaces_the_whole_line():
    assert command(launcherCommand=["/bin/sh", "-c", "echo hi"], command=None) == ["/bin/sh", "-c", "echo hi"]
