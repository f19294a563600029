"""Which of the pods mpigen renders get the Kubernetes API token (issue 37), per target, from
a blueprint through the real stages. Kubernetes mounts the pod's ServiceAccount token into
every container unless the pod spec says automountServiceAccountToken: false (core/v1 PodSpec).

The pods that call the API keep it: the launcher of the static target (v1alpha2) and of a v1
MPIJob, whose kubectl-delivery init container watches the worker pods and whose kubexec.sh
runs `kubectl exec` (shared/reference/mpi-operator.md 2.6, 3.6), through the launcher's Role.
The others never call it: the workers (sshd, or `sleep` while the launcher execs into them),
the v2beta1 launcher ("No initContainer, no ServiceAccount, no RBAC", 4.7: it reaches the
workers over ssh), and the jobset and trainjob targets' launchers and workers (ssh). The
jobset target's key generator has its own account and projects its token into its kubectl
containers only.

A pod whose account the blueprint names (spec.serviceAccount.name, the cloud identity of
spec.serviceAccount.annotations, a podTemplatePatch serviceAccountName) keeps the cluster's
default, and a podTemplatePatch's own automountServiceAccountToken stays as written."""

from __future__ import annotations

import pytest

from mpigen.render.mpijob.options import MpiJobOptions
from tests.support.blueprints import blueprint_text
from tests.support.rendering import render_text

TOKEN = "automountServiceAccountToken"
UNSET = "unset"


def pods(target: str, api: str | None = None, **spec) -> dict[str, dict]:
    """The pod specs of the blueprint `train` with these spec fields, by role."""
    options = {"target": target}
    if api:
        options["own"] = MpiJobOptions(api)
    objects = render_text(blueprint_text("train", **spec), **options)
    found = {}
    for obj in objects:
        if obj["kind"] == "StatefulSet":
            found["worker"] = obj["spec"]["template"]["spec"]
        elif obj["kind"] == "Job":
            found["launcher"] = obj["spec"]["template"]["spec"]
        elif obj["kind"] == "MPIJob":
            for role, replica in obj["spec"]["mpiReplicaSpecs"].items():
                found[role.lower()] = replica["template"]["spec"]
        elif obj["kind"] in ("JobSet", "TrainingRuntime"):
            jobs = obj["spec"]["replicatedJobs"] if obj["kind"] == "JobSet" else \
                obj["spec"]["template"]["spec"]["replicatedJobs"]
            for job in jobs:
                found[{"node": "worker"}.get(job["name"], job["name"])] = job["template"]["spec"]["template"]["spec"]
    return found


def token(pod: dict):
    return pod.get(TOKEN, UNSET)


# (target, MPIJob API, {role: the token field as rendered})
TARGETS = [
    pytest.param("static", None, {"worker": False, "launcher": UNSET}, id="static"),
    pytest.param("mpijob", "kubeflow.org/v2beta1", {"worker": False, "launcher": False}, id="mpijob-v2beta1"),
    pytest.param("mpijob", "kubeflow.org/v1", {"worker": False, "launcher": UNSET}, id="mpijob-v1"),
    pytest.param("jobset", None, {"worker": False, "launcher": False, "keygen": False}, id="jobset"),
    pytest.param("trainjob", None, {"worker": False, "launcher": False}, id="trainjob"),
]


@pytest.mark.parametrize("target, api, expected", TARGETS)
def test_only_the_pods_that_call_the_api_get_a_token(target, api, expected):
    assert {role: token(pod) for role, pod in pods(target, api).items()} == expected


@pytest.mark.parametrize("target, api, expected", TARGETS)
def test_a_launcher_that_calls_the_api_runs_as_the_account_its_role_is_bound_to(target, api, expected):
    launcher = pods(target, api)["launcher"]
    if target == "static":
        assert launcher["serviceAccountName"] == "train-launcher"
    elif expected["launcher"] is UNSET:  # the v1 operator binds its Role to <job>-launcher when the pod names none
        assert "serviceAccountName" not in launcher


@pytest.mark.parametrize("target, api, expected", TARGETS)
@pytest.mark.parametrize("choice", [True, False])
def test_a_pod_template_patch_keeps_the_users_choice(target, api, expected, choice):
    patched = pods(target, api, podTemplatePatch={"worker": {"pod": {TOKEN: choice}},
                                                  "launcher": {"pod": {TOKEN: choice}}})
    assert (token(patched["worker"]), token(patched["launcher"])) == (choice, choice)


@pytest.mark.parametrize("target, api, expected", TARGETS)
@pytest.mark.parametrize("account", [
    pytest.param({"serviceAccount": {"name": "data-reader"}}, id="spec.serviceAccount.name"),
    pytest.param({"serviceAccount": {"annotations": {"eks.amazonaws.com/role-arn": "arn:aws:iam::1:role/t"}}},
                 id="cloud-identity"),
    pytest.param({"podTemplatePatch": {"worker": {"pod": {"serviceAccountName": "data-reader"}}}},
                 id="podTemplatePatch"),
])
def test_workers_that_run_as_a_named_account_keep_the_clusters_default(target, api, expected, account):
    worker = pods(target, api, **account)["worker"]
    assert worker["serviceAccountName"] in ("data-reader", "train-identity")
    assert token(worker) is UNSET
