"""Overlays: errors with positions in the overlay (missing or cyclic bases, unknown keys,
patches that break a blueprint), and nothing written.

Every test builds a small repository in its own tmp folder (the working folder of the
test) and runs either the pipeline or the real command line in-process; expected values
are derived by hand from the input written here; expected positions are computed from the
YAML text (`pos`), never typed in.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.blueprints import MINIMAL_SPEC_YAML, blueprint_yaml
from tests.support.overlays import OVERLAY_HEAD, add_blueprint, at, overlay, refused
from tests.support.text import pos, write


def test_missing_base_is_an_error_at_the_bases_item(cli, previous):
    add_blueprint("job")
    text = overlay("dev", "bases: [common, nowhere]\n")
    overlay("common", "namespace: x\n")
    assert refused(cli, previous, "blueprints", "--overlay", "dev") == [
        f"{at('overlays/dev/overlay.yaml', text, 'nowhere')}: error: no overlay named 'nowhere' (overlays/nowhere "
        "does not exist); the overlays are common, dev"]


def test_mistyped_base_suggests_the_nearest_overlay(cli, previous):
    add_blueprint("job")
    text = overlay("dev", "bases: [comon]\n")
    overlay("common", "namespace: x\n")
    assert refused(cli, previous, "blueprints", "--overlay", "dev") == [
        f"{at('overlays/dev/overlay.yaml', text, 'comon')}: error: no overlay named 'comon' (overlays/comon "
        "does not exist); the overlays are common, dev; did you mean 'common'?"]


def test_base_cycle_is_an_error_at_the_bases_item_that_closes_it(cli, previous):
    add_blueprint("job")
    overlay("a", "bases: [b]\n")
    overlay("b", "bases:\n  - c\n")
    text = overlay("c", "bases:\n  - ../a\n")
    assert refused(cli, previous, "blueprints", "--overlay", "a") == [
        f"{at('overlays/c/overlay.yaml', text, '../a')}: error: overlay bases form a cycle: a -> b -> c -> a; "
        "remove one of the bases"]


def test_self_base_is_a_cycle(cli, previous):
    add_blueprint("job")
    text = overlay("a", "bases: [a]\n")
    errors = refused(cli, previous, "blueprints", "--overlay", "a")
    assert errors == [f"{at('overlays/a/overlay.yaml', text, '[a]', 'a')}: error: overlay bases form a cycle: "
                      "a -> a; remove one of the bases"]


def test_unknown_key_in_an_overlay_suggests_the_right_one(cli, previous):
    add_blueprint("job")
    text = overlay("dev", """\
        namspace: dev
        patches:
          - target: {nmae: job}
            patch: {spec: {workers: 1}}
        """)
    assert refused(cli, previous, "blueprints", "--overlay", "dev") == [
        f"{at('overlays/dev/overlay.yaml', text, 'namspace')}: error: document: unknown key 'namspace'; "
        "did you mean 'namespace'?",
        f"{at('overlays/dev/overlay.yaml', text, 'nmae')}: error: patches[0].target: unknown key 'nmae'; "
        "did you mean 'name'?"]


PATCH_BREAKS = [
    ("workers: 0", "0", "spec.workers: must be >= 1, got 0"),
    ("gpuResource: gpu", "gpu", "spec.gpuResource: 'gpu' is not an extended resource"),
]


@pytest.mark.parametrize("line, sub, message", PATCH_BREAKS, ids=["workers-0", "gpuResource-gpu"])
def test_patch_that_breaks_a_blueprint_is_reported_in_the_overlay(cli, previous, line, sub, message):
    add_blueprint("one")
    add_blueprint("two")
    text = overlay("dev", f"""\
        patches:
          - patch:
              spec:
                {line}
        """)
    where = at("overlays/dev/overlay.yaml", text, line + "\n", sub + "\n")  # the value
    errors = refused(cli, previous, "blueprints", "--overlay", "dev")
    assert [e.split(": error: ")[0] for e in errors] == [where, where]
    for error, name in zip(errors, ("one", "two")):
        assert message in error and error.endswith(f" (applied to blueprints/{name}.yaml)"), error


def test_patched_toleration_is_checked_at_the_overlay(cli, previous):
    add_blueprint("job")
    text = overlay("dev", """\
        patches:
          - patch:
              spec:
                placement:
                  worker:
                    tolerations:
                      - key: nvidia.com/gpu
                        operator: Exists
                        effect: NoSchedule
                      - key: pool
                        operator: Exists
                        value: a100
        """)
    assert refused(cli, previous, "blueprints", "--overlay", "dev") == [
        f"{at('overlays/dev/overlay.yaml', text, '- key: pool', 'key')}: error: "
        "spec.placement.worker.tolerations[1]: a toleration with operator Exists takes no value; remove value "
        "or use operator Equal (applied to blueprints/job.yaml)"]


def test_patch_removing_a_required_key_is_reported_in_the_overlay(cli, previous):
    add_blueprint("job")
    text = overlay("dev", """\
        patches:
          - patch:
              spec:
                workers: null
        """)
    errors = refused(cli, previous, "blueprints", "--overlay", "dev")
    assert len(errors) == 1, errors
    line = pos(text, "workers: null")[0]
    assert errors[0].startswith(f"overlays/dev/overlay.yaml:{line}:"), errors
    assert "workers" in errors[0] and errors[0].endswith("(applied to blueprints/job.yaml)"), errors


@pytest.mark.parametrize("field", ["kind", "apiVersion"])
def test_kind_and_apiversion_cannot_be_patched(cli, previous, field):
    add_blueprint("job")
    text = overlay("dev", f"""\
        patches:
          - patch:
              {field}: Other
        """)
    assert refused(cli, previous, "blueprints", "--overlay", "dev") == [
        f"{at('overlays/dev/overlay.yaml', text, field + ': Other', field)}: error: patches[0].patch: {field} "
        "cannot be patched"]


def test_a_blueprint_error_is_reported_once_at_the_blueprint_under_two_overlays(cli, previous):
    text = write("blueprints/job.yaml", blueprint_yaml("job", spec=MINIMAL_SPEC_YAML.replace("workers: 2", "workers: 0")))
    overlay("dev", "namespace: dev\n")
    overlay("prod", "namespace: prod\nlabels: {env: prod}\n")
    assert refused(cli, previous, "blueprints", "--overlay", "dev", "--overlay", "prod") == [
        f"{at('blueprints/job.yaml', text, 'workers: 0', '0')}: error: spec.workers: must be >= 1, got 0"]


@pytest.mark.parametrize("files, found", [((), "none"), (("a.yaml", "b.yml"), "a.yaml, b.yml")],
                         ids=["no-yaml-file", "two-yaml-files"])
def test_overlay_folder_must_hold_exactly_one_yaml_file(cli, previous, files, found):
    add_blueprint("job")
    Path("overlays/odd").mkdir(parents=True)
    Path("overlays/odd/README.md").write_text("notes\n")
    for name in files:
        Path("overlays/odd", name).write_text(OVERLAY_HEAD)
    assert refused(cli, previous, "blueprints", "--overlay", "odd") == [
        f"error: overlays/odd: overlay folder overlays/odd must hold exactly one YAML file (the Overlay); "
        f"found: {found}"]
