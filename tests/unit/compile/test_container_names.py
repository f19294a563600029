"""spec.podTemplatePatch.<role>.containerName: each role's MPI container's name, on every
target (trainjob's is `node` whatever it says, with a warning, as for spec.mainContainer);
a DNS-1123 label, refused beside spec.mainContainer and on a download step's name."""

from __future__ import annotations

import pytest
import yaml

from tests.support.blueprints import blueprint_text
from tests.support.command_line import run_mpigen
from tests.support.rendering import by_kind, render_text
from tests.support.text import pos

NAMES = {"launcher": {"containerName": "launcher"}, "worker": {"containerName": "worker"}}


def _main_containers(target: str) -> dict[str, dict]:
    objects = by_kind(render_text(blueprint_text(podTemplatePatch=NAMES), target=target))
    if target == "static":
        pods = {"launcher": objects["Job"]["spec"]["template"], "worker": objects["StatefulSet"]["spec"]["template"]}
    elif target == "mpijob":
        specs = objects["MPIJob"]["spec"]["mpiReplicaSpecs"]
        pods = {"launcher": specs["Launcher"]["template"], "worker": specs["Worker"]["template"]}
    else:
        jobs = {job["name"]: job["template"]["spec"]["template"] for job in objects["JobSet"]["spec"]["replicatedJobs"]}
        pods = {"launcher": jobs["launcher"], "worker": jobs["worker"]}
    return {role: pod["spec"]["containers"][0] for role, pod in pods.items()}


@pytest.mark.parametrize("target", ["static", "mpijob", "jobset"])
def test_each_roles_container_has_its_name(target):
    containers = _main_containers(target)
    assert (containers["launcher"]["name"], containers["worker"]["name"]) == ("launcher", "worker")
    assert containers["launcher"]["command"][0] == "mpirun"  # still the MPI container


def test_the_static_kubexec_execs_into_the_first_container_as_without_main_container():
    objects = render_text(blueprint_text(podTemplatePatch=NAMES))
    (config,) = [o for o in objects if o["kind"] == "ConfigMap" and o["metadata"]["name"] == "job-config"]
    assert "--container" not in config["data"]["kubexec.sh"]


def test_trainjob_names_the_container_node_and_warns(tmp_path):
    text = blueprint_text("job", podTemplatePatch=NAMES)
    (tmp_path / "job.yaml").write_text(text)
    done = run_mpigen("render", "job.yaml", "--stdout", "--target", "trainjob", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.decode().splitlines() if "containerName" in line]
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
def test_a_name_kubernetes_or_the_blueprint_refuses_is_an_error_at_its_line(tmp_path, spec, needle, message):
    text = blueprint_text("job", **spec)
    (tmp_path / "job.yaml").write_text(text)
    done = run_mpigen("validate", "job.yaml", cwd=tmp_path)
    line, column = pos(text, *needle, after='"podTemplatePatch"') if isinstance(needle, tuple) else \
        pos(text, needle, after='"podTemplatePatch"')
    assert done.returncode == 2
    assert done.stderr.decode().startswith(f"job.yaml:{line}:{column}: error: {message}"), done.stderr
