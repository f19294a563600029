"""Argo CD sync waves (configuration, then workers, then the launcher) in the order Argo CD's
engine sorts them, no hooks, and Flux's apply-if-absent on the worker StatefulSet only.

Expected values are worked out by hand from the blueprint text written in each test (and
from blueprints/*.yaml for the examples), never by rendering the same input twice and
comparing the code with itself. Rendering goes in-process through the real pipeline
(`render_paths`, the render fixture of conftest.py) or the real command line (the cli fixture).
"""

from __future__ import annotations

import re

import pytest

from tests.support.blueprints import example_blueprints
from tests.support.paths import GOLDEN
from tests.support.rendering import extra_objects, repository_target
from tests.support.gitops import (CONFIG_KINDS, FLUX_SSA, JOB_LABEL, PROFILES, WAVE, blueprint, example_objects,
                                  golden_prod, golden_stream, metadatas)


# --- 4. sync waves (argocd) ------------------------------------------------------------------------

# gitops-engine pkg/sync/sync_tasks.go: phase, wave, kind (Helm's install order, unknown
# kinds last: their kindOrder is 0, above every listed kind's negative value), name.
HELM_KIND_ORDER = [
    "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy", "PodDisruptionBudget",
    "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass", "PersistentVolume",
    "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole", "ClusterRoleList", "ClusterRoleBinding",
    "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList", "Service", "DaemonSet", "Pod",
    "ReplicationController", "ReplicaSet", "Deployment", "HorizontalPodAutoscaler", "StatefulSet", "Job",
    "CronJob", "IngressClass", "Ingress", "APIService",
]
KIND_ORDER = {kind: i - len(HELM_KIND_ORDER) for i, kind in enumerate(HELM_KIND_ORDER)}
SYNC_PHASE_ORDER = {"PreSync": -1, "Sync": 0, "PostSync": 1, "SyncFail": 2}


def argocd_sort(objects: list[dict]) -> list[dict]:
    def key(obj):
        annotations = obj["metadata"].get("annotations", {})
        phase = annotations.get("argocd.argoproj.io/hook", "Sync")  # non-hooks sync in the Sync phase
        try:
            wave = int(annotations.get(WAVE, "0"))
        except ValueError:
            wave = 0
        return SYNC_PHASE_ORDER[phase], wave, KIND_ORDER.get(obj["kind"], 0), obj["metadata"]["name"]

    return sorted(objects, key=key)


def test_argocd_sort_is_the_engine_sort():
    """The sort itself, on cases worked out from sync_tasks.go."""
    def obj(kind, name, wave=None):
        meta = {"name": name, **({"annotations": {WAVE: wave}} if wave is not None else {})}
        return {"kind": kind, "metadata": meta}

    objects = [obj("Job", "a", "1"), obj("MPIJob", "z"), obj("StatefulSet", "b"), obj("ConfigMap", "c", "-1"),
               obj("ServiceAccount", "d", "-1"), obj("Job", "b", "-10"), obj("Deployment", "e")]
    assert [(o["kind"], o["metadata"]["name"]) for o in argocd_sort(objects)] == [
        ("Job", "b"), ("ServiceAccount", "d"), ("ConfigMap", "c"), ("Deployment", "e"), ("StatefulSet", "b"),
        ("MPIJob", "z"), ("Job", "a")]


# The examples this repository's environments render with static (rendering.repository_target).
STATIC_EXAMPLES = {name for name, data in example_blueprints().items() if repository_target(data) == "static"}


