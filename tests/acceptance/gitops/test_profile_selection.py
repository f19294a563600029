"""Which GitOps profile an environment gets: flag > overlay (and its bases) > mpigen.yaml >
none, and the profile's checks only where the profile is.

Expected values are worked out by hand from the blueprint text written in each test (and
from blueprints/*.yaml for the examples), never by rendering the same input twice and
comparing the code with itself. Rendering goes in-process through the real pipeline
(`render_paths`, the render fixture of conftest.py) or the real command line (the cli fixture).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from tests.support.blueprints import example_blueprints
from tests.support.gitops import FLUX_SSA, JOB_LABEL, RUN_LABEL, TTL_BLUEPRINT, WAVE, repository_example_objects
from tests.support.paths import ROOT
from tests.support.rendering import repository_objects
from tests.support.text import pos, write


# --- 9. profile selection: flag > overlay (and bases) > mpigen.yaml > none --------------------------

def _copy_repository(tmp_path: Path, extra_config: str = "") -> None:
    for folder in ("blueprints", "overlays"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    config = (ROOT / "mpigen.yaml").read_text()
    (tmp_path / "mpigen.yaml").write_text(config + extra_config)


def _profile_of(objects: list[dict]) -> str:
    """What the objects say about the profile they were rendered in (checked whole)."""
    examples = example_blueprints()
    hashed = {bool(RUN_LABEL in o["metadata"]["labels"]) for o in objects}
    assert len(hashed) == 1

    def names(name: str, instance: str) -> list[tuple[str, str]]:
        """(kind, name) of each object of the example `name` rendered as `instance` (with the target
        mpigen.yaml's rules give it)."""
        return [(kind, f"{instance}{suffix}") for kind, suffix in repository_objects(examples[name])]

    if not hashed.pop():
        for obj in objects:
            name = obj["metadata"]["labels"][JOB_LABEL]
            assert (obj["kind"], obj["metadata"]["name"]) in names(name, name)
            assert not {WAVE, FLUX_SSA} & set(obj["metadata"].get("annotations", {}))
        return "none"
    for obj in objects:
        name = obj["metadata"]["labels"][JOB_LABEL]
        assert name in examples
        named = re.fullmatch(rf"({name}-[0-9a-f]{{6}})(-[a-z]+)*", obj["metadata"]["name"])
        assert named, obj["metadata"]["name"]
        assert (obj["kind"], obj["metadata"]["name"]) in names(name, named.group(1))
    waves = {WAVE in o["metadata"].get("annotations", {}) for o in objects}
    ssa = {FLUX_SSA in o["metadata"].get("annotations", {}) for o in objects if o["kind"] == "StatefulSet"}
    if waves == {True} and ssa == {False}:
        return "argocd"
    if waves == {False} and ssa == {True}:
        return "flux"
    raise AssertionError(f"mixed profile annotations: waves {waves}, ssa {ssa}")


def _env_objects(env: str) -> list[dict]:
    """The objects of an environment's folder: <ns>/<kind>-<name>.yaml, or in the flux
    profile <ns>/<job>/{workers,launcher}/<kind>-<name>.yaml (each with its kustomization)."""
    root = Path("golden/overlays") / env
    files = sorted(p for p in root.rglob("*.yaml") if p.name != "kustomization.yaml")
    kustomization = yaml.safe_load((root / "kustomization.yaml").read_text())
    assert sorted(kustomization["resources"]) == sorted(p.relative_to(root).as_posix() for p in files)
    assert len(files) == repository_example_objects()
    return [yaml.safe_load(p.read_text()) for p in files]


@pytest.mark.parametrize("config, flags, expected", [
    ("", [], {"dev": "none", "prod": "argocd"}),
    ("", ["--gitops", "flux"], {"dev": "flux", "prod": "flux"}),
    ("", ["--gitops", "none"], {"dev": "none", "prod": "none"}),
    ("gitops: flux\n", [], {"dev": "flux", "prod": "argocd"}),
    ("gitops: argocd\n", ["--gitops", "none"], {"dev": "none", "prod": "none"}),
], ids=["overlay", "flag-flux", "flag-none", "config-flux", "flag-over-config"])
def test_profile_per_environment(cli, tmp_path, config, flags, expected):
    _copy_repository(tmp_path, config)
    done = cli("render", *flags)
    assert done.returncode == 0, done.stderr
    assert {env: _profile_of(_env_objects(env)) for env in ("dev", "prod")} == expected


def test_an_overlay_inherits_the_profile_of_its_bases_and_its_own_wins(cli, tmp_path):
    _copy_repository(tmp_path, "gitops: flux\n")
    head = "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n"
    write("overlays/staging/overlay.yaml", head + "bases: [prod]\nnamespace: staging\n")
    write("overlays/canary/overlay.yaml", head + "bases: [prod]\ngitops: none\nnamespace: canary\n")
    # a base's profile under prod's own: prod's (argocd) wins
    base = Path("overlays/gpu-pool-a100/overlay.yaml")
    base.write_text(base.read_text() + "gitops: flux\n")
    for overlay, expected in (("staging", "argocd"), ("canary", "none"), ("prod", "argocd"), ("dev", "flux")):
        done = cli("render", "--overlay", overlay, "--stdout")
        assert done.returncode == 0, (overlay, done.stderr)
        assert _profile_of(done.objects()) == expected, overlay
        assert len(done.objects()) == repository_example_objects()
    flagged = cli("render", "--overlay", "staging", "--stdout", "--gitops", "none")
    assert _profile_of(flagged.objects()) == "none"


def test_per_overlay_profile_checks_apply_only_where_the_profile_is(cli, tmp_path):
    """The TTL refusal follows the environment's profile: prod (argocd) refuses it, dev
    (none) renders it."""
    _copy_repository(tmp_path)
    write("blueprints/train.yaml", TTL_BLUEPRINT)
    dev = cli("render", "--overlay", "dev", "--stdout")
    assert dev.returncode == 0, dev.stderr
    assert [o["spec"]["ttlSecondsAfterFinished"] for o in dev.objects()
            if o["kind"] == "Job" and o["metadata"]["labels"][JOB_LABEL] == "train"] == [3600]
    prod = cli("render", "--overlay", "prod", "--stdout")
    assert prod.returncode == 2
    line, column = pos(TTL_BLUEPRINT, "ttlSecondsAfterFinished: 3600")
    assert prod.stderr.startswith(f"blueprints/train.yaml:{line}:{column}: error: "
                                  "spec.runPolicy.ttlSecondsAfterFinished cannot be used with --gitops argocd")


def test_validate_reports_what_the_environments_profile_refuses(cli, tmp_path):
    _copy_repository(tmp_path)
    write("blueprints/train.yaml", TTL_BLUEPRINT)
    assert cli("render").returncode == 2
    done = cli("validate")
    assert done.returncode == 2, done.stderr
    assert "ttlSecondsAfterFinished cannot be used with --gitops argocd" in done.stderr
