"""`kubectl kustomize` builds the `-o` folder and yields exactly the rendered objects."""

from __future__ import annotations

import subprocess

import pytest

import yaml

from tests.support.command_line import run_mpigen
from tests.support.paths import GOLDEN, ROOT


def test_kustomize_builds_the_output_folder(kubectl, tmp_path):
    out = tmp_path / "out"
    assert run_mpigen("render", "blueprints", "-o", str(out), cwd=ROOT).returncode == 0
    built = subprocess.run([kubectl, "kustomize", str(out)], capture_output=True, text=True, check=True).stdout
    streamed = run_mpigen("render", "blueprints", "--stdout", cwd=ROOT).stdout.decode()

    def key(o):
        return (o["kind"], o["metadata"]["namespace"], o["metadata"]["name"])

    assert sorted(yaml.safe_load_all(built), key=key) == sorted(yaml.safe_load_all(streamed), key=key)


def test_kustomize_builds_the_golden_folder(kubectl):
    subprocess.run([kubectl, "kustomize", str(GOLDEN / "static")], capture_output=True, check=True)


def _objects(text: str) -> list[dict]:
    def key(o):
        return (o["kind"], o["metadata"]["namespace"], o["metadata"]["name"])

    return sorted((o for o in yaml.safe_load_all(text) if o), key=key)


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_each_overlay_folder_is_a_kustomize_root_with_the_overlay_objects(kubectl, overlay):
    """What Argo CD or Flux would apply from golden/overlays/<overlay> is exactly what
    `mpigen render --overlay <overlay>` streams."""
    built = subprocess.run([kubectl, "kustomize", str(GOLDEN / "overlays" / overlay)],
                           capture_output=True, text=True, check=True).stdout
    streamed = run_mpigen("render", "blueprints", "--overlay", overlay, "--stdout", cwd=ROOT)
    assert streamed.returncode == 0, streamed.stderr
    assert _objects(built) == _objects(streamed.stdout.decode())


def test_the_output_root_with_overlays_has_no_kustomization(kubectl):
    """Each overlay is its own root: a kustomization over all of them would merge
    environments that may share namespaces and names."""
    assert not (GOLDEN / "overlays" / "kustomization.yaml").exists()
    assert sorted(p.name for p in (GOLDEN / "overlays").iterdir()) == [".mpigen-index", "dev", "prod"]


@pytest.mark.parametrize("folder", sorted(
    p.parent.relative_to(GOLDEN).as_posix() for p in GOLDEN.glob("overlays-*/**/kustomization.yaml")))
def test_every_synced_folder_of_every_profile_builds(kubectl, folder):
    """Each kustomize root a controller may point at: an environment folder, and in the flux
    profile each job's workers and launcher folders."""
    built = subprocess.run([kubectl, "kustomize", str(GOLDEN / folder)], capture_output=True, text=True, check=True)
    assert [o for o in yaml.safe_load_all(built.stdout) if o]
