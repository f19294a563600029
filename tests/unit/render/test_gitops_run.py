"""The GitOps run identity, seen from outside (shared/reference/gitops.md, G and H): what
changes a run, on every target, and the name rule against the limits Kubernetes sets on
the names derived from the job's (a pod name is a DNS-1123 label, 63 characters; a
StatefulSet's pods carry controller-revision-hash=<statefulset>-<10 characters>, a label
value of at most 63, so a StatefulSet name may have 52: kubernetes#64023; the JobSet
webhook counts a pod name with the 5 characters Kubernetes adds)."""

from __future__ import annotations

import hashlib
import json

import pytest

from mpigen.check.run_names import name_room
from mpigen.compile.blueprint import compile_blueprint
from mpigen.formats.blueprint import Blueprint
from mpigen.kube.labels import RUN_LABEL
from mpigen.render.gitops import run_id
from mpigen.render.parts.replicated import longest_pod_name
from mpigen.render.target import Lifecycle, Options
from mpigen.render.targets import TARGETS, render_job

LABEL_VALUE = 63  # k8s.io/apimachinery validation.go: LabelValueMaxLength, DNS1123LabelMaxLength
REVISION_HASH = 10  # the controller-revision-hash suffix: "-" and at most 10 characters (kubernetes#64023)


def blueprint(name: str = "job", labels: dict | None = None, image: str = "example.com/train:1",
              workers: int = 2) -> Blueprint:
    return Blueprint.model_validate({
        "apiVersion": "mpigen.dev/v1alpha1", "kind": "MPIJobBlueprint",
        "metadata": {"name": name, "namespace": "team", "labels": labels or {}},
        "spec": {"image": image, "workers": workers}})


def rendered(bp: Blueprint, target: str, gitops: str = "argocd", run: str | None = None) -> list[dict]:
    return render_job(compile_blueprint(bp), Options(target=target, gitops=gitops), Lifecycle(run=run))


def run_of(objects: list[dict]) -> str:
    (run,) = {obj["metadata"]["labels"][RUN_LABEL] for obj in objects if RUN_LABEL in obj["metadata"]["labels"]}
    return run


@pytest.mark.parametrize("target", TARGETS)
def test_a_label_edit_keeps_the_run_and_its_objects_names(target):
    before = rendered(blueprint(), target)
    after = rendered(blueprint(labels={"team": "vision"}), target)
    assert run_of(before) == run_of(after)
    assert [o["metadata"]["name"] for o in before] == [o["metadata"]["name"] for o in after]
    assert all(o["metadata"]["labels"].get("team") == "vision" for o in after if o["kind"] != "ClusterTrainingRuntime")


@pytest.mark.parametrize("target", TARGETS)
def test_a_spec_edit_or_spec_run_is_a_new_run_with_objects_of_its_own(target):
    first = run_of(rendered(blueprint(), target))
    edited = run_of(rendered(blueprint(image="example.com/train:2"), target))
    again = run_of(rendered(blueprint(), target, run="second"))
    assert len({first, edited, again}) == 3
    for run in (first, edited, again):
        assert len(run) == 6 and int(run, 16) >= 0
    names = {o["metadata"]["name"] for o in rendered(blueprint(), target, run="second")}
    assert any(name.startswith(f"job-{again}") for name in names), names


def test_an_object_without_kueue_keys_keeps_the_run_it_had_before_they_counted():
    """The run of objects whose metadata holds none of the keys Kueue keeps is the hash of the
    objects without their metadata, as every mpigen release before them wrote it: upgrading
    starts no new run of such a job. Kueue's queue (kueue.x-k8s.io/queue-name, Kueue v0.19.2
    pkg/controller/jobframework/validation.go validateUpdateForQueueName) counts."""
    objects = [{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "a", "labels": {"team": "x"}},
                "spec": {"parallelism": 1}}]
    before = json.dumps({"objects": [{"apiVersion": "batch/v1", "kind": "Job", "spec": {"parallelism": 1}}],
                         "run": None}, sort_keys=True, separators=(",", ":"))
    assert run_id(objects, None) == hashlib.sha256(before.encode("utf-8")).hexdigest()[:6]
    queued = [{**objects[0], "metadata": {"name": "a", "labels": {"kueue.x-k8s.io/queue-name": "q"}}}]
    other = [{**objects[0], "metadata": {"name": "a", "labels": {"kueue.x-k8s.io/queue-name": "r"}}}]
    assert len({run_id(objects, None), run_id(queued, None), run_id(other, None)}) == 3


@pytest.mark.parametrize("target", TARGETS)
def test_without_a_profile_there_is_no_run(target):
    objects = rendered(blueprint(), target, gitops="none")
    assert not any(RUN_LABEL in o["metadata"]["labels"] for o in objects)


@pytest.mark.parametrize("workers", [1, 3, 12])
def test_the_statefulset_of_a_name_of_the_room_is_exactly_at_kubernetes_limit(workers):
    room = name_room("job", len("job-worker"), LABEL_VALUE - 1 - REVISION_HASH, "argocd")
    assert room == 38
    (statefulset,) = [o for o in rendered(blueprint("j" * room, workers=workers), "static")
                      if o["kind"] == "StatefulSet"]
    assert len(f"{statefulset['metadata']['name']}-{'h' * REVISION_HASH}") == LABEL_VALUE
    (longer,) = [o for o in rendered(blueprint("j" * (room + 1), workers=workers), "static")
                 if o["kind"] == "StatefulSet"]
    assert len(f"{longer['metadata']['name']}-{'h' * REVISION_HASH}") == LABEL_VALUE + 1


@pytest.mark.parametrize("workers", [1, 3, 12, 1000])
def test_the_last_worker_pod_of_a_name_of_the_room_is_exactly_a_dns_label(workers):
    room = name_room("job", len(f"job-worker-{workers - 1}"), LABEL_VALUE, "flux")
    assert room == LABEL_VALUE - 7 - len(f"-worker-{workers - 1}")
    (statefulset,) = [o for o in rendered(blueprint("j" * room, workers=workers), "static", "flux")
                      if o["kind"] == "StatefulSet"]
    assert len(f"{statefulset['metadata']['name']}-{workers - 1}") == LABEL_VALUE


@pytest.mark.parametrize("workers", [1, 4, 100])
def test_the_jobset_pods_of_a_name_of_the_room_are_what_the_jobset_webhook_allows(workers):
    name = "job"
    longest = max(longest_pod_name(name, "worker", workers), longest_pod_name(name, "launcher", 1))
    room = name_room(name, longest, LABEL_VALUE, "argocd")
    (jobset,) = [o for o in rendered(blueprint("j" * room, workers=workers), "jobset") if o["kind"] == "JobSet"]
    pods = [f"{jobset['metadata']['name']}-{rj['name']}-0-{rj['template']['spec']['completions'] - 1}"
            for rj in jobset["spec"]["replicatedJobs"]]
    assert max(len(pod) + 5 + 1 for pod in pods) == LABEL_VALUE


def test_the_room_is_the_same_name_rule_without_a_profile_less_the_run():
    assert name_room("job", 20, LABEL_VALUE, "none") - name_room("job", 20, LABEL_VALUE, "argocd") == 7
