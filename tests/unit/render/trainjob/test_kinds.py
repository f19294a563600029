"""The TrainJob's immutable paths (mpigen.render.trainjob.kinds), on a TrainJob the trainjob
target renders, against what Kubeflow Trainer v2.3.0 refuses: CEL `self == oldSelf` on
runtimeRef, initializer, trainer, activeDeadlineSeconds and managedBy
(pkg/apis/trainer/v1alpha1/trainjob_types.go), a transition rule the API server runs only when
both objects have the field, on values after the CRD's defaults (managedBy
trainer.kubeflow.org/trainjob-controller; runtimeRef apiGroup trainer.kubeflow.org and kind
ClusterTrainingRuntime); runtimePatches, which the webhook lets change only while the old or
the new TrainJob is suspended (pkg/runtime/framework/plugins/jobset/jobset.go
checkRuntimePatchesImmutability), and then not a patched job's containers (CEL on PodSpecPatch)."""

from __future__ import annotations

import copy

from mpigen.render.trainjob.kinds import TRAINJOB
from tests.support.blueprints import blueprint_text
from tests.support.rendering import render_text

RENDERED = next(o for o in render_text(blueprint_text("train", namespace="team", workers=2), target="trainjob")
                if o["kind"] == "TrainJob")


def edited(edit) -> dict:
    obj = copy.deepcopy(RENDERED)
    edit(obj)
    return obj


def patches(node_selector: dict, image: str, suspend: bool = False):
    """The TrainJob with one runtimePatches entry patching job node, suspended or not."""
    pod = {"nodeSelector": node_selector, "containers": [{"name": "node", "image": image}]}
    job = {"name": "node", "template": {"spec": {"template": {"spec": pod}}}}

    def edit(obj):
        obj["spec"]["runtimePatches"] = [{"manager": "example.com/mine", "time": "2026-01-01T00:00:00Z",
                                          "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [job]}}}}]
        if suspend:
            obj["spec"]["suspend"] = True
    return edit


def test_the_trainer_is_immutable():
    new = edited(lambda obj: obj["spec"]["trainer"].update(numNodes=4))
    assert TRAINJOB.immutable(RENDERED, new) == ["spec.trainer"]


def test_suspend_may_change():
    assert TRAINJOB.immutable(RENDERED, edited(lambda obj: obj["spec"].update(suspend=True))) == []


def test_defaults_written_out_are_no_change():
    def defaults(obj):
        obj["spec"]["managedBy"] = "trainer.kubeflow.org/trainjob-controller"

    assert TRAINJOB.immutable(RENDERED, edited(defaults)) == []
    assert TRAINJOB.immutable(edited(lambda obj: obj["spec"]["runtimeRef"].pop("apiGroup")), RENDERED) == []


def test_a_field_only_one_side_has_is_no_transition():
    assert TRAINJOB.immutable(RENDERED, edited(lambda obj: obj["spec"].update(activeDeadlineSeconds=60))) == []
    old = edited(lambda obj: obj["spec"].update(activeDeadlineSeconds=60))
    new = edited(lambda obj: obj["spec"].update(activeDeadlineSeconds=120))
    assert TRAINJOB.immutable(old, new) == ["spec.activeDeadlineSeconds"]


def test_runtime_patches_change_only_while_suspended_and_never_their_containers():
    running = edited(patches({"pool": "a"}, "example.com/train:1"))
    assert TRAINJOB.immutable(running, edited(patches({"pool": "b"}, "example.com/train:1"))) == \
        ["spec.runtimePatches"]
    suspended = edited(patches({"pool": "a"}, "example.com/train:1", suspend=True))
    assert TRAINJOB.immutable(suspended, edited(patches({"pool": "b"}, "example.com/train:1", suspend=True))) == []
    assert TRAINJOB.immutable(suspended, edited(patches({"pool": "a"}, "example.com/train:2", suspend=True))) == [
        "spec.runtimePatches[example.com/mine].trainingRuntimeSpec.template.spec.replicatedJobs[node]"
        ".template.spec.template.spec.containers"]
