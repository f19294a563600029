"""Overlays and the output folder: removing or rendering one overlay keeps the others, and
`kubectl kustomize` builds each overlay folder as its stream.

Every test builds a small repository in its own tmp folder (the working folder of the
test) and runs either the pipeline or the real command line in-process; expected values
are derived by hand from the input written here; expected positions are computed from the
YAML text (`pos`), never typed in.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from tests.support.overlays import _repository, index_paths, key, overlay, tree
from tests.support.text import write


# --- 9. output scope ----------------------------------------------------------------------------

def test_removing_an_overlay_from_mpigen_yaml_removes_its_folder_but_not_foreign_files(cli):
    _repository()
    assert cli("render").returncode == 0
    write("out/README.md", "mine\n")
    write("out/prod/NOTES.md", "mine too\n")
    _repository(overlays=("dev",))
    done = cli("render")
    assert done.returncode == 0, done.stderr
    files = tree(Path("out"))
    assert not [p for p in files if p.startswith("prod/") and p != "prod/NOTES.md"]
    assert files["README.md"] == b"mine\n" and files["prod/NOTES.md"] == b"mine too\n"
    assert sorted(p.name for p in Path("out/prod").iterdir()) == ["NOTES.md"]
    assert index_paths(Path("out")) == {p for p in files if p.startswith("dev/")}


def _render_dev_only_keeps_prod(cli, *args):
    _repository()
    assert cli("render").returncode == 0
    write("out/README.md", "mine\n")
    before = tree(Path("out"))
    prod_before = {p: d for p, d in before.items() if p.startswith("prod/")}
    overlay("dev", "namespace: dev\npatches:\n  - patch: {spec: {workers: 3}}\n")
    done = cli("render", *args)
    assert done.returncode == 0, done.stderr
    after = tree(Path("out"))
    assert {p: d for p, d in after.items() if p.startswith("prod/")} == prod_before
    assert after["README.md"] == b"mine\n"
    changed = sorted(p for p in after if p.startswith("dev/") and after[p] != before.get(p))
    assert changed == ["dev/dev/configmap-one-config.yaml", "dev/dev/configmap-two-config.yaml",
                       "dev/dev/job-one-launcher.yaml", "dev/dev/job-two-launcher.yaml",
                       "dev/dev/role-one-launcher.yaml", "dev/dev/role-two-launcher.yaml",
                       "dev/dev/statefulset-one-worker.yaml", "dev/dev/statefulset-two-worker.yaml"]
    assert yaml.safe_load(Path("out/dev/dev/statefulset-one-worker.yaml").read_text())["spec"]["replicas"] == 3
    assert index_paths(Path("out")) == {p for p in after if p.startswith(("dev/", "prod/"))}
    assert len([p for p in index_paths(Path("out")) if p.startswith("prod/")]) == 13


def test_rendering_one_overlay_into_the_same_folder_keeps_the_others(cli):
    _render_dev_only_keeps_prod(cli, "blueprints", "--overlay", "dev", "-o", "out")


@pytest.mark.parametrize("args", [("--overlay", "dev"), ("--overlay", "dev", "-o", "out")],
                         ids=["config-output", "same-output"])
def test_rendering_one_overlay_of_the_repository_keeps_the_others(cli, args):
    _render_dev_only_keeps_prod(cli, *args)


# --- 10. kubectl kustomize ----------------------------------------------------------------------

def test_kustomize_builds_each_overlay_folder_as_its_stream(cli, kubectl):
    _repository()
    overlay("prod", """\
        bases: [pool]
        labels: {env: prod}
        images:
          - name: example.com/train
            newName: mirror.example.com/train
        """)
    overlay("pool", """\
        patches:
          - target: {name: one}
            patch:
              spec:
                placement:
                  worker:
                    nodeSelector: {pool: a100}
                    tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}]
        """)
    assert cli("render").returncode == 0
    for env in ("dev", "prod"):
        built = subprocess.run([kubectl, "kustomize", f"out/{env}"], capture_output=True, text=True, check=True)
        streamed = cli("render", "--overlay", env, "--stdout")
        assert streamed.returncode == 0, streamed.stderr
        expected = sorted(streamed.objects(), key=key)
        assert len(expected) == 12
        assert sorted((o for o in yaml.safe_load_all(built.stdout) if o), key=key) == expected
