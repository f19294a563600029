"""The jobset's key generator runs in the image the blueprint names (ssh.keygenImage), else in
the workers' image. The rendered scripts run by a real shell without ssh, sshd or ssh-keygen
are tests/system/tools/test_ssh_programs.py."""

from __future__ import annotations

from tests.support.blueprints import blueprint_text
from tests.support.rendering import render_text


def rendered(target: str, **spec) -> list[dict]:
    return render_text(blueprint_text("train", **spec), target=target)


def test_the_key_generator_runs_in_the_image_the_blueprint_names():
    small = "registry.example.com/tools/openssh-client:9.6"
    [jobset] = [o for o in rendered("jobset", ssh={"keygenImage": small}) if o["kind"] == "JobSet"]
    jobs = {job["name"]: job["template"]["spec"]["template"]["spec"] for job in jobset["spec"]["replicatedJobs"]}
    [generate] = jobs["keygen"]["initContainers"][:1]
    assert generate["image"] == small
    assert {c["image"] for c in jobs["worker"]["containers"]} == {"example.com/train:1"}
    [default] = [o for o in rendered("jobset") if o["kind"] == "JobSet"]
    keygen = [job for job in default["spec"]["replicatedJobs"] if job["name"] == "keygen"][0]
    assert keygen["template"]["spec"]["template"]["spec"]["initContainers"][0]["image"] == "example.com/train:1"
