"""Invalid input at the limits: the boundary that is accepted (a worker pod name of exactly
63 characters), deep nesting and oversized files, and resource names Kubernetes would refuse.

Every case runs mpigen.cli.main.main in this process (tests/support/invalid_input.mpigen_in_process
and run_modes_in_process) but deep nesting and oversized files, which run the command line in
bounded-memory processes.

How every test here proves its point: see this folder's __init__.py."""

from __future__ import annotations

import re

import pytest

from mpigen.render.targets import TARGETS
from tests.support.invalid_input import MNIST, env, long_name, mpigen_in_process, run_modes, run_modes_in_process
from tests.support.text import pos


# --- the boundary that is accepted ---------------------------------------------------------

@pytest.mark.parametrize("length, workers", [(54, 4), (53, 11)], ids=["54+worker-3", "53+worker-10"])
def test_worker_pod_name_of_exactly_63_characters_is_accepted(length, workers, tmp_path):
    name = "a" * length
    assert len(f"{name}-worker-{workers - 1}") == 63
    (tmp_path / "edge.yaml").write_text(long_name(length, workers), encoding="utf-8")
    # The operator's worker pods: the static target's StatefulSet, <name>-worker, must stay
    # within 52 characters (test_statefulset_name.py).
    (tmp_path / "mpigen.yaml").write_text("apiVersion: mpigen.dev/v1alpha1\nkind: Config\ntarget: mpijob\n",
                                          encoding="utf-8")
    for outcome in run_modes_in_process(tmp_path, ["edge.yaml"], modes=("validate", "render --stdout")):
        assert outcome.returncode == 0, f"mpigen {outcome.mode}:\n{outcome.stderr}"
        assert ": error: " not in outcome.stderr and "Traceback" not in outcome.stderr, outcome.stderr
        if outcome.mode == "render --stdout":
            assert f"name: {name}\n".encode() in outcome.stdout


def test_deep_nesting_and_oversized_files_are_refused(tmp_path):
    """The table's one run of the command line as a user runs it: three processes at once, each in
    bounded memory, read a 5 MiB file and a nesting 200 deep without a crash."""
    deep = "a: " + "[" * 200 + "]" * 200 + "\n"
    (tmp_path / "deep.yaml").write_text(deep)
    (tmp_path / "huge.yaml").write_bytes(b"# " + b"x" * (5 * 1024 * 1024) + b"\n")
    for name, expected in (("deep.yaml", "nesting is deeper than"), ("huge.yaml", "larger than")):
        for outcome in run_modes(tmp_path, [name]):
            assert outcome.returncode == 2, outcome
            assert "Traceback" not in outcome.stderr
            assert re.match(rf"^({name}:\d+:\d+: error|error: {name}): .*{expected}", outcome.stderr), outcome.stderr


@pytest.mark.parametrize("edit, needle, message", [
    (("    worker: {cpu: 2, memory: 4Gi}", "    worker: {cpu: 2, gpus: 4}"), "gpus", "not a Kubernetes resource"),
    (("    worker: {cpu: 2, memory: 4Gi}", "    worker: {cpu: 2, rdma/hca: 500m}"), "500m", "whole numbers"),
    (("    worker: {cpu: 2, memory: 4Gi}", "    worker: {cpu: 2, example.kubernetes.io/x: 1}"), "example.kubernetes.io/x",
     "reserved"),
    (("  workers: 2\n", "  workers: 2\n  gpuResource: gpu\n"), "gpu\n", "not an extended resource"),
])
def test_resource_names_kubernetes_would_refuse(tmp_path, edit, needle, message):
    text = MNIST.read_text().replace(*edit)
    assert text != MNIST.read_text()
    (tmp_path / "bad.yaml").write_text(text)
    line, column = pos(text, needle)
    for outcome in run_modes_in_process(tmp_path, ["bad.yaml"]):
        assert outcome.returncode == 2
        assert outcome.stderr.startswith(f"bad.yaml:{line}:{column}: error: "), outcome.stderr
        assert message in outcome.stderr


