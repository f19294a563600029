"""Hypothesis strategies of blueprints across the space a user can write, for the property that
an accepted blueprint renders objects the cluster accepts (tests/acceptance/test_accepted_objects.py).

`blueprints()` draws a blueprint (as the dict of tests/support/blueprints.blueprint) from the
fields that decide what the objects hold and how large they are: the name and namespace (at
their limits too), labels and annotations (keys with a name part or prefix at the limit of
IsQualifiedName), workers (a few, or enough to reach a hostfile's 1 MiB), slots, accelerators
and resources (names at their limits), MPI implementation and framework, the environment (a
few variables, or a megabyte of them), datasets, pod patches, the launcher as a worker, host
network, queueing and the run policy. Three blueprints in four keep every field within its
limits; the fourth may take values at or beyond them, so that refusals are drawn too.
`renders()` adds the target and GitOps profile of the run.
"""

from __future__ import annotations

from typing import NamedTuple

from hypothesis import strategies as st

from tests.support.blueprints import blueprint



class Choice(NamedTuple):
    """The values of one field: those within every limit, and those at or beyond one (too long,
    too large, too many), which only a blueprint drawn to test the limits gets."""

    within: list
    beyond: list


PREFIX_OF_253 = ("a" * 63 + ".") * 3 + "a" * 61
NAMES = Choice(["train", "a", "bert-large-2", "j" * 30], ["j" * n for n in (47, 54, 55, 56, 63)])
NAMESPACES = Choice([None, "default", "ml-team", "n" * 63], [])
KEYS = Choice(["team", "example.com/owner", "k" * 63, "example.com/" + "k" * 63, PREFIX_OF_253 + "/k"],
              ["k" * 64, "example.com/" + "k" * 64])
RESOURCE_NAMES = Choice(["example.com/fpga", "a" * 244 + "/r", "example.com/" + "r" * 63],
                        ["a" * 245 + "/r", "example.com/" + "r" * 64, "requests.example.com/r"])
GPU_RESOURCES = Choice([None, "nvidia.com/gpu", "amd.com/gpu", "nvidia.com/mig-1g.5gb"], ["nvidia.com/" + "g" * 64])
WORKERS = Choice([1, 2, 3, 4, 6, 64], [4_600, 4_700, 8_700, 9_000, 11_000])
HUGE = "x" * 60_000
ENV = Choice([{}, {"NCCL_DEBUG": "INFO"}], [{f"BIG_{i}": HUGE for i in range(14)}])
TTL = Choice([600, 2**31 - 1], [2**31])
ANNOTATION_VALUES = Choice(["v", "y" * 1000], ["z" * 300_000])
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
# runPolicy.failurePolicy: every action, both requirements, a named container of one role or
# of every target's, the most exit codes and rules; beyond: what the API server refuses.
FAILURE_POLICIES = Choice(
    [{"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [3]}}]},
     {"disruptions": "Restart", "rules": [
         {"action": "RestartWithoutCounting", "onExitCodes": {"operator": "NotIn", "values": [0, 1],
                                                               "containerName": "mpi-launcher"}},
         {"action": "Ignore", "onPodConditions": [{"type": "example.com/Flaky", "status": "Unknown"}]},
         {"action": "Restart", "onExitCodes": {"operator": "In", "values": list(range(1, 256))}}]},
     {"disruptions": "FailJob", "rules": [{"action": "RestartWithoutCounting",
                                           "onExitCodes": {"operator": "In", "values": [75], "containerName": "node"}}]},
     {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [i]}} for i in range(1, 20)]}],
    [{"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [0]}}]},
     {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [2, 1]}}]},
     {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [i]}} for i in range(1, 21)]}])
GITOPS = ("none", "argocd", "flux")
TARGET_RUNS = (("static",), ("jobset",), ("trainjob",), ("mpijob",), ("mpijob", "--mpijob-api", "kubeflow.org/v1"))


