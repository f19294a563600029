"""`mpigen import` of the trainjob target's output for Kubeflow Trainer v2.4 (golden/trainjob-v2.4,
overlays/trainer-v2.4): the same blueprints as from the v2.3 output of the same examples
(golden/trainjob). The launcher variables differ only by what mpigen itself writes (the PRRTE ssh
agent, in place of the variables the v2.4 plugin sets), which no blueprint says. The import's
proof renders at the default version, v2.3, and says so in warnings: not asserted here."""

from __future__ import annotations

import yaml

from tests.support.paths import ROOT


def imported(cli, name: str) -> list[dict]:
    done = cli("import", str(ROOT / "golden" / name), "--stdout")
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


def test_the_v2_4_output_imports_to_the_blueprints_of_the_v2_3_output(cli):
    v23, v24 = imported(cli, "trainjob.yaml"), imported(cli, "trainjob-v2.4.yaml")
    assert len(v24) == 11 and v24 == v23