# --- numbers the cluster stores as int32 ---------------------------------------------------

@pytest.mark.parametrize("target", sorted(TARGETS))
def test_ttl_seconds_after_finished_beyond_int32_is_refused_at_its_line(target, tmp_path):
    """A Job's, JobSet's and MPIJob's ttlSecondsAfterFinished is an int32 (the Kubernetes
    OpenAPI schema's `format: int32`, jobset_types.go `*int32`): 2**31 is refused before render."""
    edit = ("    cleanPodPolicy: Running\n", "    cleanPodPolicy: Running\n    ttlSecondsAfterFinished: 2147483648\n")
    text = MNIST.read_text().replace(*edit)
    assert text != MNIST.read_text()
    (tmp_path / "bad.yaml").write_text(text)
    line, column = pos(text, "2147483648")
    for command in (["validate", "bad.yaml"], ["render", "bad.yaml", "-o", "out"], ["render", "bad.yaml", "--stdout"]):
        done = mpigen_in_process(*command, "--target", target, cwd=tmp_path, env=env(), text=True)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(f"bad.yaml:{line}:{column}: error: spec.runPolicy.ttlSecondsAfterFinished"), done.stderr
        assert "2147483647" in done.stderr and "Traceback" not in done.stderr
        assert done.stdout == "" and sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml"]


# --- qualified names: IsQualifiedName's lengths of the parts -------------------------------

LONG_NAME_PART = "example.com/" + "x" * 64
LONG_PREFIX = ("a" * 63 + ".") * 3 + "a" * 63 + "/x"  # a DNS-1123 subdomain of 255 characters, then '/x'


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("edit, key, part", [
    (("  name: tensorflow-mnist\n", f"  name: tensorflow-mnist\n  labels:\n    {LONG_NAME_PART}: v\n"),
     LONG_NAME_PART, "name part"),
    (("  name: tensorflow-mnist\n", f"  name: tensorflow-mnist\n  annotations:\n    {LONG_PREFIX}: v\n"),
     LONG_PREFIX, "prefix"),
    (("  workers: 2\n", f"  workers: 2\n  scheduling:\n    queue: q\n    topology:\n      required: {LONG_NAME_PART}\n"),
     LONG_NAME_PART, "name part"),
], ids=["label key", "annotation key", "topology level"])
def test_a_qualified_name_with_a_part_too_long_is_refused_at_its_line(target, edit, key, part, tmp_path):
    """k8s.io/apimachinery pkg/util/validation/validation.go IsQualifiedName: a name part of at
    most 63 characters, a prefix of at most 253; Kueue v0.19.2 checks a topology level with it
    (pkg/controller/jobframework/tas_validation.go, metavalidation.ValidateLabelName)."""
    text = MNIST.read_text().replace(*edit)
    assert text != MNIST.read_text()
    (tmp_path / "bad.yaml").write_text(text)
    line, column = pos(text, key)
    for command in (["validate", "bad.yaml"], ["render", "bad.yaml", "--stdout"]):
        done = mpigen_in_process(*command, "--target", target, cwd=tmp_path, env=env(), text=True)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(f"bad.yaml:{line}:{column}: error: "), done.stderr
        assert repr(key) in done.stderr and f"its {part}" in done.stderr and "Traceback" not in done.stderr
        assert done.stdout == ""


# --- object sizes: a ConfigMap's data over the API server's 1 MiB ---------------------------

