"""Generated names (issue 15, defect 3): every name mpigen makes (objects, Argo CD
Applications, Flux Kustomizations) is a valid Kubernetes name, and no two meet.

The rules come from outside mpigen: see tests/support/kubernetes_names.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.golden import MPIJOB_EXAMPLES
from tests.support.paths import ROOT
from tests.support.text import pos, write
from tests.support.kubernetes_names import (DNS1035_LABEL, DNS1123_LABEL, LABEL_VALUE, QUALIFIED_NAME, blueprint,
                                            is_label, is_subdomain, one_error, overlay_text)


# --- defect 3: every generated name is valid and unique -----------------------------------

CONFIG = """apiVersion: mpigen.dev/v1alpha1
kind: Config
blueprints: [blueprints]
overlays: {overlays}
output: deploy
gitops: {gitops}
argocd: {{repoURL: "https://git.example.com/ml.git", applications: clusters/argocd}}
flux: {{kustomizations: clusters/flux}}
"""


def repository_files(tmp_path, jobs: list[tuple[str, str]], overlays: list[str], gitops: str) -> None:
    for name, namespace in jobs:
        write(tmp_path / "blueprints" / namespace / f"{name}.yaml", blueprint(name, namespace))
    for name in overlays:
        write(tmp_path / "overlays" / name / "overlay.yaml", overlay_text())
    write(tmp_path / "mpigen.yaml", CONFIG.format(overlays=json.dumps(overlays), gitops=gitops))


def repository(tmp_path, jobs: list[tuple[str, str]], overlays: list[str], gitops: str) -> Path:
    repository_files(tmp_path, jobs, overlays, gitops)
    done = run_mpigen("render", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path


def documents(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]


def kustomizations(repo: Path) -> list[dict]:
    return [d for p in sorted((repo / "clusters" / "flux").glob("kustomizations*.yaml")) for d in documents(p)]


def test_flux_kustomizations_of_jobs_whose_plain_join_meets_are_distinct(tmp_path):
    """Job c in namespace a-b and job b-c in namespace a: 'mpigen-a-b-c' for both before."""
    repo = repository(tmp_path, [("c", "a-b"), ("b-c", "a")], ["dev"], "flux")
    docs = kustomizations(repo)
    names = [d["metadata"]["name"] for d in docs]
    assert len(docs) == 4 and len(set(names)) == 4, names
    assert all(len(n) <= 63 and DNS1123_LABEL.fullmatch(n) for n in names), names
    # Each pair applies its own job's folders, the launcher's after the workers'.
    for doc in docs:
        role = "launcher" if doc["spec"].get("dependsOn") else "workers"
        namespace, job = doc["spec"]["path"].split("/")[-3:-1]
        assert doc["spec"]["path"] == f"./deploy/dev/{namespace}/{job}/{role}"
        if role == "launcher":
            workers = next(d for d in docs if d["spec"]["path"] == f"./deploy/dev/{namespace}/{job}/workers")
            assert doc["spec"]["dependsOn"] == [{"name": workers["metadata"]["name"]}]
    assert {tuple(d["spec"]["path"].split("/")[-3:-1]) for d in docs} == {("a-b", "c"), ("a", "b-c")}


def test_names_without_a_dash_in_overlay_and_namespace_keep_their_plain_join(tmp_path):
    """Existing deployments keep the names of their Kustomizations and Applications."""
    repo = repository(tmp_path, [("mpich-pi", "hpc")], ["dev"], "flux")
    assert sorted(d["metadata"]["name"] for d in kustomizations(repo)) == [
        "mpigen-dev-hpc-mpich-pi-launcher", "mpigen-dev-hpc-mpich-pi-workers"]


def test_an_overlay_that_is_not_a_dns_label_gets_a_valid_application_name(tmp_path):
    repo = repository(tmp_path, [("job", "ns")], ["Prod_EU", "prod-eu", "prod"], "argocd")
    apps = [d for p in sorted((repo / "clusters" / "argocd").glob("application-*.yaml")) for d in documents(p)]
    names = {d["spec"]["source"]["path"]: d["metadata"]["name"] for d in apps}
    assert set(names) == {"deploy/Prod_EU", "deploy/prod-eu", "deploy/prod"}
    assert len(set(names.values())) == 3, names
    assert all(len(n) <= 63 and DNS1123_LABEL.fullmatch(n) for n in names.values()), names
    assert names["deploy/prod"] == "mpigen-prod"


def test_long_inputs_give_short_distinct_names(tmp_path):
    """63-character overlay and namespace, jobs that differ only in their last character (as
    long as a static job under a GitOps profile may be: its StatefulSet's pods need 38 at most)."""
    namespace, env = "n" * 63, "e" * 63
    jobs = [("j" * 36 + "-1", namespace), ("j" * 36 + "-2", namespace)]
    repo = repository(tmp_path, jobs, [env], "flux")
    names = [d["metadata"]["name"] for d in kustomizations(repo)]
    assert len(set(names)) == 4 and all(len(n) <= 63 and DNS1123_LABEL.fullmatch(n) for n in names), names


def _names_of(objects: list[dict]) -> list[tuple[str, str, str]]:
    return [(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]) for o in objects]


