"""Cluster-scoped objects are owned once per cluster (issue 30, item 4): a ClusterTrainingRuntime
(`mpigen-<hash of its content>`, the same in every environment that renders it the same) or the
MPIJob CRD written into the folder of every environment was applied by each environment's
Argo CD Application (SharedResourceWarning, tracking that flips under self-heal) or Flux
Kustomization, and the environment that stopped using it pruned it under the others. With
mpigen's companions, the environments of one cluster put them in one folder of the cluster's,
applied by an Application or Kustomization of its own, which the environments wait for."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from tests.support.blueprints import blueprint_text
from tests.support.command_line import run_mpigen
from tests.support.text import write

CONFIG = """apiVersion: mpigen.dev/v1alpha1
kind: Config
overlays: {overlays}
output: deploy
target: trainjob
gitops: {gitops}
trainingRuntime: {{emit: ClusterTrainingRuntime}}
argocd: {{repoURL: "https://git.example.com/ml.git", applications: clusters/argocd}}
flux: {{kustomizations: clusters/flux}}
"""
OVERLAY = "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n"


def repository(tmp_path: Path, gitops: str, overlays: dict[str, str]) -> subprocess.CompletedProcess:
    write(tmp_path / "blueprints" / "a.yaml", blueprint_text("a", namespace="ml"))
    write(tmp_path / "blueprints" / "b.yaml", blueprint_text("b", namespace="ml", workers=3))
    for name, body in overlays.items():
        write(tmp_path / "overlays" / name / "overlay.yaml", OVERLAY + body)
    write(tmp_path / "mpigen.yaml", CONFIG.format(overlays="[" + ", ".join(overlays) + "]", gitops=gitops))
    return run_mpigen("render", cwd=tmp_path)


def documents(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]


def runtimes(tmp_path: Path) -> dict[str, list[str]]:
    """Folder of deploy/ -> the runtimes its files hold."""
    found: dict[str, list[str]] = {}
    for path in sorted((tmp_path / "deploy").rglob("*.yaml")):
        for doc in documents(path):
            if doc.get("kind") == "ClusterTrainingRuntime":
                found.setdefault(path.relative_to(tmp_path / "deploy").parts[0], []).append(doc["metadata"]["name"])
    return found


def built(kubectl: str, folder: Path) -> list[dict]:
    done = subprocess.run([kubectl, "kustomize", str(folder)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return [d for d in yaml.safe_load_all(done.stdout) if d]


def test_argocd_environments_of_one_destination_share_one_copy_and_one_application(tmp_path, kubectl):
    done = repository(tmp_path, "argocd", {"dev": "", "prod": ""})
    assert done.returncode == 0, done.stderr
    found = runtimes(tmp_path)
    assert list(found) == ["_cluster--https-kubernetes-default-svc-0e9741d439"], found
    folder = next(iter(found))
    assert len(found[folder]) == 1  # the runtime of both jobs in both environments, once
    apps = {d["metadata"]["name"]: d["spec"] for p in sorted((tmp_path / "clusters" / "argocd").glob("application-*"))
            for d in documents(p)}
    owners = [name for name, spec in apps.items() if spec["source"]["path"] == f"deploy/{folder}"]
    assert owners == ["mpigen--cluster--https-kubernetes-default-svc-0e9741d439"], apps
    assert apps[owners[0]]["destination"] == {"server": "https://kubernetes.default.svc"}
    assert sorted(found[folder]) == sorted(o["metadata"]["name"] for o in built(kubectl, tmp_path / "deploy" / folder))
    for env in ("dev", "prod"):  # a TrainJob is refused until its runtime is there: the sync retries
        assert apps[f"mpigen-{env}"]["syncPolicy"]["retry"] == {
            "limit": 10, "backoff": {"duration": "5s", "factor": 2, "maxDuration": "3m"}}
        assert not any(o["kind"] == "ClusterTrainingRuntime" for o in built(kubectl, tmp_path / "deploy" / env))
    assert run_mpigen("check", cwd=tmp_path).returncode == 0


def test_argocd_environments_of_two_destinations_keep_their_own(tmp_path):
    """Each cluster has its own copy: nothing is shared, nothing moves."""
    done = repository(tmp_path, "argocd", {"dev": "cluster: dev-cluster\n", "prod": ""})
    assert done.returncode == 0, done.stderr
    assert sorted(runtimes(tmp_path)) == ["dev", "prod"]
    apps = [p.name for p in sorted((tmp_path / "clusters" / "argocd").glob("application-*"))]
    assert apps == ["application-mpigen-dev.yaml", "application-mpigen-prod.yaml"]


def test_flux_environments_share_one_copy_and_one_kustomization_they_depend_on(tmp_path, kubectl):
    done = repository(tmp_path, "flux", {"dev": "", "prod": ""})
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode().splitlines()[-1].endswith(
        " into deploy/dev, deploy/prod, deploy/_cluster; Argo CD Applications into clusters/argocd; "
        "Flux Kustomizations into clusters/flux"), done.stderr
    found = runtimes(tmp_path)
    assert list(found) == ["_cluster"] and len(found["_cluster"]) == 1, found
    kustomizations = {d["metadata"]["name"]: d["spec"] for d in built(kubectl, tmp_path / "clusters" / "flux")}
    assert kustomizations["mpigen--cluster"]["path"] == "./deploy/_cluster"
    assert kustomizations["mpigen--cluster"]["wait"] is True
    assert [n for n, spec in kustomizations.items() if spec["path"] == "./deploy/_cluster"] == ["mpigen--cluster"]
    for env in ("dev", "prod"):
        assert kustomizations[f"mpigen-{env}-trainjobs"]["dependsOn"] == [{"name": "mpigen--cluster"}]
    assert sorted(o["metadata"]["name"] for o in built(kubectl, tmp_path / "deploy" / "_cluster")) == sorted(
        found["_cluster"])
    assert run_mpigen("check", cwd=tmp_path).returncode == 0
    edited = next((tmp_path / "deploy" / "_cluster").glob("clustertrainingruntime-*.yaml"))
    edited.write_text(edited.read_text().replace("numNodes: 1", "numNodes: 2"))
    drift = run_mpigen("check", cwd=tmp_path)  # the cluster's folder is checked as the others
    assert drift.returncode == 1 and f"deploy/_cluster/{edited.name}".encode() in drift.stdout, drift


def test_one_environment_keeps_them_in_its_folder_and_a_second_moves_them(tmp_path):
    """One environment owns them alone: the layout stays as it was. When a second joins, the
    runtimes move to the cluster's folder, and back when it goes (the files mpigen no longer
    writes are removed, as any other)."""
    assert repository(tmp_path, "flux", {"dev": ""}).returncode == 0
    alone = runtimes(tmp_path)
    assert list(alone) == ["dev"]
    assert repository(tmp_path, "flux", {"dev": "", "prod": ""}).returncode == 0
    assert list(runtimes(tmp_path)) == ["_cluster"]
    assert repository(tmp_path, "flux", {"dev": ""}).returncode == 0
    assert runtimes(tmp_path) == alone and not (tmp_path / "deploy" / "_cluster").exists()
    assert not (tmp_path / "clusters" / "flux" / "kustomizations-_cluster.yaml").exists()


@pytest.mark.parametrize("gitops", ["argocd", "flux"])
def test_two_environments_writing_one_name_differently_are_refused(tmp_path, gitops):
    """A runtime named in mpigen.yaml, whose content an overlay changes: one cluster cannot hold
    both; the run names the object and both environments, and writes nothing."""
    (tmp_path / "mpigen.yaml").parent.mkdir(exist_ok=True)
    write(tmp_path / "blueprints" / "a.yaml", blueprint_text("a", namespace="ml"))
    write(tmp_path / "overlays" / "dev" / "overlay.yaml", OVERLAY)
    write(tmp_path / "overlays" / "prod" / "overlay.yaml",
          OVERLAY + "images:\n  - {name: example.com/train, newTag: '2'}\n")
    write(tmp_path / "mpigen.yaml", CONFIG.format(overlays="[dev, prod]", gitops=gitops).replace(
        "{emit: ClusterTrainingRuntime}", "{emit: ClusterTrainingRuntime, name: shared}"))
    done = run_mpigen("render", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.decode().splitlines()
    assert line.startswith("error: overlays/prod/overlay.yaml: environments dev and prod apply to one cluster and "
                           "both write _cluster"), line
    assert "/clustertrainingruntime-shared.yaml, with different content" in line, line
    assert not (tmp_path / "deploy").exists()


def test_the_mpijob_crd_of_flux_environments_is_applied_once_before_them(tmp_path, kubectl):
    write(tmp_path / "blueprints" / "a.yaml", blueprint_text("a", namespace="ml"))
    for name in ("dev", "prod"):
        write(tmp_path / "overlays" / name / "overlay.yaml", OVERLAY)
    write(tmp_path / "mpigen.yaml", CONFIG.format(overlays="[dev, prod]", gitops="flux").replace(
        "target: trainjob", "target: mpijob\nwithCRD: true"))
    done = run_mpigen("render", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    crds = sorted(p.relative_to(tmp_path / "deploy").as_posix()
                  for p in (tmp_path / "deploy").rglob("customresourcedefinition-*"))
    assert crds == ["_cluster/customresourcedefinition-mpijobs.kubeflow.org.yaml"]
    kustomizations = {d["metadata"]["name"]: d["spec"] for d in built(kubectl, tmp_path / "clusters" / "flux")}
    assert kustomizations["mpigen-dev"]["dependsOn"] == kustomizations["mpigen-prod"]["dependsOn"] == [
        {"name": "mpigen--cluster"}]
    assert [o["kind"] for o in built(kubectl, tmp_path / "deploy" / "_cluster")] == ["CustomResourceDefinition"]
