"""Accepted means the cluster accepts it (issue 31, item 2): blueprints drawn across the space
(tests/support/blueprint_strategy.py), under every target and GitOps profile, either render
objects that pass every check the cluster makes that mpigen can make offline, or are refused
with exit 2, nothing on standard output and each error at a file's line and column.

Each rendered object is checked against its schema as `mpigen validate --kube-version` does
(mpigen.review.schemas: Kubernetes' OpenAPI schemas of kubernetes-validate, strict; the CRD
mpigen generates for an MPIJob; kubeflow-trainer-api's models for the Trainer's kinds), and
against the sizes the API server and etcd allow, counted here as the API server and the
controllers count them: a ConfigMap's data at most 1 MiB, the hostfile ConfigMaps the MPI
Operator and the Trainer create from an MPIJob or TrainJob too, annotations of at most 256 KiB
on every object and pod template, and no custom resource whose JSON is over etcd's 1.5 MiB
request limit. Every int32 field of the schemas
is checked for its range too, which JSON Schema's `format` leaves unchecked.

Derandomized with the suite's profile (tests/support/properties.py): CI draws the same
examples on every run (about a minute); MPIGEN_PROPERTY_RUN=long draws ten times as many."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings

from mpigen.formats.types import INT32_MAX
from mpigen.review.schemas import validate_object
from tests.support.blueprint_strategy import Render, renders
from tests.support.failure_policies import job_spec_errors, jobset_errors
from tests.support.properties import examples

KUBE_VERSION = "1.30"
VALIDATORS: dict = {}  # the schemas' validators, made once per (apiVersion, kind) for the whole run


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("accepted")


@settings(max_examples=examples(400), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                 HealthCheck.data_too_large])
@given(render=renders())
def test_an_accepted_blueprint_renders_what_the_cluster_accepts_and_a_refused_one_says_where(
        render: Render, scratch, mpigen_in_process, monkeypatch):
    monkeypatch.chdir(scratch)
    (scratch / "drawn.yaml").write_text(json.dumps(render.blueprint, indent=2), encoding="utf-8")  # JSON is YAML
    done = mpigen_in_process("render", "drawn.yaml", "--stdout", "--no-cache", *render.options)
    event(f"{'accepted' if done.returncode == 0 else 'refused'} {' '.join(render.options[1:-2])}")
    if done.returncode != 0:
        _refused_with_positions(done)
        return
    objects = [obj for obj in yaml.load_all(done.stdout, Loader=yaml.CSafeLoader) if obj is not None]
    assert objects
    for obj in objects:
        status, errors = validate_object(obj, KUBE_VERSION, VALIDATORS)
        assert status != "invalid", (obj["kind"], obj["metadata"]["name"], errors[:5])
        assert not list(_out_of_int32(obj)), (obj["kind"], list(_out_of_int32(obj)))
        assert not _failure_policy_errors(obj), (obj["kind"], _failure_policy_errors(obj))
    _within_the_sizes(objects)


def _failure_policy_errors(obj: dict) -> list[str]:
    """The API server's rules for a Job's podFailurePolicy and JobSet's for its failurePolicy
    (tests/support/failure_policies.py), which no schema states: on a Job, a JobSet and a
    runtime's JobSet template."""
    if obj["kind"] == "Job":
        return job_spec_errors(obj["spec"])
    if obj["kind"] == "JobSet":
        return jobset_errors(obj["spec"])
    if obj["kind"] in ("TrainingRuntime", "ClusterTrainingRuntime"):
        return jobset_errors(obj["spec"]["template"]["spec"])
    return []


def _refused_with_positions(done) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stdout == b"" and "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if ": error: " in line]
    assert errors, done.stderr
    for line in errors:
        assert re.match(r"^drawn\.yaml:\d+:\d+: error: \S", line), line


# k8s.io/kubernetes pkg/apis/core/types.go MaxSecretSize, which ValidateConfigMap applies to the
# data; etcd v3.5.11 server/embed/config.go DefaultMaxRequestBytes; k8s.io/apimachinery
# pkg/api/validation/objectmeta.go TotalAnnotationSizeLimitB. Counted here without mpigen's code.
CONFIG_MAP_DATA, ETCD_REQUEST, ANNOTATIONS = 1024 * 1024, 1536 * 1024, 256 * 1024


