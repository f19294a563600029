"""Companion manifests (mpigen.yaml's argocd and flux sections): the Argo CD Applications
and Flux Kustomizations that apply the rendered folders, written outside them."""

from __future__ import annotations

import shutil
import subprocess

import pytest
import yaml

from tests.support.blueprints import example_blueprints
from tests.support.command_line import run_mpigen
from tests.support.paths import ROOT
from tests.support.rendering import job_objects
from tests.support.text import write

CONFIG = """apiVersion: mpigen.dev/v1alpha1
kind: Config
overlays: [dev, prod]
output: deploy
argocd:
  repoURL: https://git.example.com/ml/training.git
  targetRevision: main
  applications: clusters/argocd
flux:
  kustomizations: clusters/flux
"""


@pytest.fixture
def rendered_examples(tmp_path):
    shutil.copytree(ROOT / "blueprints", tmp_path / "blueprints")
    shutil.copytree(ROOT / "overlays", tmp_path / "overlays")
    dev = tmp_path / "overlays" / "dev" / "overlay.yaml"
    dev.write_text(dev.read_text().replace("kind: Overlay\n", "kind: Overlay\ngitops: flux\ncluster: dev-cluster\n"))
    (tmp_path / "mpigen.yaml").write_text(CONFIG)
    done = run_mpigen("render", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path


def load(path):
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def objects(folder):
    return [o for p in sorted(folder.glob("*.yaml")) if p.name != "kustomization.yaml" for o in load(p)]


def test_the_summary_names_every_folder_written(rendered_examples):
    """The companion folders are written too, so the summary says so (`make render` wrote
    the Argo CD Applications without a word)."""
    done = run_mpigen("render", cwd=rendered_examples)
    assert done.returncode == 0
    summary = done.stderr.decode().splitlines()[-1]
    assert summary.endswith(" into deploy/dev, deploy/prod; Argo CD Applications into clusters/argocd; "
                            "Flux Kustomizations into clusters/flux"), summary
    written = {p.parent.relative_to(rendered_examples).as_posix() for p in rendered_examples.rglob(".mpigen-index")}
    assert {"deploy", "clusters/argocd", "clusters/flux"} <= written  # the folders it names hold mpigen's files
    alone = run_mpigen("render", "blueprints", "-o", "elsewhere", cwd=rendered_examples)  # no companions for one PATH
    assert alone.stderr.decode().splitlines()[-1].endswith(" into elsewhere")


def test_one_application_per_argocd_environment(rendered_examples):
    folder = rendered_examples / "clusters" / "argocd"
    assert sorted(p.name for p in folder.iterdir()) == [".mpigen-index", "application-mpigen-prod.yaml",
                                                        "kustomization.yaml"]
    app, = load(folder / "application-mpigen-prod.yaml")
    assert app["kind"] == "Application" and app["metadata"] == {
        "name": "mpigen-prod", "namespace": "argocd", "labels": {"app.kubernetes.io/managed-by": "mpigen"}}
    spec = app["spec"]
    assert spec["source"] == {"repoURL": "https://git.example.com/ml/training.git", "targetRevision": "main",
                              "path": "deploy/prod"}
    assert spec["destination"] == {"server": "https://kubernetes.default.svc"}
    assert spec["syncPolicy"]["automated"] == {"prune": True, "selfHeal": True}
    assert set(spec["syncPolicy"]["syncOptions"]) == {"ApplyOutOfSyncOnly=true", "RespectIgnoreDifferences=true"}
    # Exactly the worker StatefulSets of prod, by name: the launcher may scale them to 0.
    # prod keeps the examples' namespaces (blueprints/; "default" where a blueprint has none).
    namespaces = {b["metadata"].get("namespace", "default") for b in example_blueprints().values()}
    assert sorted(p.name for p in (rendered_examples / "deploy" / "prod").iterdir() if p.is_dir()) == sorted(namespaces)
    statefulsets = [o for namespace in sorted(namespaces) for o in objects(rendered_examples / "deploy" / "prod" / namespace)
                    if o["kind"] == "StatefulSet"]
    assert len(statefulsets) == len(example_blueprints())
    replicas = [i for i in spec["ignoreDifferences"] if "name" in i]
    assert sorted((i["namespace"], i["name"]) for i in replicas) == sorted(
        (s["metadata"]["namespace"], s["metadata"]["name"]) for s in statefulsets)
    assert all(i["jsonPointers"] == ["/spec/replicas"] and i["kind"] == "StatefulSet" and i["group"] == "apps"
               for i in replicas)
    # and, per kind, what Kueue writes into the launcher Jobs it admits (test_kueue_admission.py)
    assert [(i["group"], i["kind"]) for i in spec["ignoreDifferences"] if "name" not in i] == [("batch", "Job")]
    kustomization, = load(folder / "kustomization.yaml")
    assert kustomization["resources"] == ["application-mpigen-prod.yaml"]


def test_a_completed_job_is_not_ignored_so_git_scales_it_down(rendered_examples):
    path = rendered_examples / "blueprints" / "intel-pi.yaml"
    path.write_text(path.read_text().replace("spec:\n", "spec:\n  state: completed\n", 1))
    assert run_mpigen("render", cwd=rendered_examples).returncode == 0
    app, = load(rendered_examples / "clusters" / "argocd" / "application-mpigen-prod.yaml")
    names = [i["name"] for i in app["spec"]["ignoreDifferences"] if "name" in i]
    assert not any(name.startswith("intel-pi-") for name in names)
    assert any(name.startswith("mpich-pi-") for name in names)


def test_an_overlay_names_its_cluster(rendered_examples):
    overlay = rendered_examples / "overlays" / "prod" / "overlay.yaml"
    overlay.write_text(overlay.read_text().replace("kind: Overlay\n", "kind: Overlay\ncluster: https://prod:6443\n"))
    assert run_mpigen("render", cwd=rendered_examples).returncode == 0
    app, = load(rendered_examples / "clusters" / "argocd" / "application-mpigen-prod.yaml")
    assert app["spec"]["destination"] == {"server": "https://prod:6443"}


def test_a_pair_of_flux_kustomizations_per_job(rendered_examples, kubectl):
    folder = rendered_examples / "clusters" / "flux"
    assert sorted(p.name for p in folder.iterdir()) == [".mpigen-index", "kustomization.yaml",
                                                        "kustomizations-dev.yaml"]
    docs = load(folder / "kustomizations-dev.yaml")
    examples = example_blueprints()
    assert len(docs) == 2 * len(examples)  # every example x (workers, launcher)
    by_name = {d["metadata"]["name"]: d for d in docs}
    for job, example in examples.items():
        workers, launcher = by_name[f"mpigen-dev-ml--dev-{job}-workers"], by_name[f"mpigen-dev-ml--dev-{job}-launcher"]
        assert workers["spec"]["wait"] is True and workers["spec"]["prune"] is True
        assert launcher["spec"]["wait"] is False and launcher["spec"]["prune"] is True
        assert launcher["spec"]["dependsOn"] == [{"name": workers["metadata"]["name"]}]
        assert "dependsOn" not in workers["spec"]
        # the launcher Job alone in the second; everything else of the job (the operator's
        # configuration and workers, and the job's PodGroup, <job>-mpigen, <job>-identity) first
        worker_kinds = sorted(kind for kind, _ in job_objects(example))
        worker_kinds.remove("Job")
        for kustomization, kinds in ((workers, worker_kinds), (launcher, ["Job"])):
            assert kustomization["spec"]["sourceRef"] == {"kind": "GitRepository", "name": "flux-system"}
            path = rendered_examples / kustomization["spec"]["path"]
            built = subprocess.run([kubectl, "kustomize", str(path)], capture_output=True, text=True, check=True)
            applied = [o for o in yaml.safe_load_all(built.stdout) if o]
            assert sorted(o["kind"] for o in applied) == kinds, job
            assert {o["metadata"]["labels"]["mpigen.dev/job"] for o in applied} == {job}


def test_check_covers_the_companions(rendered_examples):
    assert run_mpigen("check", cwd=rendered_examples).returncode == 0
    path = rendered_examples / "clusters" / "argocd" / "application-mpigen-prod.yaml"
    path.write_text(path.read_text().replace("targetRevision: main", "targetRevision: dev"))
    done = run_mpigen("check", cwd=rendered_examples)
    assert done.returncode == 1 and b"clusters/argocd/application-mpigen-prod.yaml" in done.stdout


def test_companions_are_written_only_for_the_whole_repository(rendered_examples):
    shutil.rmtree(rendered_examples / "clusters")
    assert run_mpigen("render", "--overlay", "prod", cwd=rendered_examples).returncode == 0
    assert run_mpigen("render", "blueprints", "-o", "other", cwd=rendered_examples).returncode == 0
    assert not (rendered_examples / "clusters").exists()


def test_an_archived_job_loses_its_kustomizations(rendered_examples):
    path = rendered_examples / "blueprints" / "mpich-pi.yaml"
    path.write_text(path.read_text().replace("spec:\n", "spec:\n  state: archived\n", 1))
    assert run_mpigen("render", cwd=rendered_examples).returncode == 0
    names = {d["metadata"]["name"] for d in load(rendered_examples / "clusters" / "flux" / "kustomizations-dev.yaml")}
    assert len(names) == 2 * (len(example_blueprints()) - 1) and not any("mpich-pi" in n for n in names)
    assert not (rendered_examples / "deploy" / "dev" / "ml-dev" / "mpich-pi").exists()


def test_a_companion_folder_that_refuses_its_files_leaves_the_output_folder_as_it_was(rendered_examples):
    """The Applications' folder holds a file mpigen did not write where it would write one:
    the run is refused before any folder changes, the output folder included."""
    argocd = rendered_examples / "clusters" / "argocd"
    shutil.rmtree(argocd)
    write(argocd / "application-mpigen-prod.yaml", "# the platform team's own Application\n")
    blueprint = rendered_examples / "blueprints" / "mpich-pi.yaml"
    blueprint.write_text(blueprint.read_text().replace("workers: 3", "workers: 4"))
    before = {p: p.read_bytes() for p in sorted((rendered_examples / "deploy").rglob("*")) if p.is_file()}
    done = run_mpigen("render", cwd=rendered_examples)
    assert done.returncode == 2, done.stderr
    assert b"clusters/argocd/application-mpigen-prod.yaml" in done.stderr and b"refusing to overwrite" in done.stderr
    assert {p: p.read_bytes() for p in sorted((rendered_examples / "deploy").rglob("*")) if p.is_file()} == before


def test_one_flux_kustomization_for_a_jobset_environment(rendered_examples, kubectl):
    """A JobSet starts its launcher itself: the flux profile needs no pair per job, but one
    Kustomization that applies the environment's folder, not waited on, pruning."""
    (rendered_examples / "mpigen.yaml").write_text(CONFIG + "target: jobset\n")
    done = run_mpigen("render", cwd=rendered_examples)
    assert done.returncode == 0, done.stderr
    kustomization, = load(rendered_examples / "clusters" / "flux" / "kustomizations-dev.yaml")
    assert kustomization["metadata"]["name"] == "mpigen-dev"
    assert kustomization["spec"]["path"] == "./deploy/dev"
    assert kustomization["spec"]["wait"] is False and kustomization["spec"]["prune"] is True
    built = subprocess.run([kubectl, "kustomize", str(rendered_examples / "deploy" / "dev")], capture_output=True, text=True,
                           check=True)
    kinds = [o["kind"] for o in yaml.safe_load_all(built.stdout) if o]
    assert kinds.count("JobSet") == len(example_blueprints())
