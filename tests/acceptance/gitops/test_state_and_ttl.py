"""spec.state (completed, archived) and runPolicy.ttlSecondsAfterFinished under the GitOps
profiles and without one.

Expected values are worked out by hand from the blueprint text written in each test (and
from blueprints/*.yaml for the examples), never by rendering the same input twice and
comparing the code with itself. Rendering goes in-process through the real pipeline
(`render_paths`, the render fixture of conftest.py) or the real command line (the cli fixture).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.support.gitops import FLUX_SSA, JOB_LABEL, PROFILES, TTL_BLUEPRINT, blueprint
from tests.support.rendering import by_kind, render_text
from tests.support.text import pos, write


# --- 6. spec.state --------------------------------------------------------------------------------

@pytest.mark.parametrize("profile", ("none",) + PROFILES)
def test_completed_scales_the_workers_to_zero_under_the_same_names(render, profile):
    running = render(blueprint("train", workers=4), profile)
    completed = render(blueprint("train", workers=4, state="completed"), profile)
    assert running.kinds["StatefulSet"]["spec"]["replicas"] == 4
    assert completed.kinds["StatefulSet"]["spec"]["replicas"] == 0
    assert completed.names == running.names
    if profile == "none":
        assert completed.names == sorted([("ConfigMap", "train-config"), ("Job", "train-launcher"),
                                          ("Role", "train-launcher"), ("RoleBinding", "train-launcher"),
                                          ("ServiceAccount", "train-launcher"), ("StatefulSet", "train-worker")])
    # the hostfile still lists the 4 workers: only the StatefulSet is scaled
    assert len(completed.kinds["ConfigMap"]["data"]["hostfile"].splitlines()) == 4


def test_flux_applies_the_statefulset_only_if_absent_while_running(render):
    """The StatefulSet, whose replicas the launcher scales, until `completed` scales it to 0; the
    launcher Job always (Kueue writes into its template: test_kueue_admission.py); nothing else."""
    for state, expected in (("running", {FLUX_SSA: "IfNotPresent"}), ("completed", {})):
        rendered = render(blueprint("train", state=state), "flux")
        annotations = rendered.kinds["StatefulSet"]["metadata"].get("annotations", {})
        assert {k: v for k, v in annotations.items() if k == FLUX_SSA} == expected, state
        for obj in rendered.objects:
            if obj["kind"] not in ("StatefulSet", "Job"):
                assert FLUX_SSA not in obj["metadata"].get("annotations", {})
        assert rendered.kinds["Job"]["metadata"]["annotations"][FLUX_SSA] == "IfNotPresent"
    for state in ("running", "completed"):
        for obj in render(blueprint("train", state=state), "argocd").objects:
            assert FLUX_SSA not in obj["metadata"].get("annotations", {})


@pytest.mark.parametrize("profile", ("none",) + PROFILES)
def test_archived_renders_nothing_and_other_jobs_still_render(cli, profile):
    write("bp/old.yaml", blueprint("old", state="archived"))
    write("bp/new.yaml", blueprint("new"))
    streamed = cli("render", "bp", "--stdout", "--gitops", profile)
    assert streamed.returncode == 0, streamed.stderr
    objects = streamed.objects()
    assert len(objects) == 6
    assert {o["metadata"]["labels"][JOB_LABEL] for o in objects} == {"new"}
    assert "old" not in streamed.stdout.decode()
    written = cli("render", "bp", "-o", "out", "--gitops", profile)
    assert written.returncode == 0, written.stderr
    kustomization = yaml.safe_load(Path("out/kustomization.yaml").read_text())
    assert len(kustomization["resources"]) == 6
    # <ns>/<kind>-new-<run>-..., or in the flux profile <ns>/new/<role>/<kind>-new-<run>-...
    assert all(path.startswith("team/") and path.rsplit("/", 1)[1].split("-", 1)[1].startswith("new-")
               for path in kustomization["resources"]), kustomization["resources"]
    assert not [p for p in Path("out").rglob("*old*")]


def test_archiving_a_job_removes_its_files_from_the_output_folder(cli):
    write("bp/old.yaml", blueprint("old"))
    write("bp/new.yaml", blueprint("new"))
    assert cli("render", "bp", "-o", "out", "--gitops", "argocd").returncode == 0
    assert len(list(Path("out").rglob("*old*"))) == 6
    write("bp/old.yaml", blueprint("old", state="archived"))
    assert cli("render", "bp", "-o", "out", "--gitops", "argocd").returncode == 0
    assert not list(Path("out").rglob("*old*"))
    assert len(yaml.safe_load(Path("out/kustomization.yaml").read_text())["resources"]) == 6


@pytest.mark.parametrize("earlier", [False, True], ids=["fresh", "after-a-render"])
def test_all_archived_renders_an_empty_kustomization(cli, earlier):
    if earlier:
        write("bp/old.yaml", blueprint("old"))
        assert cli("render", "bp", "-o", "out", "--gitops", "argocd").returncode == 0
    write("bp/old.yaml", blueprint("old", state="archived"))
    done = cli("render", "bp", "-o", "out", "--gitops", "argocd")
    assert done.returncode == 0, done.stderr
    kustomization = yaml.safe_load(Path("out/kustomization.yaml").read_text())
    assert kustomization["kind"] == "Kustomization"
    assert kustomization["resources"] == []


def test_all_archived_streams_nothing(cli):
    write("bp/old.yaml", blueprint("old", state="archived"))
    done = cli("render", "bp", "--stdout", "--gitops", "flux")
    assert done.returncode == 0, done.stderr
    assert done.stdout == b""


# --- 7. runPolicy.ttlSecondsAfterFinished -----------------------------------------------------------


def test_ttl_is_the_launcher_jobs_ttl_without_a_profile(cli):
    write("bp/train.yaml", TTL_BLUEPRINT)
    done = cli("render", "bp", "--stdout", "--gitops", "none")
    assert done.returncode == 0, done.stderr
    objects = by_kind(done.objects())
    assert objects["Job"]["spec"]["ttlSecondsAfterFinished"] == 3600
    assert objects["Job"]["spec"]["backoffLimit"] == 2
    assert all("ttlSecondsAfterFinished" not in json.dumps(o) for k, o in objects.items() if k != "Job")


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("where", ["--stdout", "-o"])
def test_ttl_is_an_error_at_its_key_under_a_profile(cli, profile, where):
    write("bp/train.yaml", TTL_BLUEPRINT)
    args = ["--stdout"] if where == "--stdout" else ["-o", "out"]
    done = cli("render", "bp", *args, "--gitops", profile)
    assert done.returncode == 2
    assert done.stdout == b""
    assert not Path("out").exists()
    line, column = pos(TTL_BLUEPRINT, "ttlSecondsAfterFinished: 3600")
    errors = done.stderr.splitlines()
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"bp/train.yaml:{line}:{column}: error: spec.runPolicy.ttlSecondsAfterFinished ")
    assert f"--gitops {profile}" in errors[0]
    assert "creates it again" in errors[0] and "runs again" in errors[0]


def test_ttl_error_leaves_an_existing_output_folder_as_it_was(cli):
    write("bp/train.yaml", blueprint("train"))
    assert cli("render", "bp", "-o", "out", "--gitops", "argocd").returncode == 0
    before = {p: p.read_bytes() for p in Path("out").rglob("*") if p.is_file()}
    write("bp/train.yaml", TTL_BLUEPRINT)
    assert cli("render", "bp", "-o", "out", "--gitops", "argocd").returncode == 2
    assert {p: p.read_bytes() for p in Path("out").rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("target", ("mpijob", "jobset", "trainjob"))
def test_completed_suspends_the_same_job_of_a_job_without_a_queue(target, profile):
    """The suspend is not part of the run: the running job is updated in place, never replaced
    by a new suspended one (which the controller would create while pruning the running one)."""
    running = render_text(blueprint("train"), target=target, gitops=profile)
    completed = render_text(blueprint("train", state="completed"), target=target, gitops=profile)
    assert sorted(o["metadata"]["name"] for o in completed) == sorted(o["metadata"]["name"] for o in running)
    (job,) = [o for o in completed if o["kind"] in ("MPIJob", "JobSet", "TrainJob")]
    spec = job["spec"]["runPolicy"] if job["kind"] == "MPIJob" else job["spec"]
    assert spec["suspend"] is True
