"""A blueprint's names against Kubernetes' rules (k8s.io/apimachinery pkg/util/validation, as
tests/support/kubernetes_names.py copies them): metadata.name a DNS-1035 label (it names the
workers' Service), the namespace a DNS-1123 label, the last worker pod's name at most 63
characters (a pod's hostname is its name, a DNS-1123 label). The worker StatefulSet's name is
the static target's own check (tests/acceptance/invalid_input/test_statefulset_name.py).
Called through validate_document."""

from __future__ import annotations

import pytest

from mpigen.load.parser import parse
from mpigen.validate.document import validate_document
from mpigen.validate.reserved import Reserved
from tests.support.blueprints import blueprint_text
from tests.support.kubernetes_names import DNS1035_LABEL, is_label


def problems(text: str) -> list[tuple[str, str]]:
    """(severity, message) of every diagnostic of the one blueprint in text."""
    (doc,) = parse(text, "job.yaml")
    return [(d.severity, d.message) for d in validate_document(doc, Reserved())[1]]


NAMES = ["a", "job", "resnet50-imagenet", "a" * 40, "x-1", "1job", "-job", "job-", "Job", "job_1", "job.v1", "jöb", ""]


@pytest.mark.parametrize("name", NAMES)
def test_the_job_name_is_a_dns_1035_label(name):
    found = [m for _, m in problems(blueprint_text(name, workers=1)) if m.startswith("metadata.name")]
    assert (found == []) == (DNS1035_LABEL.fullmatch(name) is not None), found


@pytest.mark.parametrize("namespace", ["team", "1team", "a" * 63, "a" * 64, "Team", "team.a", "-team", "team-"])
def test_the_namespace_is_a_dns_1123_label(namespace):
    found = [m for _, m in problems(blueprint_text("job", namespace=namespace)) if m.startswith("metadata.namespace")]
    assert (found == []) == is_label(namespace), found


@pytest.mark.parametrize("workers", [1, 10, 11, 100, 101])
@pytest.mark.parametrize("length", range(40, 58))
def test_the_last_worker_pod_name_fits_in_63_characters(length, workers):
    """The pod name <name>-worker-<workers-1> over 63: an error; else nothing about the name,
    whatever the target makes of it."""
    name = "j" * length
    last_pod = f"{name}-worker-{workers - 1}"
    found = [(severity, message) for severity, message in problems(blueprint_text(name, workers=workers))
             if message.startswith("metadata.name")]
    assert [severity for severity, _ in found] == (["error"] if len(last_pod) > 63 else []), found
    if found:
        room = 63 - len(f"-worker-{workers - 1}")
        assert found[0][1].endswith(f"shorten the name to at most {room} characters")
