"""The tensorflow-mnist example reproduces, object for object, what the v1alpha2 controller
creates for the equivalent MPIJob (tests/fixtures/tensorflow-mnist-operator.yaml, written
by hand from the reference), with no difference outside the contract's exceptions:
mpigen's own labels, and Open MPI 5's PRTE_ variables on the launcher."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.conftest import BLUEPRINTS, render_text

FIXTURE = Path(__file__).parent / "fixtures" / "tensorflow-mnist-operator.yaml"
MPIGEN_LABELS = ("app.kubernetes.io/managed-by", "mpigen.dev/job")
PRTE = [{"name": "PRTE_MCA_plm_ssh_agent", "value": "/etc/mpi/kubexec.sh"},
        {"name": "PRTE_MCA_prte_default_hostfile", "value": "/etc/mpi/hostfile"}]


def without_exceptions(obj: dict) -> dict:
    metas = [obj["metadata"]]
    if "template" in obj.get("spec", {}):
        metas.append(obj["spec"]["template"]["metadata"])
    for meta in metas:
        for key in MPIGEN_LABELS:
            meta["labels"].pop(key)
    if obj["kind"] == "Job":
        env = obj["spec"]["template"]["spec"]["containers"][0]["env"]
        assert env[:2] == PRTE  # after the user's env (none here), before the operator's
        del env[:2]
    return obj


def test_tensorflow_mnist_equals_the_operator_objects():
    expected = {o["kind"]: o for o in yaml.safe_load_all(FIXTURE.read_text())}
    rendered = render_text((BLUEPRINTS / "tensorflow-mnist.yaml").read_text(), "blueprints/tensorflow-mnist.yaml")
    actual = {o["kind"]: without_exceptions(o) for o in rendered}
    assert sorted(actual) == sorted(expected)
    for kind in expected:
        assert actual[kind] == expected[kind], kind
