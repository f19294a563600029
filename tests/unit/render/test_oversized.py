"""The objects of a render the cluster would refuse for their size: by the table of kinds'
`size_limit` fact (a ConfigMap: its data against core.MaxSecretSize, mpigen.kube.sizes), by
etcd's request limit for any object, and for the objects a controller creates from one (the
`creates` fact: the MPI Operator's and the Trainer's hostfile ConfigMaps)."""

from __future__ import annotations

from mpigen.kube.sizes import MAX_CONFIG_MAP_DATA, MAX_ETCD_REQUEST
from mpigen.render.refusals import oversized


def config_map(size: int) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "job-config"}, "data": {"h": "x" * size}}


def test_a_configmap_over_the_limit_is_named_with_its_size_at_spec_workers_and_one_at_it_passes():
    assert oversized([config_map(MAX_CONFIG_MAP_DATA)]) == []
    (problem,) = oversized([config_map(MAX_CONFIG_MAP_DATA + 1)])
    assert problem.field == "spec.workers"
    assert "ConfigMap job-config would hold 1,048,577 bytes" in problem.problem and "1,048,576" in problem.problem
    assert "a line of its hostfile" in problem.problem
    assert oversized([{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}]) == []


def _mpijob(workers: int, env_bytes: int = 0) -> dict:
    env = [{"name": "BIG", "value": "x" * env_bytes}] if env_bytes else []
    template = {"spec": {"containers": [{"name": "w", "image": "i", "env": env}]}}
    return {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "j", "namespace": "n"},
            "spec": {"slotsPerWorker": 1, "mpiImplementation": "OpenMPI",
                     "mpiReplicaSpecs": {"Launcher": {"replicas": 1, "template": template},
                                         "Worker": {"replicas": workers, "template": template}}}}


def test_the_configmap_an_operator_creates_is_checked_and_named_with_its_creator():
    """v2beta1: `j-worker-<i>.j.n.svc slots=1\\n` and `echo j-worker-<i>.j.n.svc\\n` a worker."""
    per_worker = lambda i: 2 * len(f"j-worker-{i}.j.n.svc") + len(" slots=1\n") + len("echo \n")  # noqa: E731
    fits, size = 0, len("#!/bin/sh\n")
    while size + per_worker(fits) <= MAX_CONFIG_MAP_DATA:
        size, fits = size + per_worker(fits), fits + 1
    assert oversized([_mpijob(fits)]) == []
    (problem,) = oversized([_mpijob(fits + 1)])
    assert problem.field == "spec.workers"
    assert "ConfigMap j-config that the controller of the MPIJob j creates" in problem.problem
    assert "the MPIJob j never starts" in problem.problem


def test_a_custom_resource_over_etcds_request_limit_names_no_field():
    (problem,) = oversized([_mpijob(2, env_bytes=MAX_ETCD_REQUEST // 2)])
    assert problem.field == ""  # the pipeline names the blueprint's largest field
    assert "the MPIJob j would take at least" in problem.problem and "1,572,864" in problem.problem
    assert "etcdserver: request is too large" in problem.problem
    assert oversized([_mpijob(2, env_bytes=MAX_ETCD_REQUEST // 2 - 1000)]) == []


def test_kubernetes_own_kinds_count_their_strings_against_etcds_limit():
    """Stored as protobuf: a Job whose strings alone are over the limit, and not one whose JSON is."""
    def job(value: str) -> dict:
        return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "l"},
                "spec": {"template": {"spec": {"containers": [{"name": "c", "env": [{"name": "A", "value": value}]}]}}}}

    (problem,) = oversized([job("x" * MAX_ETCD_REQUEST)])
    assert "the Job l would take at least" in problem.problem and "its strings alone" in problem.problem
    assert oversized([job("\\" * (MAX_ETCD_REQUEST // 2))]) == []  # twice that in JSON, as escaped