@pytest.mark.parametrize("source", ["golden", "overlay prod", "synthetic"])
def test_argocd_waves_start_configuration_then_workers_then_launcher(render, source):
    if source == "golden":
        objects = golden_stream("argocd")
    elif source == "overlay prod":  # the static jobs: mpigen.yaml's targets rule renders one with jobset
        objects = [obj for _, obj in golden_prod() if obj["metadata"]["labels"][JOB_LABEL] in STATIC_EXAMPLES]
    else:
        objects = render(blueprint("train", runPolicy={"cleanPodPolicy": "Running"}), "argocd").objects
    # the examples' configuration: the operator's, and their extra objects (a gang-scheduled
    # job's PodGroup, <job>-mpigen, <job>-identity: rendering.extra_objects), none for "train";
    # the PodGroup exists before the worker pods (mpi-operator.md 4.8)
    examples = {} if source == "synthetic" else example_blueprints()
    if source == "overlay prod":
        examples = {name: data for name, data in examples.items() if name in STATIC_EXAMPLES}
    expected = {"ServiceAccount": "-1", "ConfigMap": "-1", "Role": "-1", "RoleBinding": "-1", "PodGroup": "-1",
                "StatefulSet": "0", "Job": "1"}
    for obj in objects:
        assert obj["metadata"]["annotations"][WAVE] == expected[obj["kind"]]
    order = argocd_sort(objects)
    jobs = {o["metadata"]["labels"][JOB_LABEL] for o in objects}
    assert jobs
    if examples:
        assert jobs == set(examples)
    config = []
    for job in jobs:
        mine = [(i, o["kind"]) for i, o in enumerate(order) if o["metadata"]["labels"][JOB_LABEL] == job]
        job_config = [kind for _, kind in mine if kind not in ("StatefulSet", "Job")]
        extra = extra_objects(examples[job]) if job in examples else []
        assert sorted(job_config) == sorted([*CONFIG_KINDS, *(kind for kind, _ in extra)]), job
        config += job_config
        index = {kind: i for i, kind in mine if kind in ("StatefulSet", "Job")}
        assert max(i for i, kind in mine if kind not in index) < index["StatefulSet"] < index["Job"], job
    # and across the whole Application: every job's configuration before any worker, every
    # worker before any launcher
    kinds = [o["kind"] for o in order]
    n, c = len(jobs), len(config)
    assert sorted(kinds[:c]) == sorted(config)
    assert kinds[c:] == ["StatefulSet"] * n + ["Job"] * n


def test_argocd_waves_are_quoted_strings_in_the_yaml_text():
    text = (GOLDEN / "argocd.yaml").read_text()
    lines = [line.strip() for line in text.splitlines() if WAVE in line]
    assert len(lines) == example_objects()  # one on every object of every example
    assert set(lines) == {f'{WAVE}: "-1"', f'{WAVE}: "0"', f'{WAVE}: "1"'}
    for path in (GOLDEN / "argocd").rglob("*.yaml"):
        for line in path.read_text().splitlines():
            if WAVE in line:
                assert re.fullmatch(rf'\s*{re.escape(WAVE)}: "-?[01]"', line), (path, line)


@pytest.mark.parametrize("profile", PROFILES)
def test_no_hooks_and_only_the_profiles_own_annotations(profile):
    objects = golden_stream(profile) + ([obj for _, obj in golden_prod()] if profile == "argocd" else [])
    foreign = "kustomize.toolkit.fluxcd.io/" if profile == "argocd" else "argocd.argoproj.io/"
    every_profile = "kustomize.toolkit.fluxcd.io/substitute"  # Flux's substitution guard (mpigen.emit.flux_substitution)
    for obj in objects:
        for meta in metadatas(obj):
            for key in meta.get("annotations", {}):
                assert not key.startswith("argocd.argoproj.io/hook"), (obj["kind"], key)
                assert not key.startswith(foreign) or key == every_profile, (obj["kind"], key)
    text = (GOLDEN / f"{profile}.yaml").read_text()
    assert "argocd.argoproj.io/hook" not in text
    assert foreign not in text.replace(every_profile, "")


def test_flux_marks_only_the_statefulset_and_the_launcher_apply_if_absent():
    """The StatefulSet (the launcher scales it) and the launcher Job (Kueue writes into its
    template: test_kueue_admission.py), each while its job runs; nothing else."""
    for obj in golden_stream("flux"):
        annotations = obj["metadata"].get("annotations", {})
        if obj["kind"] in ("StatefulSet", "Job"):
            assert annotations[FLUX_SSA] == "IfNotPresent"
        else:
            assert FLUX_SSA not in annotations
        assert FLUX_SSA not in obj.get("spec", {}).get("template", {}).get("metadata", {}).get("annotations", {})
