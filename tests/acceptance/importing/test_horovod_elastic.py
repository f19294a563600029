"""Horovod elastic (horovodrun --host-discovery-script /etc/mpi/discover_hosts.sh): only the
MPI Operator's controllers write the script (kubeflow/mpi-operator v2beta1 and the
training-operator v1.9.0 mpi_job_controller.go, updateDiscoverHostsInConfigMap), so an imported
elastic job is told at its line that it runs with --target mpijob alone, renders there, and is
refused at its line by every target without the operator."""

from __future__ import annotations

import shutil

import pytest

from tests.support.command_line import run_mpigen
from tests.support.paths import ROOT

ELASTIC = ROOT / "tests" / "support" / "fixtures" / "import_shapes" / "horovod-elastic.yaml"


@pytest.fixture()
def imported(tmp_path):
    shutil.copy(ELASTIC, tmp_path / "elastic.yaml")
    done = run_mpigen("import", "elastic.yaml", "-o", "job.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path, done.stderr.decode()


def test_the_import_says_at_the_discovery_flag_that_only_the_mpijob_target_runs_it(imported):
    _, stderr = imported
    lines = ELASTIC.read_text().splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.strip() == "- --host-discovery-script")
    assert f"elastic.yaml:{line}:" in stderr and "--target mpijob" in stderr


@pytest.mark.parametrize("target", ["static", "jobset", "trainjob"])
def test_a_target_without_the_operator_refuses_it_at_the_scripts_word(imported, target):
    folder, _ = imported
    done = run_mpigen("render", "--stdout", "--target", target, "job.yaml", cwd=folder)
    assert done.returncode == 2 and done.stdout == b""
    assert "discover_hosts.sh" in done.stderr.decode() and f"--target {target} job has none" in done.stderr.decode()


def test_the_mpijob_target_renders_it_with_the_line_as_written(imported):
    folder, _ = imported
    done = run_mpigen("render", "--stdout", "--target", "mpijob", "--mpijob-api", "kubeflow.org/v1", "job.yaml",
                      cwd=folder)
    assert done.returncode == 0, done.stderr
    assert b"--host-discovery-script" in done.stdout and b"/etc/mpi/discover_hosts.sh" in done.stdout
