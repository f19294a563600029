"""Rules across a blueprint's fields (mpigen.validate), called through validate_document: an
image without a tag or digest moves (Kubernetes pulls `:latest`, and a reference with no tag
has the tag latest: the distribution/reference grammar, where `host:port/name` is a registry
port, not a tag); names a later stage writes are refused where the blueprint writes them; the
launcher's command is a program or the whole mpirun line; every problem comes in one call."""

from __future__ import annotations

import pytest

from mpigen.load.parser import parse
from mpigen.validate.document import validate_document
from mpigen.validate.reserved import Reserved
from tests.support.blueprints import blueprint_text
from tests.support.text import pos

DIGEST = "sha256:" + "a" * 64


def validated(text: str, reserved: Reserved = Reserved()):
    (doc,) = parse(text, "job.yaml")
    return validate_document(doc, reserved)


@pytest.mark.parametrize("image, moves", [
    ("example.com/train", True),
    ("train", True),
    ("localhost:5000/train", True),  # 5000 is the registry's port
    ("example.com/train:1", False),
    ("localhost:5000/train:latest", False),  # pinned by name, if not by content: as written
    (f"example.com/train@{DIGEST}", False),
    (f"example.com/train:1@{DIGEST}", False),
])
def test_an_image_without_tag_or_digest_is_a_warning_at_its_value(image, moves):
    text = blueprint_text("job", image=image)
    blueprint, diagnostics = validated(text)
    assert blueprint is not None  # a warning, not an error
    found = [d for d in diagnostics if "has no tag or digest" in d.message]
    assert len(found) == (1 if moves else 0)
    if moves:
        assert found[0].severity == "warning"
        assert (found[0].mark.line, found[0].mark.column) == pos(text, f'"{image}"')
        assert found[0].message.startswith(f"spec.image: {image!r} has no tag or digest")


RESERVED = Reserved(volumes=("mpi-job-config",), mounts=("/etc/mpi",), env=("OMPI_MCA_orte_default_hostfile",),
                    labels=("training.kubeflow.org/job-role",))


@pytest.mark.parametrize("spec, labels, message", [
    ({"env": {"OMPI_MCA_orte_default_hostfile": "/x"}}, None,
     "spec.env: OMPI_MCA_orte_default_hostfile is set by the MPI Operator on the launcher and would be overridden"),
    ({}, {"training.kubeflow.org/job-role": "x"}, "metadata.labels: key 'training.kubeflow.org/job-role' is written"),
    ({}, {"mpigen.dev/job": "x"}, "metadata.labels: key 'mpigen.dev/job' is written"),
    ({}, {"app.kubernetes.io/managed-by": "me"}, "metadata.labels: key 'app.kubernetes.io/managed-by' is written"),
])
def test_a_name_a_later_stage_writes_is_refused(spec, labels, message):
    blueprint, diagnostics = validated(blueprint_text("job", labels=labels, **spec), RESERVED)
    assert blueprint is None
    assert [d.message for d in diagnostics if d.severity == "error" and d.message.startswith(message)], diagnostics


def test_names_nobody_reserves_pass():
    blueprint, diagnostics = validated(blueprint_text("job", labels={"team": "vision"}, env={"NCCL_DEBUG": "INFO"}),
                                       RESERVED)
    assert blueprint is not None and [d for d in diagnostics if d.severity == "error"] == []


@pytest.mark.parametrize("spec, errors", [
    ({}, []),
    ({"command": None, "launcherCommand": ["mpirun", "python", "train.py"]}, []),
    ({"command": None}, ["spec: required key 'command' is missing"]),
    ({"launcherCommand": ["mpirun", "python", "train.py"]}, ["spec.command is not used when spec.launcherCommand"]),
    ({"launcherCommand": ["mpirun", "python"], "mpirunArgs": ["-x", "A"]},
     ["spec.command is not used", "spec.mpirunArgs is not used"]),
], ids=["command", "launcherCommand", "neither", "both", "both-and-mpirunArgs"])
def test_the_launcher_runs_a_program_or_a_whole_mpirun_line(spec, errors):
    _, diagnostics = validated(blueprint_text("job", **spec))
    found = [d.message for d in diagnostics if d.severity == "error"]
    assert len(found) == len(errors) and all(m.startswith(e) for m, e in zip(found, errors)), found


def test_every_problem_of_a_document_comes_in_one_call():
    text = blueprint_text("Job", workers=0, image="example.com/train", env={"OMPI_MCA_orte_default_hostfile": "x"})
    blueprint, diagnostics = validated(text, RESERVED)
    assert blueprint is None
    assert sorted({d.message.split(":")[0] for d in diagnostics}) == [
        "metadata.name", "spec.env", "spec.image", "spec.workers"]