class Render(NamedTuple):
    """A blueprint, and the options of the run that renders it."""

    blueprint: dict
    options: tuple[str, ...]


@st.composite
def blueprints(draw) -> dict:
    """A blueprint within every limit, or (one in four) one whose fields may be at or beyond them."""
    beyond = draw(st.integers(0, 3)) == 0

    def pick(choice: Choice) -> st.SearchStrategy:
        return st.sampled_from(choice.within + (choice.beyond if beyond else []))

    spec: dict = {"workers": draw(pick(WORKERS)), "env": draw(pick(ENV))}
    _accelerators(draw, pick, spec)
    if draw(st.integers(0, 3)) == 0:
        spec["mpiImplementation"] = draw(st.sampled_from(["OpenMPI", "IntelMPI", "MPICH"]))
    if draw(st.booleans()):
        spec["framework"] = draw(st.sampled_from(["horovod", "deepspeed", "pytorch", "custom"]))
    if draw(st.booleans()):
        spec["datasets"] = draw(st.lists(st.sampled_from(DATASETS), unique_by=lambda d: d["name"], max_size=3))
    _patches(draw, beyond, spec)
    if draw(st.integers(0, 3)) == 0:
        spec["launcher"] = {"runAsWorker": True}
    if draw(st.integers(0, 7)) == 0:
        spec["network"] = {"hostNetwork": True}
    if draw(st.booleans()):
        spec["scheduling"] = {"queue": "team-a"}
    if draw(st.integers(0, 9)) == 0:
        spec["runPolicy"] = {"ttlSecondsAfterFinished": draw(pick(TTL))}
    if draw(st.integers(0, 3)) == 0:
        spec.setdefault("runPolicy", {})["failurePolicy"] = draw(pick(FAILURE_POLICIES))
    labels = draw(st.dictionaries(pick(KEYS), st.sampled_from(["v", "x" * 63]), max_size=2))
    annotations = draw(st.dictionaries(pick(KEYS), pick(ANNOTATION_VALUES), max_size=1))
    return blueprint(draw(pick(NAMES)), labels, annotations, namespace=draw(pick(NAMESPACES)), **spec)


def _accelerators(draw, pick, spec: dict) -> None:
    """GPUs and slots, and resources whose names are at IsQualifiedName's limits or beyond."""
    gpus = draw(st.sampled_from([0, 0, 1, 8]))
    if gpus:
        spec["gpusPerWorker"] = gpus
        if (resource := draw(pick(GPU_RESOURCES))) is not None:
            spec["gpuResource"] = resource
    if draw(st.booleans()):
        spec["slotsPerWorker"] = draw(st.sampled_from([1, 2, 8]))
    worker = {"cpu": "2", "memory": "4Gi"}
    if draw(st.integers(0, 3)) == 0:
        worker[draw(pick(RESOURCE_NAMES))] = 1
    spec["resources"] = {"worker": worker, "launcher": {"cpu": "1", "memory": "2Gi"}}


def _patches(draw, beyond: bool, spec: dict) -> None:
    """podTemplatePatch of either role: small patches, or (beyond the limits) hundreds of
    kilobytes of host aliases."""
    patch = {}
    for role in draw(st.lists(st.sampled_from(["launcher", "worker"]), unique=True, max_size=2)):
        pod = draw(st.sampled_from(POD_PATCHES + ([MANY_ALIASES] if beyond else [])))
        patch[role] = {"pod": pod, "container": draw(st.sampled_from(CONTAINER_PATCHES))}
    if patch:
        spec["podTemplatePatch"] = patch


@st.composite
def renders(draw) -> Render:
    """A blueprint, every target (the mpijob target at both APIs) and every GitOps profile."""
    target = draw(st.sampled_from(TARGET_RUNS))
    options = ("--target", *target, "--gitops", draw(st.sampled_from(GITOPS)))
    return Render(draw(blueprints()), options)
