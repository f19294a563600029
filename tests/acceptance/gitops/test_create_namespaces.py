"""createNamespaces (issue 53): with the option on, an environment's folder holds a Namespace per
namespace its jobs use, so that the first sync on a new cluster does not fail on a missing
namespace; off (the default), nothing changes (golden/ is rendered without it).

Expected values are written out by hand from upstream facts:
- the Pod Security labels: k8s.io/pod-security-admission api/constants.go (EnforceLevelLabel
  "pod-security.kubernetes.io/enforce", EnforceVersionLabel ".../enforce-version", a version
  "v1.<minor>" or "latest");
- Argo CD: a resource's `argocd.argoproj.io/sync-options` takes options joined with "," and
  `Prune=false` keeps it from being pruned, `Delete=false` from being deleted with the
  Application (argo-cd 37ee0097cf docs/user-guide/sync-options.md); the objects of a lower sync
  wave are applied first (gitops-engine pkg/sync/sync_tasks.go, syncTasks.Less);
- Flux: `kustomize.toolkit.fluxcd.io/prune: disabled` keeps an object from being pruned
  (kustomize-controller's garbage collection), and a Kustomization with dependsOn is applied
  only once the one it depends on is ready.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.kubernetes_schema import schema_failures

MANAGED = {"app.kubernetes.io/managed-by": "mpigen"}
ENFORCE, VERSION = "pod-security.kubernetes.io/enforce", "pod-security.kubernetes.io/enforce-version"
ARGOCD = {"argocd.argoproj.io/sync-wave": "-2", "argocd.argoproj.io/sync-options": "Prune=false,Delete=false"}
FLUX = {"kustomize.toolkit.fluxcd.io/prune": "disabled"}
# The jobs, by file: (name, namespace; None: the blueprint names none, so `default`).
JOBS = {"a.yaml": ("train-a", "team-a"), "b.yaml": ("train-b", "team-b"), "c.yaml": ("train-c", None),
        "d.yaml": ("train-d", "team-a")}
NAMESPACES = ["default", "team-a", "team-b"]

# (id, mpigen.yaml lines beside createNamespaces: true, labels, annotations of every Namespace)
CASES = [
    ("plain", "", MANAGED, None),
    ("baseline", "podSecurity: baseline\n", {**MANAGED, ENFORCE: "baseline", VERSION: "v1.30"}, None),
    ("kube-1.31", "podSecurity: privileged\nkubeVersion: '1.31'\n", {**MANAGED, ENFORCE: "privileged", VERSION: "v1.31"},
     None),
    ("argocd", "gitops: argocd\nargocd: {repoURL: https://git.example.com/t.git}\n", MANAGED, ARGOCD),
    ("flux", "gitops: flux\nflux: {}\npodSecurity: baseline\n", {**MANAGED, ENFORCE: "baseline", VERSION: "v1.30"},
     FLUX),
]


def blueprint(name: str, namespace: str | None) -> str:
    where = f"  namespace: {namespace}\n" if namespace else ""
    return (f"apiVersion: mpigen.dev/v1alpha1\nkind: MPIJobBlueprint\nmetadata:\n  name: {name}\n{where}spec:\n"
            "  image: example.com/train:1\n  workers: 2\n  command: [python, train.py]\n"
            "  resources:\n    worker: {cpu: '1', memory: 1Gi}\n    launcher: {cpu: 100m, memory: 256Mi}\n")


def repository(root: Path, config: str, overlays: dict[str, str] | None = None) -> Path:
    (root / "blueprints").mkdir(parents=True)
    for file, (name, namespace) in JOBS.items():
        (root / "blueprints" / file).write_text(blueprint(name, namespace))
    listed = f"overlays: [{', '.join(overlays)}]\n" if overlays else ""
    (root / "mpigen.yaml").write_text(f"apiVersion: mpigen.dev/v1alpha1\nkind: Config\noutput: out\n{listed}{config}")
    for name, text in (overlays or {}).items():
        (root / "overlays" / name).mkdir(parents=True)
        (root / "overlays" / name / "overlay.yaml").write_text(
            f"apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n{text}")
    return root


def namespaces_in(folder: Path) -> dict[str, dict]:
    """Every Namespace written under `folder`, by its file's path relative to it."""
    found = {}
    for path in sorted(folder.rglob("*.yaml")):
        obj = yaml.safe_load(path.read_text())
        if isinstance(obj, dict) and obj.get("kind") == "Namespace":
            found[path.relative_to(folder).as_posix()] = obj
    return found


@pytest.mark.parametrize("config, labels, annotations", [case[1:] for case in CASES], ids=[c[0] for c in CASES])
def test_a_namespace_per_namespace_the_jobs_use_with_its_labels_and_the_profiles_annotations(
        cli, tmp_path, config, labels, annotations):
    repository(tmp_path, "createNamespaces: true\n" + config)
    done = cli("render")
    assert done.returncode == 0, done.stderr
    found = namespaces_in(tmp_path / "out")
    assert sorted(obj["metadata"]["name"] for obj in found.values()) == NAMESPACES
    for obj in found.values():
        expected = {"name": obj["metadata"]["name"], "labels": labels}
        if annotations:
            expected["annotations"] = annotations
        assert obj == {"apiVersion": "v1", "kind": "Namespace", "metadata": expected}
    assert schema_failures(list(found.items())) == []


