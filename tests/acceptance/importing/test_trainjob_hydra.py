"""`mpigen import` of a TrainJob whose launch line is Hydra's (MPICH, Intel MPI) on a runtime
the cluster has: the hostfile variable mpigen writes there (mpigen/render/trainjob/hydra.py)
names the implementation; without it, the importer guesses and says so."""

from __future__ import annotations

import pytest
import yaml

from tests.support.trainjob_import import NAMED, rendered, round_trip
from tests.support.text import pos


def hydra_blueprint(implementation: str) -> str:
    return (NAMED.replace("framework: horovod", f"mpiImplementation: {implementation}")
            .replace("  gpusPerWorker: 2\n", "").replace("  env: {NCCL_DEBUG: INFO}\n", "  env: {I_MPI_DEBUG: '5'}\n"))


@pytest.mark.parametrize("implementation", ["MPICH", "IntelMPI"])
def test_a_hydra_line_on_a_runtime_of_the_cluster_round_trips(cli, tmp_path, implementation):
    """Its hostfile variable (HYDRA_HOST_FILE, I_MPI_HYDRA_HOST_FILE) tells MPICH from Intel MPI."""
    first, again, reported = round_trip(cli, tmp_path, hydra_blueprint(implementation))
    assert again == first and "a Hydra launch line" not in reported
    assert yaml.safe_load((tmp_path / "imported.yaml").read_text())["spec"]["mpiImplementation"] == implementation


def test_a_hydra_line_without_its_hostfile_variable_is_reported_with_the_implementation_chosen(cli, tmp_path):
    """A TrainJob that says neither (as mpigen wrote them before it converted the hostfile)."""
    (tmp_path / "bp.yaml").write_text(hydra_blueprint("MPICH"))
    trainjob = yaml.safe_load(rendered(cli, "bp.yaml"))
    trainer = trainjob["spec"]["trainer"]
    trainer["command"] = trainer["command"][4:]  # without `/bin/sh -c <conversion> mpigen`
    trainer["env"] = [e for e in trainer["env"] if e["name"] != "HYDRA_HOST_FILE"]
    (tmp_path / "trainjob.yaml").write_text(text := yaml.safe_dump(trainjob, sort_keys=False))
    done = cli("import", "trainjob.yaml")
    line, column = pos(text, "  command:", "command")
    assert f"trainjob.yaml:{line}:{column}: warning: TrainJob spec.trainer.command: a Hydra launch line" in done.stderr
    assert "the imported blueprint says mpiImplementation: IntelMPI (by its I_MPI_ variables)" in done.stderr
    assert done.returncode == 0 and yaml.safe_load(done.stdout)["spec"]["mpiImplementation"] == "IntelMPI"
