"""The pretend cluster's admission (tests/support/e2e/admission.py): which duplicate container
ports the API server refuses, in a built-in object and in a custom resource."""

from __future__ import annotations

import pytest

from tests.support.e2e.admission import NotAdmitted, admit, refusals


def _stateful_set(ports: list[dict]) -> dict:
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "w"},
            "spec": {"template": {"spec": {"containers": [{"name": "c", "ports": ports}]}}}}


def _jobset(ports: list[dict]) -> dict:
    pod = {"spec": {"initContainers": [{"name": "i"}], "containers": [{"name": "c", "ports": ports}]}}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "j"},
            "spec": {"replicatedJobs": [{"name": "worker", "template": {"spec": {"template": pod}}}]}}


def test_two_ports_of_one_name_are_refused_in_every_kind():
    ports = [{"name": "ssh", "containerPort": 2222}, {"name": "ssh", "containerPort": 2200}]
    assert refusals(_stateful_set(ports)) == ["StatefulSet w: container c: ports: Duplicate value: name 'ssh'"]
    assert refusals(_jobset(ports)) == ["JobSet j: container c: ports: Duplicate value: name 'ssh'"]


def test_two_ports_of_one_number_and_protocol_are_refused_in_a_custom_resource_only():
    ports = [{"name": "ssh", "containerPort": 2222}, {"name": "metrics", "containerPort": 2222, "protocol": "TCP"}]
    assert refusals(_stateful_set(ports)) == []  # core validation keys ports by name only
    assert refusals(_jobset(ports)) == ["JobSet j: container c: ports: Duplicate value: containerPort 2222, "
                                        "protocol TCP"]
    assert refusals(_jobset([ports[0], {**ports[1], "protocol": "UDP"}])) == []


def test_admit_names_every_refusal():
    admit([_jobset([{"name": "ssh", "containerPort": 2222}]), _stateful_set([])])
    with pytest.raises(NotAdmitted, match="JobSet j: .* name 'ssh'"):
        admit([_jobset([{"name": "ssh", "containerPort": 2222}, {"name": "ssh", "containerPort": 1}])])
