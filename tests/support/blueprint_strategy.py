"""Hypothesis strategies of blueprints across the space a user can write, for the property that
an accepted blueprint renders objects the cluster accepts (tests/acceptance/test_accepted_objects.py).

`blueprints()` draws a blueprint (as the dict of tests/support/blueprints.blueprint) from the
fields that decide what the objects hold and how large they are: the name and namespace (at
their limits too), labels and annotations (keys with a name part or prefix at the limit of
IsQualifiedName), workers (a few, or enough to reach a hostfile's 1 MiB), slots, accelerators
and resources (names at their limits), MPI implementation and framework, the environment (a
few variables, or a megabyte of them), datasets, pod patches, the launcher as a worker, host
network, queueing and the run policy. Most draws are valid; some are not, on purpose, so that
refusals are drawn too. `renders()` adds the target and GitOps profile of the run.
"""

from __future__ import annotations

from typing import NamedTuple

from hypothesis import strategies as st

from tests.support.blueprints import blueprint

NAMES = st.integers(0, 7).flatmap(lambda n: st.integers(48, 63).map(lambda n: "j" * n) if n == 0 else st.sampled_from(
    ["train", "a", "bert-large-2", "j" * 30]))
NAMESPACES = st.sampled_from([None, "default", "ml-team", "n" * 63])


def mostly(valid: list, invalid: list) -> st.SearchStrategy:
    """One of `valid`, or now and then (one draw in sixteen) one of `invalid`."""
    return st.integers(0, 15).flatmap(lambda n: st.sampled_from(invalid if n == 0 else valid))


PREFIX_OF_253 = ("a" * 63 + ".") * 3 + "a" * 61
KEYS = mostly(["team", "example.com/owner", "k" * 63, "example.com/" + "k" * 63, PREFIX_OF_253 + "/k"],
              ["k" * 64, "example.com/" + "k" * 64])
RESOURCE_NAMES = mostly(["example.com/fpga", "a" * 244 + "/r", "example.com/" + "r" * 63],
                        ["a" * 245 + "/r", "example.com/" + "r" * 64, "requests.example.com/r"])
GPU_RESOURCES = mostly([None, "nvidia.com/gpu", "amd.com/gpu", "nvidia.com/mig-1g.5gb"], ["nvidia.com/" + "g" * 64])
HUGE = "x" * 60_000
DATASETS = [
    {"name": "data", "mountPath": "/data", "pvc": "imagenet", "accessMode": "ReadOnlyMany"},
    {"name": "ckpt", "mountPath": "/ckpt", "readOnly": False, "pvc": "ckpt", "accessMode": "ReadWriteMany"},
    {"name": "nfs", "mountPath": "/nfs", "nfs": {"server": "fs.example.com", "path": "/exports/x"}},
    {"name": "scratch", "mountPath": "/scratch", "readOnly": False, "hostPath": "/mnt/scratch"},
    {"name": "conf", "mountPath": "/conf", "configMap": "train-config"},
    {"name": "dl", "mountPath": "/dl", "nfs": {"server": "fs.example.com", "path": "/dl"},
     "download": {"image": "example.com/aws:2", "command": ["sync", "/dl"]}},
]
POD_PATCHES = [
    {"priorityClassName": "high"}, {"terminationGracePeriodSeconds": 30},
    {"hostAliases": [{"ip": "10.0.0.1", "hostnames": ["store"]}]},
    {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
                                    "labelSelector": {"matchLabels": {"app": "x"}}}]},
]
# About 900 kB of pod patch: with the launcher's, a JobSet or MPIJob over etcd's 1.5 MiB.
MANY_ALIASES = {"hostAliases": [{"ip": f"10.0.{i // 250}.{i % 250}", "hostnames": [f"h{i}-" + "x" * 200]}
                                for i in range(4_000)]}
