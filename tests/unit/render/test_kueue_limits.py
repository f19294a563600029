"""The pod sets of the Workload Kueue makes of each target's queued job, against the limit of
each Kueue version (mpigen.kube.kueue_limits): the limits as the tags spell them, the pod
sets as Kueue's integrations build them (v0.19.2: jobset_controller.go JobSet.PodSets, one per
replicated job; mpijob_controller.go orderedReplicaTypes, Launcher then Worker; the TrainJob's
child JobSet's; job_controller.go, one; a StatefulSet's pods one pod group of one role), and
the refusal at the blueprint's queue line."""

from __future__ import annotations

from pathlib import Path

import pytest

from mpigen.compile.blueprint import compile_blueprint
from mpigen.compile.mpijob import V1
from mpigen.load.blueprints import load_blueprints
from mpigen.kube import kueue_limits
from mpigen.render.target import Options
from mpigen.render.targets import RESERVED, TARGETS, kueue_pod_sets, render_job
from mpigen.validate.document import validate_document

ROOT = Path(__file__).resolve().parents[3]
QUEUED = ROOT / "blueprints" / "kueue-queued.yaml"


def _queued_objects(target: str, **options) -> list[dict]:
    (doc,), _ = load_blueprints([QUEUED])
    blueprint, _ = validate_document(doc, RESERVED)
    return render_job(compile_blueprint(blueprint), Options(target=target, **options))


def _counted(target: str, **options) -> dict[str, int]:
    return {f"{obj['kind']}/{obj['metadata']['name']}": count
            for obj, count in kueue_pod_sets(_queued_objects(target, **options))}


def test_the_limits_are_those_of_each_kueue_tag():
    # v0.17.8 apis/kueue/v1beta2/workload_types.go: MaxItems=8 on spec.podSets; v0.18.6 and
    # v0.19.2 pkg/controller/jobframework/constants.go: MaxPodSets = 10, 18; v0.20.0-devel: 18.
    assert kueue_limits.MAX_POD_SETS == {"v0.17": 8, "v0.18": 10, "v0.19": 18, "v0.20": 18}


def test_each_target_s_queued_job_has_the_pod_sets_kueue_builds_for_it():
    assert _counted("jobset") == {"JobSet/vit-sweep-7": 3}  # keygen, worker, launcher: one per replicated job
    assert _counted("mpijob") == {"MPIJob/vit-sweep-7": 2}  # v2beta1 (the default): Launcher, Worker
    assert _counted("trainjob") == {"TrainJob/vit-sweep-7": 2}  # the runtime's node and launcher
    assert _counted("static") == {"StatefulSet/vit-sweep-7-worker": 1, "Job/vit-sweep-7-launcher": 1}


def test_the_training_operator_s_v1_mpijob_is_no_workload_of_kueue_s():
    options = TARGETS["mpijob"].options.build({"api": V1})
    assert _counted("mpijob", own=options) == {}


@pytest.mark.parametrize("target", ["static", "mpijob", "jobset", "trainjob"])
def test_no_target_s_workload_is_over_the_smallest_limit(target):
    assert max(_counted(target).values()) <= min(kueue_limits.MAX_POD_SETS.values())


def test_no_rendered_object_or_shipped_health_check_names_a_kueue_api_version():
    """Why versions.kueue changes no object: Kueue v0.20 serves only kueue.x-k8s.io/v1beta2
    (kubernetes-sigs/kueue#14558), and nothing mpigen writes or ships names a version of that
    API, only label and annotation keys of the group (docs/targets.md, "Kueue versions")."""
    shipped = [ROOT / path for target in TARGETS.values() for path in target.health_checks]
    golden = sorted((ROOT / "golden").rglob("*.yaml"))
    assert shipped and len(golden) > 100
    texts = {path: path.read_text() for path in (*shipped, *golden)}
    assert [path for path, text in texts.items() if "kueue.x-k8s.io/v1" in text] == []
    assert any("kueue.x-k8s.io/queue-name" in text for text in texts.values())  # the keys are there
    # and no example of the docs shows a queue object in the API version v0.20 no longer serves
    shown = [path for path in (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.*")))
             if path.is_file() and "kueue.x-k8s.io/v1beta1" in path.read_text(errors="replace")]
    assert shown == []
