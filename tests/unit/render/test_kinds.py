"""The per-kind facts of the table (mpigen.render.targets.kind_facts) against what they describe:
a blueprint rendered with each target asks of the cluster the pods, GPUs, MPI slots and
workers the blueprint says; every kind a target writes is in the table, declared by the target
unless it is Kubernetes' own; and Kubernetes' own kinds have the REST paths the kubernetes
client (generated from Kubernetes' OpenAPI) requests."""

from __future__ import annotations

from pathlib import Path

import kubernetes
import pytest

from mpigen.kube.accelerators import is_accelerator
from mpigen.render.kinds import KUBERNETES, group_of, hostfile_slots
from mpigen.render.mpijob.crd import new_crd
from mpigen.render.targets import KINDS, TARGETS, kind_facts
from tests.support.blueprints import blueprint_text
from tests.support.rendering import render_text

# Blueprints, by what they say: (workers, GPUs per worker, slots per worker or None, launcher runs ranks).
BLUEPRINTS = [(3, 2, None, False), (2, 0, 4, False), (4, 8, 2, False), (2, 1, None, True)]
# Pods a target runs besides the workers and the launcher: the jobset target's key generator Job.
EXTRA_PODS = {"static": 0, "mpijob": 0, "jobset": 1, "trainjob": 0}


def rendered(target: str, workers: int, gpus: int, slots: int | None, launcher_works: bool, **spec) -> list[dict]:
    text = blueprint_text("train", namespace="team", workers=workers, gpusPerWorker=gpus, slotsPerWorker=slots,
                          launcher={"runAsWorker": True} if launcher_works else None, **spec)
    return render_text(text, target=target)


def counted(objects: list[dict]) -> tuple[int, int, int, int]:
    """(pods, GPUs, slots, workers) of a render, as the table's facts count them."""
    def find(group: str, kind: str, namespace: str, name: str) -> dict | None:
        return next((o for o in objects if (group_of(o["apiVersion"]), o["kind"], o["metadata"]["name"])
                     == (group, kind, name)), None)

    pods = gpus = slots = workers = 0
    for obj in objects:
        facts = kind_facts(obj["apiVersion"], obj["kind"])
        for count, pod in facts.pods(obj, find) if facts.pods else []:
            pods += count
            gpus += count * sum(int(value) for container in pod.get("containers", [])
                                for name, value in container.get("resources", {}).get("limits", {}).items()
                                if is_accelerator(name))
        slots += facts.slots(obj, find) if facts.slots else 0
        workers += facts.workers(obj, find) if facts.workers else 0
    return pods, gpus, slots, workers


# The trainjob target's launcher runs no ranks: its checks refuse runAsWorker.
CASES = [(target, *case) for target in sorted(TARGETS) for case in BLUEPRINTS
         if not (case[3] and target == "trainjob")]


@pytest.mark.parametrize("target, workers, gpus, slots, launcher_works", CASES)
def test_a_render_asks_what_its_blueprint_says(target, workers, gpus, slots, launcher_works):
    per_host = slots if slots is not None else gpus or 1
    # An MPIJob's slots are slotsPerWorker per worker, as the diff has always counted them (the
    # operator's hostfile also lists a launcher that runs ranks).
    hosts = workers + (1 if launcher_works and target != "mpijob" else 0)
    launcher_gpus = gpus if launcher_works else 0
    expected = (workers + 1 + EXTRA_PODS[target], workers * gpus + launcher_gpus, hosts * per_host, workers)
    assert counted(rendered(target, workers, gpus, slots, launcher_works)) == expected


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("scheduler", ["volcano", "scheduler-plugins", "kube-batch"])
def test_every_kind_a_target_writes_is_its_own_or_kubernetes(target, scheduler):
    objects = rendered(target, 2, 1, None, False, scheduling={"gang": {"scheduler": scheduler}},
                       datasets=[{"name": "data", "mountPath": "/data", "pvc": "data"}])
    own = {(kind.group, kind.kind) for kind in KUBERNETES + TARGETS[target].kinds}
    assert {(group_of(o["apiVersion"]), o["kind"]) for o in objects} <= own


def test_no_two_entries_describe_one_kind():
    declared = [*KUBERNETES, *(kind for target in TARGETS.values() for kind in target.kinds)]
    for kind in declared:
        assert KINDS[kind.group, kind.kind] is kind


@pytest.mark.parametrize("kind", KUBERNETES, ids=lambda kind: kind.kind)
def test_kubernetes_kinds_have_the_clients_rest_paths(kind):
    client_api = Path(kubernetes.__file__).parent / "client" / "api"
    version = "/api/v1" if kind.group == "" else f"/apis/{kind.group}/v1"
    path = f"{version}/{kind.plural}" if kind.cluster_scoped else f"{version}/namespaces/{{namespace}}/{kind.plural}"
    assert any(f"'{path}'" in source.read_text() for source in client_api.glob("*_api.py"))


def test_the_mpijob_kind_is_the_crds():
    crd = new_crd("kubeflow.org/v2beta1")
    facts = kind_facts("kubeflow.org/v2beta1", "MPIJob")
    assert (facts.group, facts.plural, facts.cluster_scoped) == (crd["spec"]["group"], crd["spec"]["names"]["plural"],
                                                                crd["spec"]["scope"] == "Cluster")


def test_a_hostfile_counts_each_mpis_syntax():
    assert hostfile_slots("a slots=4\nb:2\nc\n# comment\n\n  d slots=3 max_slots=8  # inline\n") == 10


def test_the_validators_answer_for_the_versions_they_know():
    mpijob, jobset = kind_facts("kubeflow.org/v1", "MPIJob"), kind_facts("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert mpijob.schema("kubeflow.org/v1", "1.30") == \
        new_crd("kubeflow.org/v1", "1.30")["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert mpijob.schema("kubeflow.org/v1alpha2", "1.30") is None
    assert jobset.model("jobset.x-k8s.io/v1alpha2").__name__ == "JobsetV1alpha2JobSet"
    assert jobset.model("jobset.x-k8s.io/v1alpha1") is None
