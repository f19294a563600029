"""`kubectl kustomize` builds the `-o` folder and yields exactly the rendered objects."""

from __future__ import annotations

import subprocess

import yaml

from tests.conftest import GOLDEN, ROOT, run_mpigen


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
