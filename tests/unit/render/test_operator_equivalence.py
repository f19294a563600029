"""Each example reproduces, object for object, what the v1alpha2 controller creates for the
equivalent MPIJob (tests/support/fixtures/<example>-operator.yaml, written by hand from
shared/reference/mpi-operator.md section 2), with no difference outside the contract's
exceptions: mpigen's own labels, and Open MPI 5's PRTE_ variables on the launcher. One
difference is the equivalent MPIJob's, not the controller's: mpigen writes least privilege
into the containers of its pod templates (issue 7), which the controller would copy; its own
kubectl-delivery init container stays as the controller builds it. Likewise the workers'
pod template says automountServiceAccountToken: false (issue 37: they never call the API;
kubexec.sh runs on the launcher), which the controller copies into the StatefulSet; the
launcher keeps its token, for kubectl-delivery and kubexec.sh."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.support.blueprints import production_features
from tests.support.paths import BLUEPRINTS
from tests.support.rendering import render_text

FIXTURES = Path(__file__).resolve().parents[2] / "support" / "fixtures"
MPIGEN_LABELS = ("app.kubernetes.io/managed-by", "mpigen.dev/job")
PRTE = [{"name": "PRTE_MCA_plm_ssh_agent", "value": "/etc/mpi/kubexec.sh"},
        {"name": "PRTE_MCA_prte_default_hostfile", "value": "/etc/mpi/hostfile"}]
LEAST_PRIVILEGE = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
OPERATOR_ENV_START = {"OMPI_MCA_plm_rsh_agent", "I_MPI_HYDRA_BOOTSTRAP_EXEC", "HYDRA_LAUNCHER_EXEC"}


def without_exceptions(obj: dict) -> dict:
    metas = [obj["metadata"]]
    if "template" in obj.get("spec", {}):
        metas.append(obj["spec"]["template"]["metadata"])
    for meta in metas:
        for key in MPIGEN_LABELS:
            meta["labels"].pop(key)
    if "template" in obj.get("spec", {}):
        pod = obj["spec"]["template"]["spec"]
        assert pod["containers"][0].pop("securityContext") == LEAST_PRIVILEGE
        assert all("securityContext" not in c for c in pod.get("initContainers", []))
        assert pod.pop("automountServiceAccountToken", None) is (False if obj["kind"] == "StatefulSet" else None)
    if obj["kind"] == "Job":
        env = obj["spec"]["template"]["spec"]["containers"][0]["env"]
        at = next(i for i, e in enumerate(env) if e["name"] in OPERATOR_ENV_START)
        if env[at]["name"] == "OMPI_MCA_plm_rsh_agent":
            assert env[at - 2:at] == PRTE  # after the user's env, right before the operator's
            del env[at - 2:at]
    return obj


EXAMPLES = sorted(p.name.removesuffix("-operator.yaml") for p in FIXTURES.glob("*-operator.yaml"))


def test_every_example_has_a_fixture():
    """Every example of the operator's MPIJob fields. The examples of the production
    features (blueprints.production_features: gang scheduling, Kueue, rank-env.sh, cloud
    identity, RDMA, ...) have no hand-written fixture: golden/ and tests/acceptance/production/ cover them."""
    assert EXAMPLES == sorted(p.stem for p in BLUEPRINTS.glob("*.yaml")
                              if not production_features(yaml.safe_load(p.read_text())))


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_equals_the_operator_objects(example):
    expected = {o["kind"]: o for o in yaml.safe_load_all((FIXTURES / f"{example}-operator.yaml").read_text())}
    path = BLUEPRINTS / f"{example}.yaml"
    rendered = render_text(path.read_text(), f"blueprints/{path.name}")
    actual = {o["kind"]: without_exceptions(o) for o in rendered}
    assert sorted(actual) == sorted(expected)
    for kind in expected:
        assert actual[kind] == expected[kind], kind