@pytest.mark.parametrize("target, workers, made_by", [
    ("static", 20_000, ""), ("jobset", 11_000, ""),
    ("mpijob", 5_000, " that the controller of the MPIJob"),
    ("mpijob --mpijob-api kubeflow.org/v1", 10_000, " that the controller of the MPIJob"),
    ("trainjob", 11_000, " that the controller of the TrainJob"),
], ids=["static", "jobset", "mpijob-v2beta1", "mpijob-v1", "trainjob"])
def test_a_hostfile_configmap_over_one_mebibyte_is_refused_at_spec_workers(target, workers, made_by, tmp_path):
    """k8s.io/kubernetes pkg/apis/core/validation ValidateConfigMap: the data's values total at
    most core.MaxSecretSize (1 MiB). 11,000 workers of a 40-character job gave the jobset
    target's ConfigMap 1,145,324 bytes of data, and the static target's hostfile 61 bytes a worker;
    the ConfigMaps the controllers create, which mpigen does not write, hold their hostfiles: the
    MPI Operator's (v2beta1: a line of about 110 bytes a worker in the hostfile and one in
    discover_hosts.sh; v1: about 120 in all), the Trainer's (about 100 bytes a worker)."""
    name = "a" * 40
    text = MNIST.read_text().replace("  name: tensorflow-mnist\n", f"  name: {name}\n")
    text = text.replace("  workers: 2\n", f"  workers: {workers}\n")
    (tmp_path / "big.yaml").write_text(text)
    line, column = pos(text, f"{workers}\n")
    for command in (["render", "big.yaml", "-o", "out"], ["render", "big.yaml", "--stdout"], ["validate", "big.yaml"]):
        done = mpigen_in_process(*command, "--target", *target.split(), cwd=tmp_path, env=env(), text=True)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(f"big.yaml:{line}:{column}: error: spec.workers: the ConfigMap {name}-"), done.stderr
        assert f"{made_by} {name} creates would hold" in done.stderr if made_by else "creates" not in done.stderr
        assert "over the API server's limit of 1,048,576 bytes" in done.stderr and "Traceback" not in done.stderr
        assert done.stdout == "" and sorted(p.name for p in tmp_path.iterdir()) == ["big.yaml"]


# --- object sizes: etcd's request limit for any object --------------------------------------

BIG_VALUE = "x" * 50_000


@pytest.mark.parametrize("target, kind", [("mpijob", "MPIJob"), ("jobset", "JobSet"), ("trainjob", "TrainingRuntime")])
@pytest.mark.parametrize("edit, field", [
    (("  workers: 2\n", "  workers: 2\n  env:\n" + "".join(f"    BIG_{i}: {BIG_VALUE}\n" for i in range(20))),
     "spec.env"),
    (("  workers: 2\n", "  workers: 2\n  podTemplatePatch:\n    worker:\n      pod:\n        hostAliases:\n"
      + "".join(f"        - {{ip: 10.0.{i // 250}.{i % 250}, hostnames: [h{i}-{BIG_VALUE[:200]}]}}\n"
                for i in range(8_000))),
     "spec.podTemplatePatch"),
], ids=["env", "podTemplatePatch"])
def test_an_object_over_etcds_request_limit_is_refused_at_the_field_that_makes_it_so(target, kind, edit, field,
                                                                                       tmp_path):
    """etcd refuses a request over its --max-request-bytes, by default 1.5 MiB (etcd v3.5.11
    server/embed/config.go DefaultMaxRequestBytes), and the API server fails the create with
    "etcdserver: request is too large"; a custom resource is stored as JSON, so 1 MB of
    environment (in the launcher's and the workers' templates) or of pod patch is too much."""
    text = MNIST.read_text().replace(*edit)
    (tmp_path / "big.yaml").write_text(text)
    key = field.rpartition(".")[2]
    line, column = pos(text, f"{key}:")
    done = mpigen_in_process("render", "big.yaml", "--stdout", "--target", target, cwd=tmp_path, env=env(), text=True)
    assert done.returncode == 2, done.stderr[:2000]
    assert done.stderr.startswith(f"big.yaml:{line}:{column}: error: {field}: the {kind} "), done.stderr[:2000]
    assert "etcdserver: request is too large" in done.stderr and "1,572,864" in done.stderr
    assert f"{field} is the largest part of the blueprint" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_a_hostfile_configmap_just_under_one_mebibyte_is_rendered(tmp_path):
    """The boundary: what the API server counts is the data's bytes, not the YAML document's."""
    text = MNIST.read_text().replace("  workers: 2\n", "  workers: 9000\n")
    (tmp_path / "edge.yaml").write_text(text)
    done = mpigen_in_process("render", "edge.yaml", "--stdout", "--target", "jobset", cwd=tmp_path, env=env())
    assert done.returncode == 0, done.stderr