def _within_the_sizes(objects: list[dict]) -> None:
    """What the API server and etcd allow, of every object and of the hostfiles the controllers create."""
    for obj in objects:
        if obj["kind"] == "ConfigMap":
            assert _utf8(*obj.get("data", {}).values()) <= CONFIG_MAP_DATA, obj["metadata"]["name"]
        if "." in obj["apiVersion"].partition("/")[0]:  # a custom resource: stored as its JSON
            assert _utf8(json.dumps(obj, separators=(",", ":"), ensure_ascii=False)) <= ETCD_REQUEST, obj["kind"]
        if obj["kind"] in ("MPIJob", "TrainJob"):
            assert _controller_hostfile(obj, objects) <= CONFIG_MAP_DATA, obj["metadata"]["name"]
        for annotations in _annotations(obj):
            assert _utf8(*annotations, *annotations.values()) <= ANNOTATIONS, obj["kind"]


def _annotations(node):
    """The annotations of the object and of each pod template in it."""
    if isinstance(node, dict):
        if isinstance(node.get("metadata"), dict) and isinstance(node["metadata"].get("annotations"), dict):
            yield node["metadata"]["annotations"]
        for value in node.values():
            yield from _annotations(value)
    elif isinstance(node, list):
        for value in node:
            yield from _annotations(value)


def _utf8(*texts: str) -> int:
    return sum(len(text.encode("utf-8")) for text in texts)


def _controller_hostfile(obj: dict, objects: list[dict]) -> int:
    """The data of the ConfigMap the operator (mpi-operator caa3c47 newConfigMap and
    updateDiscoverHostsInConfigMap; training-operator v1.9.0 the same) or the Trainer (v2.3.0
    buildHostFileConfigMap, IdentifyPodNetwork) writes for obj once its workers run, as their Go
    format strings say; the Trainer's only for a runtime of the render with Open MPI."""
    name, spec = obj["metadata"]["name"], obj["spec"]
    if obj["kind"] == "TrainJob":
        runtime = next((o for o in objects if o["kind"].endswith("TrainingRuntime")
                        and o["metadata"]["name"] == spec["runtimeRef"]["name"]), None)
        if runtime is None:
            return 0
        slots, nodes = spec["trainer"]["numProcPerNode"], spec["trainer"]["numNodes"]
        as_node = runtime["spec"]["mlPolicy"]["mpi"].get("runLauncherAsNode", False)
        hosts = [f"{name}-node-0-{i}.{name}" for i in range(nodes - as_node)]
        hosts += [f"{name}-launcher-0-0.{name}"] * as_node
        return _utf8(*(f"{host} slots={slots}\n" for host in hosts))
    slots, workers = spec.get("slotsPerWorker", 1), spec["mpiReplicaSpecs"]["Worker"]["replicas"]
    pods = [f"{name}-worker-{i}" for i in range(workers)]
    if obj["apiVersion"] == "kubeflow.org/v1":
        limits = [c.get("resources", {}).get("limits", {})
                  for c in spec["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"]]
        launcher = [f"{name}-launcher"] if any("gpu" in key for keys in limits for key in keys) else []
        container = f" --container {spec['mainContainer']}" if spec.get("mainContainer") else ""
        kubexec = ('#!/bin/sh\nset -x\nPOD_NAME=$1\nshift\n/opt/kube/kubectl exec ${POD_NAME}'
                   f'{container} -- /bin/sh -c "$*"')
        discover = "#!/bin/sh" + "".join(f"\necho {host}:{slots}\n" for host in launcher)
        return _utf8(kubexec, discover, *(f"{host} slots={slots}\n" for host in launcher + pods),
                     *(f"\necho {pod}:{slots}" for pod in pods))
    hosts = ([f"{name}-launcher"] if spec.get("runLauncherAsWorker") else []) + pods
    fqdns = [f"{host}.{name}.{obj['metadata']['namespace']}.svc" for host in hosts]
    line = "{}:{}\n" if spec.get("mpiImplementation") in ("Intel", "MPICH") else "{} slots={}\n"
    return _utf8("#!/bin/sh\n", *(line.format(fqdn, slots) + f"echo {fqdn}\n" for fqdn in fqdns))


# The fields of the objects mpigen writes whose schemas say `format: int32` (Kubernetes' OpenAPI,
# JobSet's and the Trainer's Go types): tests/unit/formats/test_int32.py lists where each comes from.
INT32_FIELDS = ("replicas", "parallelism", "completions", "backoffLimit", "ttlSecondsAfterFinished",
                "containerPort", "maxRestarts", "numNodes", "numProcPerNode", "slotsPerWorker", "minAvailable",
                "minMember", "defaultMode", "mode", "port", "periodSeconds", "maxSkew")


def _out_of_int32(node, path: str = ""):
    if isinstance(node, dict):
        for key, value in node.items():
            if key in INT32_FIELDS and isinstance(value, int) and not -2**31 <= value <= INT32_MAX:
                yield f"{path}.{key}", value
            yield from _out_of_int32(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _out_of_int32(value, f"{path}[{i}]")
