"""`mpigen import` of the trainjob target's output for Kubeflow Trainer v2.4 (golden/trainjob-v2.4,
overlays/trainer-v2.4): the same blueprints as from the v2.3 output of the same examples
(golden/trainjob). The launcher variables differ only by what mpigen itself writes (the PRRTE ssh
agent, in place of the variables the v2.4 plugin sets), which no blueprint says: the import's
proof renders at the version the runtime was written for, and one warning per runtime, at that
agent, says that the environment must say the version."""

from __future__ import annotations

import yaml

from tests.support.paths import ROOT


def imported(cli, name: str) -> tuple[list[dict], list[str]]:
    done = cli("import", str(ROOT / "golden" / name), "--stdout")
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc], done.lines("warning")


def test_the_v2_4_output_imports_to_the_blueprints_of_the_v2_3_output(cli):
    (v23, v23_warnings), (v24, v24_warnings) = imported(cli, "trainjob.yaml"), imported(cli, "trainjob-v2.4.yaml")
    assert len(v24) == len(list((ROOT / "blueprints").glob("*.yaml"))) == 12 and v24 == v23
    assert v23_warnings == []
    # one per runtime whose launcher runs Open MPI (the agent is Open MPI 5's), at that agent
    open_mpi = [b for b in v24 if b["spec"].get("mpiImplementation", "OpenMPI") == "OpenMPI"]
    assert len(v24_warnings) == len(open_mpi) > 0
    assert all("PRTE_MCA_plm_ssh_agent" not in w and "env[" in w and "written for Kubeflow Trainer v2.4" in w
               and "versions.trainer: v2.4" in w for w in v24_warnings), v24_warnings
