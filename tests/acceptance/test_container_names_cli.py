"""The containers' names a blueprint gives (podTemplatePatch.<role>.containerName), through the
command line: the trainjob target names its container node and warns; a name Kubernetes or the
blueprint refuses is an error at its line."""

from __future__ import annotations

import pytest
import yaml

from tests.support.blueprints import blueprint_text
from tests.support.text import pos

NAMES = {"launcher": {"containerName": "launcher"}, "worker": {"containerName": "worker"}}


def test_trainjob_names_the_container_node_and_warns(cli, tmp_path):
    text = blueprint_text("job", podTemplatePatch=NAMES)
    (tmp_path / "job.yaml").write_text(text)
    done = cli("render", "job.yaml", "--stdout", "--target", "trainjob")
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "containerName" in line]
    assert len(warnings) == 2 and all("is named node" in line for line in warnings)
    (runtime,) = [o for o in yaml.safe_load_all(done.stdout) if o and o["kind"] == "TrainingRuntime"]
    jobs = runtime["spec"]["template"]["spec"]["replicatedJobs"]
    assert {job["template"]["spec"]["template"]["spec"]["containers"][0]["name"] for job in jobs} == {"node"}


@pytest.mark.parametrize("spec, needle, message", [
    ({"podTemplatePatch": {"worker": {"containerName": "Worker_1"}}}, '"Worker_1"',
     "spec.podTemplatePatch.worker.containerName: string 'Worker_1' is not a DNS-1123 label"),
    ({"mainContainer": "trainer", "podTemplatePatch": {"worker": {"containerName": "worker"}}},
     ('"containerName": "worker"', '"worker"'),
     "spec.podTemplatePatch.worker.containerName: spec.mainContainer names both MPI containers already"),
    ({"datasets": [{"name": "data", "mountPath": "/data", "pvc": "data", "download": {"command": ["true"]}}],
      "podTemplatePatch": {"launcher": {"containerName": "download-data"}}}, '"download-data"',
     "spec.podTemplatePatch.launcher.containerName: 'download-data' is the name of a dataset's download step"),
])
def test_a_name_kubernetes_or_the_blueprint_refuses_is_an_error_at_its_line(cli, tmp_path, spec, needle, message):
    text = blueprint_text("job", **spec)
    (tmp_path / "job.yaml").write_text(text)
    done = cli("validate", "job.yaml")
    line, column = pos(text, *needle, after='"podTemplatePatch"') if isinstance(needle, tuple) else \
        pos(text, needle, after='"podTemplatePatch"')
    assert done.returncode == 2
    assert done.stderr.startswith(f"job.yaml:{line}:{column}: error: {message}"), done.stderr