CONTAINER_PATCHES = [{"workingDir": "/workspace"}, {"readinessProbe": {"exec": {"command": ["true"]}}},
                     {"lifecycle": {"preStop": {"exec": {"command": ["sleep", "1"]}}}}]
GITOPS = ("none", "argocd", "flux")
TARGET_RUNS = (("static",), ("jobset",), ("trainjob",), ("mpijob",), ("mpijob", "--mpijob-api", "kubeflow.org/v1"))


class Render(NamedTuple):
    """A blueprint, and the options of the run that renders it."""

    blueprint: dict
    options: tuple[str, ...]


@st.composite
def blueprints(draw) -> dict:
    spec: dict = {"workers": draw(mostly([1, 2, 3, 4, 6, 64], [4_700, 9_000, 11_000]))}
    _accelerators(draw, spec)
    if draw(st.integers(0, 3)) == 0:
        spec["mpiImplementation"] = draw(st.sampled_from(["OpenMPI", "IntelMPI", "MPICH"]))
    if draw(st.booleans()):
        spec["framework"] = draw(st.sampled_from(["horovod", "deepspeed", "pytorch", "custom"]))
    spec["env"] = draw(mostly([{}, {"NCCL_DEBUG": "INFO"}], [{f"BIG_{i}": HUGE for i in range(14)}]))
    if draw(st.booleans()):
        spec["datasets"] = draw(st.lists(st.sampled_from(DATASETS), unique_by=lambda d: d["name"], max_size=3))
    _patches(draw, spec)
    if draw(st.integers(0, 3)) == 0:
        spec["launcher"] = {"runAsWorker": True}
    if draw(st.integers(0, 7)) == 0:
        spec["network"] = {"hostNetwork": True}
    if draw(st.booleans()):
        spec["scheduling"] = {"queue": "team-a"}
    if draw(st.integers(0, 9)) == 0:
        spec["runPolicy"] = {"ttlSecondsAfterFinished": draw(mostly([600, 2**31 - 1], [2**31]))}
    labels = draw(st.dictionaries(KEYS, st.sampled_from(["v", "x" * 63]), max_size=2))
    annotations = draw(st.dictionaries(KEYS, mostly(["v", "y" * 1000], ["z" * 300_000]), max_size=1))
    return blueprint(draw(NAMES), labels, annotations, namespace=draw(NAMESPACES), **spec)


def _accelerators(draw, spec: dict) -> None:
    """GPUs and slots, and resources whose names are at IsQualifiedName's limits or beyond."""
    gpus = draw(st.sampled_from([0, 0, 1, 8]))
    if gpus:
        spec["gpusPerWorker"] = gpus
        if (resource := draw(GPU_RESOURCES)) is not None:
            spec["gpuResource"] = resource
    if draw(st.booleans()):
        spec["slotsPerWorker"] = draw(st.sampled_from([1, 2, 8]))
    worker = {"cpu": "2", "memory": "4Gi"}
    if draw(st.integers(0, 3)) == 0:
        worker[draw(RESOURCE_NAMES)] = 1
    spec["resources"] = {"worker": worker, "launcher": {"cpu": "1", "memory": "2Gi"}}


def _patches(draw, spec: dict) -> None:
    """podTemplatePatch of either role: small patches, or hundreds of kilobytes of host aliases."""
    patch = {}
    for role in draw(st.lists(st.sampled_from(["launcher", "worker"]), unique=True, max_size=2)):
        pod = draw(mostly(POD_PATCHES, [MANY_ALIASES]))
        patch[role] = {"pod": pod, "container": draw(st.sampled_from(CONTAINER_PATCHES))}
    if patch:
        spec["podTemplatePatch"] = patch


@st.composite
def renders(draw) -> Render:
    """A blueprint, every target (the mpijob target at both APIs) and every GitOps profile."""
    target = draw(st.sampled_from(TARGET_RUNS))
    options = ("--target", *target, "--gitops", draw(st.sampled_from(GITOPS)))
    return Render(draw(blueprints()), options)
