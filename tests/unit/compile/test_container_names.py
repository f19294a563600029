"""spec.podTemplatePatch.<role>.containerName: each role's MPI container's name, on every
target (trainjob's is `node` whatever it says, with a warning, as for spec.mainContainer);
a DNS-1123 label, refused beside spec.mainContainer and on a download step's name."""

from __future__ import annotations

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.rendering import by_kind, render_text

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
