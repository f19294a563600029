"""The Flux health checks of docs/flux/ take effect with mpigen's Kustomizations (issue 30,
point 6). Flux evaluates healthCheckExprs only for a Kustomization that waits or lists
healthChecks (kustomize-controller v1.9.4, api/v1/kustomization_types.go: "The expressions are
evaluated only when Wait or HealthChecks are specified"; checkHealth in
internal/controller/kustomization_controller.go), and the Kustomization mpigen writes to apply
an environment's jobs never waits. Each docs/flux/<target>-health.yaml is therefore the
Kustomization of a user's own that applies mpigen.yaml's flux.kustomizations folder, whose
spec.patches give that one Kustomization wait: true and the checks. kustomize-controller turns
spec.patches into the `patches` of the kustomization it builds (kustomize, v5.8.1 in v1.9.4's
go.mod); `kubectl kustomize` builds the same here, over a real render of the repository's prod
environment under flux."""

from __future__ import annotations

import shutil
import subprocess

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.golden import config_target
from tests.support.health_checks import flux_health_exprs
from tests.support.paths import ROOT

KINDS = {"jobset": "JobSet", "mpijob": "MPIJob", "trainjob": "TrainJob"}


@pytest.mark.parametrize("target", sorted(KINDS))
def test_the_documented_patch_makes_the_kustomization_of_the_jobs_wait_with_the_checks(kubectl, tmp_path, target):
    doc = ROOT / "docs" / "flux" / f"{target}-health.yaml"
    shutil.copytree(ROOT / "blueprints", tmp_path / "blueprints")
    shutil.copytree(ROOT / "overlays", tmp_path / "overlays")
    (tmp_path / "mpigen.yaml").write_text(
        "apiVersion: mpigen.dev/v1alpha1\nkind: Config\noverlays: [prod]\noutput: rendered\n"
        f"{config_target(target)}flux: {{kustomizations: clusters/flux}}\n", encoding="utf-8")
    assert run_mpigen("render", "--gitops", "flux", cwd=tmp_path).returncode == 0
    own = yaml.safe_load(doc.read_text(encoding="utf-8"))
    assert own["spec"]["path"] == "./clusters/flux" and own["spec"]["sourceRef"]["kind"] == "GitRepository"

    (tmp_path / "kustomization.yaml").write_text(yaml.safe_dump(
        {"resources": ["clusters/flux"], "patches": own["spec"]["patches"]}), encoding="utf-8")
    built = subprocess.run([kubectl, "kustomize", str(tmp_path)], capture_output=True, text=True, check=True).stdout
    generated = {o["metadata"]["name"]: o for o in yaml.safe_load_all(
        (tmp_path / "clusters" / "flux" / "kustomizations-prod.yaml").read_text(encoding="utf-8"))}
    applied = {o["metadata"]["name"]: o for o in yaml.safe_load_all(built)}
    patched = [name for name in applied if applied[name] != generated[name]]

    assert len(patched) == 1, patched
    kustomization = applied[patched[0]]["spec"]
    assert generated[patched[0]]["spec"]["wait"] is False  # why the patch is needed
    assert kustomization["wait"] is True and kustomization["healthCheckExprs"] == flux_health_exprs(doc)
    assert kustomization["timeout"]
    # the patched one applies the jobs: its folder holds the kind the checks are for
    folder = tmp_path / kustomization["path"]
    kinds = {yaml.safe_load(path.read_text(encoding="utf-8"))["kind"] for path in folder.rglob("*.yaml")
             if path.name != "kustomization.yaml"}
    assert {e["kind"] for e in kustomization["healthCheckExprs"]} == {KINDS[target]} <= kinds
