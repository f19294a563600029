"""Applying an overlay to a blueprint (mpigen.overlay.apply): its bases first, then its
namespace, labels and annotations, then its patches on the blueprints they select, then its
image rewrites, as Kustomize's images transformer rewrites them (newName, newTag, digest:
kubectl kustomize, "images" field); and the patches and rewrites that selected nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from mpigen.formats.overlay import ImageRewrite
from mpigen.load.parser import parse
from mpigen.overlay.apply import Usage, apply, rewrite_image
from mpigen.overlay.resolve import resolve
from tests.support.blueprints import blueprint_text
from tests.support.text import write

HEAD = "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n"
DIGEST = "sha256:" + "0123456789abcdef" * 4


@pytest.mark.parametrize("image, rewrite, result", [
    ("postgres", {"name": "postgres", "newTag": "10"}, "postgres:10"),
    ("postgres:9.6", {"name": "postgres", "newTag": "10"}, "postgres:10"),
    ("postgres:9.6", {"name": "postgres", "newName": "my-registry/my-postgres"}, "my-registry/my-postgres:9.6"),
    ("postgres:9.6", {"name": "postgres", "newName": "my-registry/pg", "newTag": "v1"}, "my-registry/pg:v1"),
    ("postgres:9.6", {"name": "postgres", "digest": DIGEST}, f"postgres@{DIGEST}"),
    (f"postgres@{DIGEST}", {"name": "postgres", "newName": "mirror/pg"}, f"mirror/pg@{DIGEST}"),
    ("registry:5000/app:1", {"name": "registry:5000/app", "newTag": "2"}, "registry:5000/app:2"),  # a port, not a tag
    ("postgres:9.6", {"name": "mysql", "newTag": "8"}, None),
    ("library/postgres:9.6", {"name": "postgres", "newTag": "10"}, None),  # the name as written, not normalised
], ids=["tag-added", "tag", "name-keeps-tag", "name-and-tag", "digest-replaces-tag", "name-keeps-digest", "port",
        "other-repository", "written-otherwise"])
def test_an_image_rewrite_as_kustomize_does_it(image, rewrite, result):
    assert rewrite_image(image, ImageRewrite(**rewrite)) == result


def overlays(root: Path, **bodies: str) -> None:
    for name, body in bodies.items():
        write(root / "overlays" / name / "overlay.yaml", HEAD + body)


def applied(root: Path, name: str, text: str, usage: Usage | None = None) -> dict:
    (overlay,) = resolve([name], root)
    (doc,) = parse(text, "blueprints/job.yaml")
    return apply(overlay, doc, usage or Usage()).data


def test_bases_apply_first_and_the_overlay_over_them(tmp_path):
    overlays(tmp_path, base="namespace: base\nlabels: {tier: batch, pool: a}\n",
             prod="bases: [base]\nnamespace: prod\nlabels: {pool: b}\n")
    data = applied(tmp_path, "prod", blueprint_text("job", labels={"team": "vision"}))
    assert data["metadata"] == {"name": "job", "namespace": "prod", "labels": {"team": "vision", "tier": "batch",
                                                                             "pool": "b"}}


def test_a_patch_comes_after_the_labels_and_an_image_rewrite_after_the_patches(tmp_path):
    overlays(tmp_path, prod=(
        "labels: {tier: batch}\n"
        "patches:\n"
        "  - {patch: {metadata: {labels: {tier: urgent}}, spec: {image: 'example.com/new:1'}}}\n"
        "images:\n"
        "  - {name: example.com/new, newName: mirror.example.com/new}\n"))
    data = applied(tmp_path, "prod", blueprint_text("job"))
    assert data["metadata"]["labels"] == {"tier": "urgent"}
    assert data["spec"]["image"] == "mirror.example.com/new:1"


@pytest.mark.parametrize("target, selected", [
    ("{}", True),
    ("{name: 'job*'}", True),
    ("{name: 'other'}", False),
    ("{labelSelector: 'team=vision'}", True),
    ("{labelSelector: 'team in (nlp)'}", False),
    ("{labelSelector: '!team'}", False),
    ("{name: 'job', labelSelector: 'team!=nlp'}", True),
])
def test_a_patch_applies_to_the_blueprints_its_target_selects(tmp_path, target, selected):
    """Name as a shell-style glob, labels as a Kubernetes label selector (both must hold)."""
    overlays(tmp_path, prod=f"patches:\n  - target: {target}\n    patch: {{spec: {{workers: 9}}}}\n")
    usage = Usage()
    data = applied(tmp_path, "prod", blueprint_text("job", labels={"team": "vision"}), usage)
    assert data["spec"]["workers"] == (9 if selected else 2)
    (overlay,) = resolve(["prod"], tmp_path)
    assert [d.message for d in usage.unused([overlay])] == (
        [] if selected else ["patches[0] selects no blueprint; check its target"])


def test_an_image_rewrite_no_blueprint_uses_is_reported(tmp_path):
    overlays(tmp_path, prod="images:\n  - {name: example.com/other, newTag: '2'}\n")
    usage = Usage()
    assert applied(tmp_path, "prod", blueprint_text("job"), usage)["spec"]["image"] == "example.com/train:1"
    (overlay,) = resolve(["prod"], tmp_path)
    (unused,) = usage.unused([overlay])
    assert unused.severity == "warning" and unused.message == "images[0]: no blueprint uses the image example.com/other"


@pytest.mark.parametrize("name, said", [
    ("train-llama", "patches[0] selects no blueprint; target.name 'train-llama' is the file name of "
                    "blueprints/train-llama.yaml, whose job is named 'llama-pretrain': target.name matches "
                    "metadata.name; write name: llama-pretrain"),
    ("llama-pretrian", "patches[0] selects no blueprint; no job is named 'llama-pretrian'; did you mean "
                       "'llama-pretrain'? (target.name matches metadata.name, a shell-style glob)"),
    ("zzz", "patches[0] selects no blueprint; no job is named like 'zzz' (target.name matches metadata.name); "
            "the jobs: bert, llama-pretrain"),
])
def test_a_patch_that_selects_nothing_names_the_nearest_jobs(tmp_path, name, said):
    """The issue's case: a prod patch whose target.name is the file's name, not the job's."""
    overlays(tmp_path, prod=f"patches:\n  - target: {{name: {name}}}\n    patch: {{spec: {{workers: 9}}}}\n")
    usage = Usage()
    applied(tmp_path, "prod", blueprint_text("llama-pretrain"), usage)
    (overlay,) = resolve(["prod"], tmp_path)
    jobs = {"llama-pretrain": "blueprints/train-llama.yaml", "bert": "blueprints/bert.yaml"}
    assert [d.message for d in usage.unused([overlay], jobs)] == [said]
