"""Which job each listed object belongs to (mpigen.status.grouping) and what `mpigen status`
lists (mpigen.status.reads): by the label mpigen.dev/job where the objects carry it, and by
ownerReferences where the controllers create objects that do not (JobSet v0.12.0
jobset_controller.go `constructJob` and the Trainer v2.3.0 JobSet plugin `Build` copy no
label of mpigen's onto child Jobs and the Trainer's JobSet; kubeflow/mpi-operator caa3c47
`newWorker` and `newLauncherJob` give the MPIJob's pods and launcher Job its templates'
labels, which mpigen's mpijob target does not label; Kueue v0.19.2 `constructWorkload` labels
a Workload with none of the job's). The objects are the controllers' (tests.support.status_world)."""

from __future__ import annotations

import copy

import pytest
import yaml

from mpigen.kube.labels import JOB_LABEL
from mpigen.status.grouping import group
from mpigen.status.reads import READS, reads
from tests.support.paths import ROOT
from tests.support.status_world import world

TARGETS = ("static", "mpijob", "jobset", "trainjob")
GOLDEN = ROOT / "golden"
TEMPLATE_KINDS = {"static": {"StatefulSet", "Job"}, "jobset": {"JobSet"}, "trainjob": {"TrainingRuntime"},
                  "mpijob": {"MPIJob"}}


def renamed(objects: list[dict], job: str, namespace: str) -> list[dict]:
    """The same objects as another job's (its label and names), or in another namespace."""
    out = copy.deepcopy(objects)
    for obj in out:
        meta = obj["metadata"]
        meta["namespace"] = namespace
        meta["uid"] = f"{namespace}/{job}/{meta['uid']}"
        for ref in meta.get("ownerReferences") or []:
            ref["uid"] = f"{namespace}/{job}/{ref['uid']}"
        if JOB_LABEL in (meta.get("labels") or {}):
            meta["labels"][JOB_LABEL] = job
    return out


@pytest.mark.parametrize("target", TARGETS)
def test_every_object_of_a_job_is_its_own_and_no_other_jobs(target):
    here = world(target, "running", queued=True)
    wanted = here.rendered.wanted
    other = wanted.__class__(wanted.environment, target, wanted.watched._replace(job="other"))
    elsewhere = wanted.__class__(wanted.environment, target, wanted.watched._replace(namespace="dev"))
    listed = here.objects + renamed(here.objects, "other", "ml") + renamed(here.objects, "train", "dev")
    unrelated = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "namespace": "ml", "uid": "u"}}
    seen = group([wanted, other, elsewhere], listed + [unrelated])
    assert seen[("ml", "train")].objects == here.objects
    assert len(seen[("ml", "other")].objects) == len(seen[("dev", "train")].objects) == len(here.objects)
    kinds = {o["kind"] for o in here.objects}
    assert {"Pod", "Workload"} <= kinds and unrelated not in sum((s.objects for s in seen.values()), [])


def test_objects_without_the_label_are_reached_through_their_owners():
    """What the controllers create unlabelled: the MPI Operator's pods and launcher Job, the
    JobSet's child Jobs, the Trainer's JobSet, the Workloads."""
    unlabelled = set()
    for target in TARGETS:
        for obj in world(target, "running", queued=True).objects:
            if JOB_LABEL not in (obj["metadata"].get("labels") or {}):
                unlabelled.add((target, obj["kind"]))
    assert unlabelled >= {("mpijob", "Pod"), ("mpijob", "Job"), ("jobset", "Job"), ("trainjob", "JobSet"),
                          ("trainjob", "Job"), ("static", "Workload"), ("jobset", "Workload")}
    for target, kind in unlabelled:  # each read whole (the Trainer's Secret and ConfigMap are not read)
        read = next((r for r in reads({target}) if r.kind == kind), None)
        assert read is None and kind in ("Secret", "ConfigMap") or not read.labelled, (target, kind)


def pod_templates(obj, path=()):
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key == "template" and isinstance(value, dict) and "containers" in (value.get("spec") or {}):
                yield value
            yield from pod_templates(value, (*path, key))
    elif isinstance(obj, list):
        for item in obj:
            yield from pod_templates(item, path)


@pytest.mark.parametrize("target", TARGETS)
def test_the_golden_pod_templates_carry_the_job_label_except_the_mpijobs(target):
    """The fact the reads rely on: pods are listed by the label for static, jobset and trainjob
    (their templates carry it into the pods), and whole for mpijob."""
    folder = "mpijob-v2beta1" if target == "mpijob" else target
    labelled = []
    for path in sorted((GOLDEN / folder).rglob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if doc and doc.get("kind") in TEMPLATE_KINDS[target]:
                labelled += [JOB_LABEL in (t.get("metadata") or {}).get("labels", {}) for t in pod_templates(doc)]
    assert labelled
    assert all(labelled) if target != "mpijob" else not all(labelled)
    pod = next(r for r in reads({target}) if r.kind == "Pod")
    assert pod.labelled == (target != "mpijob")


def test_one_list_call_per_kind():
    assert len({r.kind for r in READS}) == len(READS)
    assert {r.kind for r in READS} == {"StatefulSet", "Job", "Pod", "JobSet", "TrainJob", "MPIJob", "Workload"}
    assert [r.kind for r in reads({"static"}, queued=False)] == ["StatefulSet", "Job", "Pod"]
    assert all(r.labelled for r in reads({"static"}, queued=False))
    assert next(r for r in reads({"mpijob"}, "kubeflow.org/v1")).api_version == "kubeflow.org/v1"
