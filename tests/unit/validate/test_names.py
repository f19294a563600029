"""A blueprint's names against Kubernetes' rules (k8s.io/apimachinery pkg/util/validation, as
tests/support/kubernetes_names.py copies them): metadata.name a DNS-1035 label (it names the
workers' Service), the namespace a DNS-1123 label, the last worker pod's name at most 63
characters (a pod's hostname is its name, a DNS-1123 label), and the worker StatefulSet's name
short enough for its pods' label controller-revision-hash=<name>-<10 characters> to be a label
value of at most 63 (kubernetes/kubernetes#64023). Called through validate_document."""

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
def test_the_names_derived_from_the_job_fit_what_kubernetes_allows(length, workers):
    """The pod name <name>-worker-<workers-1> over 63: an error; else the StatefulSet name
    <name>-worker over 52 (63 - len("-") - 10): a warning; else nothing about the name."""
    name = "j" * length
    last_pod, statefulset = f"{name}-worker-{workers - 1}", f"{name}-worker"
    expected = ("error" if len(last_pod) > 63 else
                "warning" if len(f"{statefulset}-{'h' * 10}") > 63 else None)
    found = [(severity, message) for severity, message in problems(blueprint_text(name, workers=workers))
             if message.startswith("metadata.name")]
    assert [severity for severity, _ in found] == ([expected] if expected else []), found
    if expected == "error":
        room = 63 - len(f"-worker-{workers - 1}")
        assert found[0][1].endswith(f"shorten the name to at most {room} characters")
