"""`target:` in an overlay (issue 17: --target jobset, also target: in mpigen.yaml and
overlays): that environment's folder is rendered for its target, the flag still wins, an
overlay inherits its base's, and a target mpigen does not have is an error at its line."""

from __future__ import annotations

import shutil

import yaml

from tests.support.command_line import run_mpigen
from tests.support.paths import ROOT
from tests.support.text import write

CONFIG = "apiVersion: mpigen.dev/v1alpha1\nkind: Config\noverlays: [dev, prod]\noutput: out\n"


def examples_repository(tmp_path, dev_target: str = "jobset"):
    shutil.copytree(ROOT / "blueprints", tmp_path / "blueprints")
    shutil.copytree(ROOT / "overlays", tmp_path / "overlays")
    dev = tmp_path / "overlays" / "dev" / "overlay.yaml"
    dev.write_text(dev.read_text().replace("kind: Overlay\n", f"kind: Overlay\ntarget: {dev_target}\n"))
    write(tmp_path / "mpigen.yaml", CONFIG)
    return tmp_path


def kinds(folder) -> set[str]:
    return {o["kind"] for p in folder.rglob("*.yaml") if p.name != "kustomization.yaml"
            for o in yaml.safe_load_all(p.read_text()) if o}


def test_each_environment_renders_for_its_own_target(tmp_path):
    root = examples_repository(tmp_path)
    done = run_mpigen("render", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "JobSet" in kinds(root / "out" / "dev") and "StatefulSet" not in kinds(root / "out" / "dev")
    assert "StatefulSet" in kinds(root / "out" / "prod") and "JobSet" not in kinds(root / "out" / "prod")
    assert run_mpigen("render", "--target", "static", "-o", "flag", cwd=root).returncode == 0
    assert "JobSet" not in kinds(root / "flag")


def test_an_overlay_inherits_its_bases_target(tmp_path):
    root = examples_repository(tmp_path)
    write(root / "overlays" / "dev2" / "overlay.yaml",
          "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\nbases: [dev]\n")
    done = run_mpigen("render", "--overlay", "dev2", "-o", "out2", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "JobSet" in kinds(root / "out2")


def test_an_unknown_target_is_an_error_at_the_overlays_line(tmp_path):
    root = examples_repository(tmp_path, dev_target="helm")
    done = run_mpigen("render", cwd=root)
    lines = (root / "overlays" / "dev" / "overlay.yaml").read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if text == "target: helm")
    assert done.returncode == 2 and not (root / "out").exists()
    assert done.stderr.decode().strip() == (f"overlays/dev/overlay.yaml:{line}:9: error: target: 'helm' is not one of "
                                            "static, mpijob, jobset, trainjob")
