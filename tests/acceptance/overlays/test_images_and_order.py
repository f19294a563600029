"""Overlays: image rewrites, and the order an overlay applies in: bases, then namespace and
labels, then patches, then images; a shared base once.

Every test builds a small repository in its own tmp folder (the working folder of the
test) and runs either the pipeline or the real command line in-process; expected values
are derived by hand from the input written here; expected positions are computed from the
YAML text (`pos`), never typed in.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.overlays import DIGEST, add_blueprint, at, objects_of, overlay, pod_spec, rendered


# --- 4. images ----------------------------------------------------------------------------------

@pytest.mark.parametrize("image, rewrite, expected", [
    ("horovod/horovod:0.28.1", {"name": "horovod/horovod", "newName": "mirror.example.com/horovod"},
     "mirror.example.com/horovod:0.28.1"),
    ("horovod/horovod", {"name": "horovod/horovod", "newName": "mirror.example.com/horovod"},
     "mirror.example.com/horovod"),
    ("horovod/horovod-extra:1", {"name": "horovod/horovod", "newTag": "2"}, None),
    ("other/horovod/horovod:1", {"name": "horovod/horovod", "newTag": "2"}, None),
    ("horovod/horovod:0.28.1", {"name": "horovod/horovod", "newTag": "0.29"}, "horovod/horovod:0.29"),
    ("horovod/horovod", {"name": "horovod/horovod", "newTag": "0.29"}, "horovod/horovod:0.29"),
    ("horovod/horovod:0.28.1", {"name": "horovod/horovod", "newName": "r.example.com/h", "newTag": "x"},
     "r.example.com/h:x"),
    ("horovod/horovod:0.28.1", {"name": "horovod/horovod", "digest": DIGEST}, f"horovod/horovod@{DIGEST}"),
    ("horovod/horovod:0.28.1", {"name": "horovod/horovod", "newName": "r.example.com/h", "digest": DIGEST},
     f"r.example.com/h@{DIGEST}"),
    ("localhost:5000/x:1", {"name": "localhost:5000/x", "newTag": "2"}, "localhost:5000/x:2"),
    ("localhost:5000/x", {"name": "localhost:5000/x", "newName": "reg.example.com/x"}, "reg.example.com/x"),
    ("localhost:5000/x:1", {"name": "localhost:5000/x", "newName": "reg.example.com/x"}, "reg.example.com/x:1"),
    ("localhost:5000/x:1", {"name": "localhost", "newTag": "2"}, None),
])
def test_image_rewrite_matches_the_repository_without_tag(image, rewrite, expected):
    from mpigen.formats.overlay import ImageRewrite
    from mpigen.overlay.apply import rewrite_image

    assert rewrite_image(image, ImageRewrite(**rewrite)) == expected


def test_image_rewrites_in_rendered_objects_and_unused_rewrite_warns(cli):
    add_blueprint("h", image="horovod/horovod:0.28.1")
    add_blueprint("extra", image="horovod/horovod-extra:1")
    add_blueprint("local", image="localhost:5000/x:1")
    text = overlay("x", f"""\
        images:
          - name: horovod/horovod
            newName: mirror.example.com/horovod
          - name: localhost:5000/x
            digest: {DIGEST}
          - name: not/used
            newTag: "1"
        """)
    done = cli("render", "blueprints", "--overlay", "x", "--stdout")
    assert done.returncode == 0, done.stderr
    images = {}
    for obj in done.objects():
        if obj["kind"] in ("StatefulSet", "Job"):
            images.setdefault(obj["metadata"]["name"].rsplit("-", 1)[0], set()).add(
                pod_spec(obj)["containers"][0]["image"])
    assert images == {"h": {"mirror.example.com/horovod:0.28.1"}, "extra": {"horovod/horovod-extra:1"},
                      "local": {f"localhost:5000/x@{DIGEST}"}}
    where = at("overlays/x/overlay.yaml", text, "- name: not/used", "name")
    assert done.lines("warning") == [f"{where}: warning: images[2]: no blueprint uses the image not/used"]


@pytest.mark.parametrize("entry, message", [
    (f'- name: horovod/horovod\n    newTag: "1"\n    digest: {DIGEST}\n',
     "images[0]: give newTag or digest, not both"),
    ("- name: horovod/horovod\n", "images[0]: an image rewrite needs newName, newTag or digest"),
], ids=["newTag-and-digest", "nothing-to-do"])
def test_image_rewrite_needs_exactly_one_way_to_pin(cli, entry, message):
    add_blueprint("h", image="horovod/horovod:0.28.1")
    text = overlay("x", "images:\n  " + entry)
    done = cli("render", "blueprints", "--overlay", "x", "--stdout")
    assert done.returncode == 2 and done.stdout == b""
    errors = done.lines("error")
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{at('overlays/x/overlay.yaml', text, '- name: horovod', 'name')}: error: {message}")


def test_image_rewrite_applies_after_patches():
    add_blueprint("one", image="horovod/horovod:0.28.1")
    add_blueprint("two", image="example.com/train:1")
    overlay("x", """\
        patches:
          - target: {name: two}
            patch: {spec: {image: "horovod/horovod:0.29"}}
        images:
          - name: horovod/horovod
            newName: mirror.example.com/horovod
        """)
    objects = objects_of(rendered("x"))
    assert pod_spec(objects[("StatefulSet", "one-worker")])["containers"][0]["image"] == \
        "mirror.example.com/horovod:0.28.1"
    assert pod_spec(objects[("Job", "two-launcher")])["containers"][0]["image"] == "mirror.example.com/horovod:0.29"


# --- 5. order -----------------------------------------------------------------------------------

def test_bases_then_namespace_and_labels_then_patches_then_images():
    add_blueprint("one", namespace="team", labels={"layer": "blueprint"})
    add_blueprint("two", namespace="team")
    overlay("base", """\
        namespace: base-ns
        labels: {layer: base, from-base: "yes"}
        patches:
          - patch: {spec: {workers: 3}}
        images:
          - name: example.com/train
            newName: base.example.com/train
        """)
    overlay("top", """\
        bases: [base]
        namespace: top-ns
        labels: {layer: top}
        patches:
          - target: {name: one}
            patch: {spec: {workers: 5}}
          - target: {name: two}
            patch:
              metadata: {namespace: special}
              spec: {image: "example.com/train:7"}
        images:
          - name: example.com/train
            newName: mirror.example.com/train
        """)
    result = rendered("top")
    assert result.warnings == []
    objects = objects_of(result)
    one, two = objects[("StatefulSet", "one-worker")], objects[("StatefulSet", "two-worker")]
    assert one["metadata"]["namespace"] == "top-ns"      # the overlay's namespace after its base's
    assert two["metadata"]["namespace"] == "special"     # a patch after the overlay's namespace
    for obj in (one, two):
        assert obj["metadata"]["labels"]["layer"] == "top"
        assert obj["metadata"]["labels"]["from-base"] == "yes"
    assert one["spec"]["replicas"] == 5 and two["spec"]["replicas"] == 3
    # one: rewritten by the base (before top's patches); two: its image comes from top's
    # patch, after the base ran, and top's rewrite applies after top's patches.
    assert pod_spec(one)["containers"][0]["image"] == "base.example.com/train:1"
    assert pod_spec(two)["containers"][0]["image"] == "mirror.example.com/train:7"


def test_diamond_applies_a_shared_base_once_in_order():
    add_blueprint("job")
    overlay("base", """\
        labels: {count: base}
        patches:
          - patch: {spec: {workers: 9, env: {FROM_BASE: "1"}}}
        """)
    overlay("left", """\
        bases: [base]
        patches:
          - patch: {spec: {workers: 5}}
        """)
    overlay("right", """\
        bases: [../base]
        labels: {right: "yes"}
        """)
    overlay("top", "bases: [left, right]\n")
    from mpigen.overlay.resolve import resolve

    (top,) = resolve(["top"], Path("."))
    assert [o.name for o in top.chain()] == ["base", "left", "right", "top"]
    objects = objects_of(rendered("top"))
    workers = objects[("StatefulSet", "job-worker")]
    # base, left, right, top: base is not applied again after left (which would give 9)
    assert workers["spec"]["replicas"] == 5
    assert workers["metadata"]["labels"]["right"] == "yes" and workers["metadata"]["labels"]["count"] == "base"
    assert pod_spec(workers)["containers"][0]["env"] == [{"name": "FROM_BASE", "value": "1"}]
