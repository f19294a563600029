"""A job of each target rendered from its blueprint (tests.support.status_wanted) and the
cluster's objects of it at a moment of its life (tests.support.status_moments), as its
controllers and Kueue write them (status_jobset_world, status_operator_world,
status_objects), with the Workload of each object Kueue manages (the ones with the queue
label: the static target's launcher Job and workers StatefulSet, the others' job) and the
position the visibility API gives a pending one. A queued job that Git stops has no objects:
its render has none (mpigen.render.kueue) and the GitOps controller pruned them. `stale`
adds an older run's objects, running (a GitOps profile's run names differ by spec.run). Kueue
makes no Workload of a kubeflow.org/v1 MPIJob: its MPIJob integration is v2beta1's alone (Kueue
v0.19.2 pkg/controller/jobs/mpijob/mpijob_controller.go imports mpi-operator's v2beta1)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from mpigen.compile.mpijob import V1
from mpigen.kube.labels import KUEUE_QUEUE_LABEL
from tests.support.status_jobset_world import jobset_world, trainjob_world
from tests.support.status_moments import BY_KUEUE, git_state
from tests.support.status_objects import live, workload
from tests.support.status_operator_world import mpijob_world, static_world
from tests.support.status_training_operator_world import mpijob_v1_world
from tests.support.status_wanted import QUEUE, Rendered, render

POSITION = 3  # the pending Workload's positionInLocalQueue


@dataclass
class World:
    rendered: Rendered
    objects: list[dict] = field(default_factory=list)
    positions: dict[str, int] = field(default_factory=dict)


def objects_at(target: str, objects: list[dict], moment: str, queued: bool) -> list[dict]:
    """The cluster's objects of one run at `moment`, Workloads included."""
    if moment == "absent" or not objects:
        return []
    if target == "static":
        world = static_world(objects, moment)
    elif target == "mpijob" and any(o["apiVersion"] == V1 for o in objects if o["kind"] == "MPIJob"):
        world = mpijob_v1_world(objects, moment)
    elif target == "mpijob":
        world = mpijob_world(objects, moment, queued)
    elif target == "jobset":
        js = next(o for o in objects if o["kind"] == "JobSet")
        world = [live(copy.deepcopy(o)) for o in objects if o is not js] + jobset_world(js, moment, queued)
    else:
        world = trainjob_world(objects, moment, queued)
    if queued:
        managed = [o for o in world if KUEUE_QUEUE_LABEL in (o["metadata"].get("labels") or {})
                   and o["kind"] in ("Job", "StatefulSet", "JobSet", "TrainJob", "MPIJob") and o["apiVersion"] != V1]
        world += [workload(o, QUEUE, BY_KUEUE.get(moment, "admitted")) for o in managed]
    return world


def world(target: str, moment: str, queued: bool = False, stale: bool = False, mpijob_api: str | None = None) -> World:
    """`mpijob_api`: the mpijob target's --mpijob-api (kubeflow.org/v1: the training-operator's)."""
    gitops, run = ("argocd", "2") if stale else ("none", None)
    rendered = render(target, git_state(moment), queued, gitops, run, mpijob_api)
    here = World(rendered, objects_at(target, rendered.objects, moment, queued))
    if moment == "queued":
        here.positions = {o["metadata"]["name"]: POSITION for o in here.objects if o["kind"] == "Workload"}
    if stale:
        older = render(target, "running", queued, gitops, "1")
        here.objects = objects_at(target, older.objects, "running", queued) + here.objects
    return here
