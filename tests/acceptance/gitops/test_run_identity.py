"""The GitOps profiles' run identity: `--gitops none` renders golden/static unchanged; under
a profile every object is named `<mpijob name>-<run>`, and only what defines the run changes it.

Expected values are worked out by hand from the blueprint text written in each test (and
from blueprints/*.yaml for the examples), never by rendering the same input twice and
comparing the code with itself. Rendering goes in-process through the real pipeline
(`render_paths`, the render fixture of conftest.py) or the real command line (the cli fixture).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.blueprints import example_blueprints
from tests.support.paths import GOLDEN, ROOT
from tests.support.rendering import extra_objects
from tests.support.gitops import (FLUX_SSA, JOB_LABEL, PROFILES, RUN_LABEL, WAVE, assert_named_as_run, blueprint,
                                  golden_stream, metadatas)


# --- 1. --gitops none is unchanged ------------------------------------------------------------

def test_none_profile_still_renders_golden_static(monkeypatch):
    from mpigen.pipeline.run import render_paths
    from mpigen.pipeline.settings import run_settings
    from mpigen.render.target import Options

    monkeypatch.chdir(ROOT)  # source comments name blueprints/<file> relative to the repository
    result = render_paths([Path("blueprints")], run_settings(Options(target="static", gitops="none")))
    assert "".join(item.text for item in result.objects) == (GOLDEN / "static.yaml").read_text(encoding="utf-8")
    for obj in golden_stream("static"):
        assert RUN_LABEL not in obj["metadata"]["labels"]
        # no profile's annotations, but Flux's substitution guard, which every profile's objects
        # carry where they hold ${ or $$ (mpigen.emit.flux_substitution)
        assert not any(k.startswith(("argocd.argoproj.io/", "kustomize.toolkit.fluxcd.io/"))
                       for k in obj["metadata"].get("annotations", {}) if k != "kustomize.toolkit.fluxcd.io/substitute")


# --- 2. run identity ---------------------------------------------------------------------------

@pytest.mark.parametrize("profile", PROFILES)
def test_examples_are_named_as_the_mpijob_name_run(profile):
    """golden/<profile>.yaml: each example's objects under <name>-<run>, the same run on all
    of them, derived from blueprints/*.yaml (name, namespace, workers, and the extra objects
    its fields call for)."""
    examples = example_blueprints()
    objects = golden_stream(profile)
    assert {o["metadata"]["labels"][JOB_LABEL] for o in objects} == set(examples)
    runs = set()
    for name, data in examples.items():
        mine = [o for o in objects if o["metadata"]["labels"][JOB_LABEL] == name]
        run = {o["metadata"]["labels"][RUN_LABEL] for o in mine}
        assert len(run) == 1, (name, run)
        run = run.pop()
        runs.add(run)
        assert_named_as_run(mine, name, data["metadata"].get("namespace", "default"), data["spec"]["workers"], run,
                            extra=extra_objects(data))
    assert len(runs) == len(examples)


@pytest.mark.parametrize("profile", PROFILES)
def test_synthetic_job_is_named_as_the_mpijob_name_run(render, profile):
    rendered = render(blueprint("train", namespace="ml", workers=3, gpusPerWorker=2), profile)
    assert_named_as_run(rendered.objects, "train", "ml", 3, rendered.run)
    assert rendered.kinds["ConfigMap"]["data"]["hostfile"] == "".join(
        f"train-{rendered.run}-worker-{i} slots=2\n" for i in range(3))
    assert rendered.kinds["StatefulSet"]["spec"]["replicas"] == 3


@pytest.mark.parametrize("profile", PROFILES)
def test_a_profile_renders_the_operator_objects_of_mpijob_name_run(render, profile):
    """"As if the MPIJob were <name>-<run>": without blueprint labels and with cleanPodPolicy
    None, the objects are those `--gitops none` renders for a blueprint named <name>-<run>,
    apart from mpigen's own labels and the profile's annotations."""
    spec = dict(framework="horovod", workers=3, gpusPerWorker=4, env={"NCCL_DEBUG": "INFO"},
                datasets=[{"name": "data", "mountPath": "/data", "pvc": "claim"}])
    profiled = render(blueprint("train", **spec), profile)
    run = profiled.run
    plain = render(blueprint(f"train-{run}", **spec), "none")

    def normalized(objects):
        out = []
        for obj in json.loads(json.dumps(objects)):
            for meta in metadatas(obj):
                meta["labels"] = {k: v for k, v in meta["labels"].items() if not k.startswith("mpigen.dev/")}
                annotations = {k: v for k, v in meta.pop("annotations", {}).items() if k not in (WAVE, FLUX_SSA)}
                if annotations:
                    meta["annotations"] = annotations
            out.append(obj)
        return sorted(out, key=lambda o: o["kind"])

    assert normalized(profiled.objects) == normalized(plain.objects)


RUN_EDITS = {
    "image": dict(image="example.com/train:2"),
    "command": dict(command=["python", "train.py", "--epochs", "2"]),
    "workers": dict(workers=3),
    "gpusPerWorker": dict(gpusPerWorker=1),
    "env": dict(env={"NCCL_DEBUG": "INFO"}),
    "resources": dict(resources={"worker": {"cpu": "4"}}),
    "datasets": dict(datasets=[{"name": "data", "mountPath": "/data", "pvc": "claim"}]),
    "cleanPodPolicy Running": dict(runPolicy={"cleanPodPolicy": "Running"}),
    "cleanPodPolicy All": dict(runPolicy={"cleanPodPolicy": "All"}),
    "mpirunArgs": dict(mpirunArgs=["-x", "FOO"]),
}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("edit", sorted(RUN_EDITS))
def test_editing_what_defines_the_run_gives_a_new_run(render, profile, edit):
    before = render(blueprint("train"), profile)
    after = render(blueprint("train", **RUN_EDITS[edit]), profile)
    assert before.run != after.run
    assert not set(before.names) & set(after.names)
    assert_named_as_run(after.objects, "train", "team", RUN_EDITS[edit].get("workers", 2), after.run)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("where", ["labels", "annotations"])
def test_label_and_annotation_edits_keep_the_run_and_change_only_object_metadata(render, profile, where):
    before = render(blueprint("train", **{where: {"owner": "a"}}), profile)
    after = render(blueprint("train", **{where: {"owner": "b", "team": "vision"}}), profile)
    assert before.run == after.run
    assert before.names == after.names

    def kind(obj):
        return obj["kind"]

    for old, new in zip(sorted(before.objects, key=kind), sorted(after.objects, key=kind)):
        assert old["metadata"][where]["owner"] == "a"
        assert new["metadata"][where]["owner"] == "b" and new["metadata"][where]["team"] == "vision"
        # only that metadata changed
        old_rest = {k: v for k, v in old.items() if k != "metadata"}
        new_rest = {k: v for k, v in new.items() if k != "metadata"}
        assert old_rest == new_rest, old["kind"]
        other = "annotations" if where == "labels" else "labels"
        assert old["metadata"].get(other) == new["metadata"].get(other)
        # pod templates carry no blueprint labels or annotations in the profiles
        template = new.get("spec", {}).get("template")
        if template is not None:
            assert "owner" not in template["metadata"].get(where, {})
            assert "team" not in template["metadata"].get("labels", {})
            assert "annotations" not in template["metadata"]


def _with_run_replaced(objects: list[dict], run: str, placeholder: str = "RUN") -> str:
    return json.dumps(sorted(objects, key=lambda o: o["kind"]), sort_keys=True).replace(run, placeholder)


@pytest.mark.parametrize("profile", PROFILES)
def test_spec_run_changes_the_run_and_nothing_but_names_and_run_labels(render, profile):
    base = render(blueprint("train"), profile)
    second = render(blueprint("train", run="2"), profile)
    second_int = render(blueprint("train", run=2), profile)
    third = render(blueprint("train", run="3"), profile)
    assert len({base.run, second.run, third.run}) == 3
    assert second_int.run == second.run  # run: 2 and run: "2" are the same run
    for rendered in (second, third):
        assert_named_as_run(rendered.objects, "train", "team", 2, rendered.run)
        assert _with_run_replaced(rendered.objects, rendered.run) == _with_run_replaced(base.objects, base.run)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("state", ["running", "completed"])
def test_spec_state_does_not_change_the_run(render, profile, state):
    assert render(blueprint("train", state=state), profile).names == render(blueprint("train"), profile).names
