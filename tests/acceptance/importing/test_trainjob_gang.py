"""`mpigen import` of a TrainJob whose runtime mpigen wrote with a gang: every pod of it names
the gang's scheduler (mpigen/render/trainjob/runtime.py), which the import reads back as
scheduling.gang.schedulerName, and takes only when it is text."""

from __future__ import annotations

import copy

import yaml

from tests.support.paths import BLUEPRINTS
from tests.support.trainjob_import import rendered


def test_a_gang_runtime_with_a_scheduler_name_of_another_type_is_no_crash(cli, tmp_path):
    (tmp_path / "bp.yaml").write_text((BLUEPRINTS / "volcano-gang.yaml").read_text())
    objects = [o for o in yaml.safe_load_all(rendered(cli, "bp.yaml")) if o]
    [runtime] = [o for o in objects if o["kind"] == "TrainingRuntime"]
    for value, expected in ((["volcano"], None), ({"name": "x"}, None), ("gangs", "gangs")):
        for job in runtime["spec"]["template"]["spec"]["replicatedJobs"]:
            job["template"]["spec"]["template"]["spec"]["schedulerName"] = copy.deepcopy(value)  # no YAML alias
        (tmp_path / "trainjob.yaml").write_text(yaml.safe_dump_all(objects, sort_keys=False))
        done = cli("import", "trainjob.yaml")
        assert done.returncode == 0, done.stderr
        gang = yaml.safe_load(done.stdout)["spec"]["scheduling"]["gang"]
        assert gang.get("schedulerName") == expected and gang["scheduler"] == "volcano"