def test_off_by_default_and_an_overlay_wins_over_mpigen_yaml(cli, tmp_path):
    """mpigen.yaml's value is every environment's default, an overlay's own (or its base's) wins."""
    repository(tmp_path / "unset", "", {"plain": "", "writes": "createNamespaces: true\n"})
    repository(tmp_path / "set", "createNamespaces: true\n",
               {"plain": "", "quiet": "createNamespaces: false\n", "child": "bases: [quiet]\nnamespace: ml-x\n"})
    os.chdir(tmp_path / "unset")
    assert cli("render").returncode == 0
    assert {p.split("/")[0] for p in namespaces_in(tmp_path / "unset" / "out")} == {"writes"}
    os.chdir(tmp_path / "set")
    assert cli("render").returncode == 0
    assert {p.split("/")[0] for p in namespaces_in(tmp_path / "set" / "out")} == {"plain"}


def test_namespaces_come_first_in_each_kustomization(cli, tmp_path):
    """`kubectl apply -k` creates the objects in the order the kustomization lists them."""
    repository(tmp_path, "createNamespaces: true\n")
    assert cli("render").returncode == 0
    resources = yaml.safe_load((tmp_path / "out" / "kustomization.yaml").read_text())["resources"]
    assert resources[:3] == [f"_cluster/namespace-{name}.yaml" for name in NAMESPACES]
    assert not any("namespace-" in path for path in resources[3:])


def test_argocd_applies_the_namespaces_in_a_wave_before_every_other_object(cli, tmp_path):
    repository(tmp_path, "createNamespaces: true\n" + CASES[3][1])
    assert cli("render").returncode == 0
    waves = {}
    for path in (tmp_path / "out").rglob("*.yaml"):
        obj = yaml.safe_load(path.read_text())
        if obj.get("kind") != "Kustomization":
            waves[(obj["kind"], obj["metadata"]["name"])] = int(obj["metadata"].get("annotations", {}).get(
                "argocd.argoproj.io/sync-wave", "0"))
    first = {key for key, wave in waves.items() if wave == min(waves.values())}
    assert first == {("Namespace", name) for name in NAMESPACES}


def test_flux_applies_every_job_after_the_namespaces_are_ready(cli, tmp_path):
    """Under flux the static target applies each job in steps, a Kustomization per step: the
    Namespaces have one of their own, which waits, and every chain starts after it."""
    repository(tmp_path, "createNamespaces: true\n" + CASES[4][1])
    assert cli("render").returncode == 0
    documents = list(yaml.safe_load_all((tmp_path / "flux" / "kustomizations.yaml").read_text()))
    by_name = {doc["metadata"]["name"]: doc for doc in documents}
    namespaces = [doc for doc in documents if doc["spec"]["path"] == "./out/namespaces"]
    assert len(namespaces) == 1 and namespaces[0]["spec"]["wait"] is True and "dependsOn" not in namespaces[0]["spec"]
    assert sorted(namespaces_in(tmp_path / "out" / "namespaces")) == [
        f"_cluster/namespace-{name}.yaml" for name in NAMESPACES]
    for doc in documents:
        seen = doc
        while "dependsOn" in seen["spec"]:
            seen = by_name[seen["spec"]["dependsOn"][0]["name"]]
        assert seen is namespaces[0], doc["metadata"]["name"]
    assert len(documents) == 1 + 2 * len(JOBS)


def test_environments_of_one_cluster_share_a_namespace_and_must_agree_on_it(cli, tmp_path):
    """Two Argo CD environments with one destination write team-a once, in the cluster's folder;
    with two Pod Security levels for it, the render stops, naming both environments."""
    config = "createNamespaces: true\ngitops: argocd\nargocd: {repoURL: https://git.example.com/t.git}\n"
    repository(tmp_path / "same", config, {"one": "", "two": ""})
    os.chdir(tmp_path / "same")
    done = cli("render")
    assert done.returncode == 0, done.stderr
    found = namespaces_in(tmp_path / "same" / "out")
    assert len(found) == 3 and all(path.startswith("_cluster--") for path in found)
    repository(tmp_path / "differ", config, {"one": "podSecurity: baseline\n", "two": "podSecurity: privileged\n"})
    os.chdir(tmp_path / "differ")
    done = cli("render")
    assert done.returncode == 2 and "environments one and two apply to one cluster" in done.stderr
    assert not (tmp_path / "differ" / "out").exists()


def test_the_output_is_the_same_bytes_whatever_the_hash_seed_time_zone_or_locale(tmp_path):
    repository(tmp_path, "createNamespaces: true\n" + CASES[4][1])
    trees = []
    for seed, zone in (("1", "UTC"), ("4242", "Asia/Tokyo"), ("random", "America/Los_Angeles")):
        env = {**os.environ, "PYTHONHASHSEED": seed, "TZ": zone}
        out = tmp_path / f"out-{seed}"
        run_mpigen("render", "-o", str(out), cwd=tmp_path, env=env, check=True)
        trees.append({p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()})
    assert trees[0] == trees[1] == trees[2]
    assert any("namespace-team-a" in path for path in trees[0])