# --- resource names: IsQualifiedName's lengths, and the extended-resource rules ------------

LONG_RESOURCE_PART = "example.com/" + "g" * 64
LONG_EXTENDED_PREFIX = "a" * 245 + "/x"  # a qualified name (prefix <= 253), but `requests.` + it is not


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("edit, name, field", [
    (("    worker: {cpu: 2, memory: 4Gi}\n", f"    worker: {{cpu: 2, memory: 4Gi, {LONG_RESOURCE_PART}: 1}}\n"),
     LONG_RESOURCE_PART, "its name part"),
    (("  workers: 2\n", f"  workers: 2\n  gpusPerWorker: 1\n  gpuResource: {LONG_RESOURCE_PART}\n"),
     LONG_RESOURCE_PART, "its name part"),
    (("  workers: 2\n", f"  workers: 2\n  network:\n    rdma: {{resource: {LONG_EXTENDED_PREFIX}}}\n"),
     LONG_EXTENDED_PREFIX, "at most 244"),
    (("  workers: 2\n", "  workers: 2\n  gpusPerWorker: 1\n  gpuResource: requests.nvidia.com/gpu\n"),
     "requests.nvidia.com/gpu", "may not start with 'requests.'"),
], ids=["resources.worker", "gpuResource", "rdma.resource", "requests. prefix"])
def test_a_resource_name_the_api_server_refuses_is_refused_at_its_line(target, edit, name, field, tmp_path):
    """k8s.io/kubernetes pkg/apis/core/validation/validation.go validateContainerResourceName:
    IsQualifiedName (a name part of at most 63 characters), and for a domain-prefixed resource
    IsExtendedResourceName (pkg/apis/core/helper/helpers.go): no `requests.` in front, and
    `requests.<name>` a qualified name, so a prefix of at most 253 - 9 characters."""
    text = MNIST.read_text().replace(*edit)
    assert text != MNIST.read_text()
    (tmp_path / "bad.yaml").write_text(text)
    line, column = pos(text, name)
    for command in (["validate", "bad.yaml"], ["render", "bad.yaml", "--stdout"]):
        done = mpigen_in_process(*command, "--target", target, cwd=tmp_path, env=env(), text=True)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(f"bad.yaml:{line}:{column}: error: "), done.stderr
        assert repr(name) in done.stderr and field in done.stderr and "Traceback" not in done.stderr
        assert done.stdout == ""


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_annotations_over_the_api_servers_256_kib_are_refused_at_their_key(target, tmp_path):
    """k8s.io/apimachinery pkg/api/validation/objectmeta.go ValidateAnnotationsSize: the keys
    and values of an object's annotations (and a pod template's) total at most
    TotalAnnotationSizeLimitB, 256 KiB; a blueprint's annotations are on every object and pod."""
    edit = ("  name: tensorflow-mnist\n", f"  name: tensorflow-mnist\n  annotations:\n    notes: {'y' * 300_000}\n")
    text = MNIST.read_text().replace(*edit)
    (tmp_path / "big.yaml").write_text(text)
    line, column = pos(text, "annotations:")
    done = mpigen_in_process("render", "big.yaml", "--stdout", "--target", target, cwd=tmp_path, env=env(), text=True)
    assert done.returncode == 2, done.stderr[:2000]
    (only,) = done.stderr.splitlines()
    assert only.startswith(f"big.yaml:{line}:{column}: error: metadata.annotations: the "), only[:500]
    assert "300,005 bytes of annotations" in only and "262,144" in only and done.stdout == ""