def _check_object_names(obj: dict) -> None:
    kind, meta = obj["kind"], obj["metadata"]
    name = meta["name"]
    assert is_subdomain(name), (kind, name)
    if "namespace" in meta:
        assert is_label(meta["namespace"]), (kind, meta["namespace"])
    if kind in ("Job", "MPIJob", "Application", "Kustomization"):
        assert len(name) <= 63, (kind, name)  # a label value on their pods or objects
    if kind == "MPIJob":
        assert DNS1035_LABEL.fullmatch(name), name  # the operator names a Service after it
    if kind == "StatefulSet":  # pod hostnames <name>-<ordinal>
        assert is_label(f"{name}-{obj['spec']['replicas'] - 1 if obj['spec']['replicas'] else 0}"), name
    for labels in (meta.get("labels", {}), obj.get("spec", {}).get("template", {}).get("metadata", {})
                   .get("labels", {})):
        for key, value in labels.items():
            assert QUALIFIED_NAME.fullmatch(key) and len(key.split("/")[-1]) <= 63, key
            assert len(value) <= 63 and LABEL_VALUE.fullmatch(value), (key, value)


@pytest.mark.parametrize("profile", ["none", "argocd", "flux"])
def test_every_name_of_a_whole_repository_render_is_a_kubernetes_name(tmp_path, profile):
    """The examples under every overlay of the repository, with the companions."""
    shutil.copytree(ROOT / "blueprints", tmp_path / "blueprints")
    shutil.copytree(ROOT / "overlays", tmp_path / "overlays")
    write(tmp_path / "overlays" / "Prod_EU" / "overlay.yaml", overlay_text("bases: [prod]\n"))
    overlays = sorted(p.name for p in (tmp_path / "overlays").iterdir())
    write(tmp_path / "mpigen.yaml", CONFIG.format(overlays=json.dumps(overlays), gitops=profile))
    done = run_mpigen("render", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    objects = [d for folder in ("deploy", "clusters") for p in sorted((tmp_path / folder).rglob("*.yaml"))
               if p.name != "kustomization.yaml" for d in documents(p)]
    assert objects
    for obj in objects:
        _check_object_names(obj)
    for env in overlays:  # unique per kind and namespace within an environment
        names = _names_of([d for p in sorted((tmp_path / "deploy" / env).rglob("*.yaml"))
                           if p.name != "kustomization.yaml" for d in documents(p)])
        assert len(names) == len(set(names))
    companions = _names_of([o for o in objects if o["kind"] in ("Application", "Kustomization")
                            and o["apiVersion"] != "kustomize.config.k8s.io/v1beta1"])
    assert len(companions) == len(set(companions))


@pytest.mark.parametrize("target", [["--target", "mpijob"], ["--target", "mpijob", "--gitops", "argocd"],
                                    ["--target", "static", "--gitops", "flux"]])
def test_every_name_of_the_examples_is_a_kubernetes_name_per_target(target):
    # the examples the target renders (mpijob refuses some: tests/support/golden.py)
    examples = MPIJOB_EXAMPLES if "mpijob" in target else ["blueprints"]
    done = run_mpigen("render", *examples, "--stdout", *target, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    objects = [d for d in yaml.safe_load_all(done.stdout) if d]
    for obj in objects:
        _check_object_names(obj)
    assert len(_names_of(objects)) == len(set(_names_of(objects)))


def test_two_jobs_whose_companions_still_meet_are_named_both(tmp_path, monkeypatch, mpigen_in_process):
    """The render checks names even where they are built not to meet: with every name made
    one (as a hash collision would), both jobs are reported at their metadata.name."""
    import mpigen.emit.companion_names

    monkeypatch.chdir(tmp_path)
    first = write(tmp_path / "blueprints" / "a.yaml", blueprint("one", "ns"))
    second = write(tmp_path / "blueprints" / "b.yaml", blueprint("two", "ns"))
    write(tmp_path / "mpigen.yaml", CONFIG.format(overlays="[]", gitops="flux"))
    monkeypatch.setattr(mpigen.emit.companion_names, "generated_name", lambda *args, **kwargs: "mpigen-same")
    done = mpigen_in_process("render")
    assert done.returncode == 2, done.stderr
    errors = done.lines("error")
    assert len(errors) == 1, done.stderr
    one, two = pos(first, '"one"'), pos(second, '"two"')
    assert errors[0] == (f"blueprints/b.yaml:{two[0]}:{two[1]}: error: the Flux Kustomization of job ns/two would be "
                         f"named mpigen-same-workers, as that of job ns/one at blueprints/a.yaml:{one[0]}:{one[1]}; "
                         "rename one of the jobs"), errors
    assert not (tmp_path / "deploy").exists()


@pytest.mark.parametrize("gitops, target, kind", [("argocd", "static", "Argo CD Application"),
                                                  ("flux", "jobset", "Flux Kustomization"),
                                                  ("flux", "trainjob", "Flux Kustomization")])
def test_two_environments_whose_companions_still_meet_are_named_both(tmp_path, monkeypatch, mpigen_in_process,
                                                                     gitops, target, kind):
    """Every kind of name keeps the check: the environment's Application, its Kustomization,
    its steps' Kustomizations; the second overlay's folder is named with the first's."""
    import mpigen.emit.companion_names

    monkeypatch.chdir(tmp_path)
    repository_files(tmp_path, [("job", "ns")], ["dev", "prod"], gitops)
    write(tmp_path / "mpigen.yaml", (tmp_path / "mpigen.yaml").read_text() + f"target: {target}\n")
    monkeypatch.setattr(mpigen.emit.companion_names, "generated_name", lambda *args, **kwargs: "mpigen-same")
    done = mpigen_in_process("render")
    assert done.returncode == 2, done.stderr
    errors = done.lines("error")
    assert len(errors) == 1 and errors[0].startswith("error: overlays/prod: "), errors
    assert f" the {kind} of environment prod would be named mpigen-same" in errors[0], errors
    assert errors[0].endswith(", as that of environment dev at overlays/dev; rename one of the overlay folders"), errors
    assert not (tmp_path / "deploy").exists()


def test_two_jobs_whose_objects_still_meet_are_named_both(tmp_path, monkeypatch, mpigen_in_process):
    import mpigen.render.static.workers

    monkeypatch.chdir(tmp_path)
    first = write(tmp_path / "bp" / "a.yaml", blueprint("one", "ns"))
    second = write(tmp_path / "bp" / "b.yaml", blueprint("two", "ns"))
    monkeypatch.setattr(mpigen.render.static.workers, "worker_name", lambda job: "same")
    done = mpigen_in_process("render", "bp", "-o", "out")
    assert done.returncode == 2, done.stderr
    one, two = pos(first, '"one"'), pos(second, '"two"')
    assert done.lines("error") == [f"bp/b.yaml:{two[0]}:{two[1]}: error: job ns/two renders "
                                   f"ns/statefulset-same.yaml, as the job at bp/a.yaml:{one[0]}:{one[1]} does; "
                                   "rename one of the jobs"]
    assert not (tmp_path / "out").exists()


def test_mpigen_yaml_namespaces_are_kubernetes_names(tmp_path):
    write(tmp_path / "blueprints" / "job.yaml", blueprint())
    text = write(tmp_path / "mpigen.yaml", "apiVersion: mpigen.dev/v1alpha1\nkind: Config\noutput: out\n"
                                           "flux: {namespace: Flux System}\n")
    line = one_error(run_mpigen("render", cwd=tmp_path))
    assert line.startswith("mpigen.yaml:%d:%d: error: flux.namespace: " % pos(text, "Flux System")), line


def test_argocd_and_flux_companions_need_folders_of_their_own(tmp_path):
    """Each writes its kustomization.yaml and index there: the second would remove the first's files."""
    write(tmp_path / "blueprints" / "job.yaml", blueprint())
    text = write(tmp_path / "mpigen.yaml", "apiVersion: mpigen.dev/v1alpha1\nkind: Config\noutput: out\n"
                                           "argocd: {repoURL: https://git.example.com/ml.git, applications: clusters}\n"
                                           "flux: {kustomizations: clusters/flux}\n")
    line = one_error(run_mpigen("render", cwd=tmp_path))
    assert line.startswith("mpigen.yaml:%d:%d: error: flux.kustomizations: 'clusters/flux' overlaps "
                           "argocd.applications 'clusters'" % pos(text, "clusters/flux")), line


def test_an_environment_named_as_another_s_step_gets_a_kustomization_of_its_own(tmp_path, kubectl):
    """Issue 30, item 3: trainjob environment `dev` has the steps `mpigen-dev-runtimes` and
    `mpigen-dev-trainjobs`; jobset environment `dev-runtimes` was `mpigen-dev-runtimes` too, so
    kustomize refused the folder and dev's TrainJobs depended on the JobSets' Kustomization."""
    write(tmp_path / "blueprints" / "ns" / "job.yaml", blueprint("job", "ns"))
    write(tmp_path / "overlays" / "dev" / "overlay.yaml", overlay_text("target: trainjob\n"))
    write(tmp_path / "overlays" / "dev-runtimes" / "overlay.yaml", overlay_text("target: jobset\n"))
    write(tmp_path / "mpigen.yaml", CONFIG.format(overlays='["dev", "dev-runtimes"]', gitops="flux"))
    done = run_mpigen("render", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    built = subprocess.run([kubectl, "kustomize", str(tmp_path / "clusters" / "flux")], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    docs = {d["metadata"]["name"]: d["spec"] for d in yaml.safe_load_all(built.stdout) if d}
    assert docs["mpigen-dev-runtimes"]["path"] == "./deploy/dev/runtimes"
    assert docs["mpigen-dev-trainjobs"]["path"] == "./deploy/dev/trainjobs"
    assert docs["mpigen-dev-trainjobs"]["dependsOn"] == [{"name": "mpigen-dev-runtimes"}]
    assert docs["mpigen-dev--runtimes"]["path"] == "./deploy/dev-runtimes"
    assert len(docs) == 3
