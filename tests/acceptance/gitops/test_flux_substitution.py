"""Every object mpigen writes, of every target under every profile, goes through a Flux
Kustomization with postBuild as it is written (mpigen.emit.flux_substitution), under Flux's own
rules (tests/support/flux_substitution.py: kustomize-controller v1.9.0, fluxcd/pkg kustomize
v1.35.0 and envsubst v1.7.0): strict, as v1.9 is by default, and not. The port is held to
envsubst's own test cases first."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mpigen.load.parser import parse
from mpigen.validate.document import validate_document
from mpigen.validate.reserved import Reserved
from tests.support.blueprints import blueprint_text
from tests.support.flux_substitution import LOADER, NotPorted, SubstitutionFailed, post_build, substitute
from tests.support.golden import GOLDEN, MPIJOB_EXAMPLES, ROOT

VARIABLES = {"CLUSTER": "prod-eu", "REGION": "eu-west-1"}  # a platform team's cluster variables
KEY = "kustomize.toolkit.fluxcd.io/substitute"


def _strict(params: dict[str, str]):
    return lambda name: (params.get(name, ""), name in params)


@pytest.mark.parametrize("params, text, expected", [
    # fluxcd/pkg envsubst v1.7.0 eval_test.go TestExpand, the cases this port follows
    ({}, "abcdEFGH28ij", "abcdEFGH28ij"),
    ({"var01": "abcdEFGH28ij"}, "${#var01}", "12"),
    ({"var": "abc"}, "${var=xyz}", "abc"),
    ({}, "${var=xyz}", "xyz"),
    ({}, "${var:=xyz}", "xyz"),
    ({"var01": "abcdEFGH28ij"}, "$${var01}", "${var01}"),
    ({"var01": "abcdEFGH28ij"}, "some text ${var01}$${var$${var01}$var01${var01}",
     "some text abcdEFGH28ij${var${var01}$var01abcdEFGH28ij"),
    ({"default_var": "foo"}, "\\\\something ${var=${default_var}}", "\\\\something foo"),
    ({"default_var": "foo"}, "something ${var=${default_var}}", "something foo"),
    ({"default_var": "foo1"}, "foo: ${var=prefix${default_var}-suffix}", "foo: prefixfoo1-suffix"),
    ({"default_var": "foo"}, "something $${var=${default_var}}", "something ${var=foo}"),
])
def test_the_port_expands_as_envsubst_does(params, text, expected):
    assert substitute(text, lambda name: (params.get(name, ""), True)) == expected


@pytest.mark.parametrize("params, text, fails", [
    # TestExpandStrict
    ({"foo": "bar"}, "${foo}", False),
    ({"foo": ""}, "${foo}", False),
    ({}, "${missing}", True),
    ({"foo": "bar"}, "${missing:=default}", False),
    ({}, "${#missing}", True),
])
def test_the_port_refuses_as_strict_envsubst_does(params, text, fails):
    if fails:
        with pytest.raises(SubstitutionFailed, match="variable not set"):
            substitute(text, _strict(params))
    else:
        substitute(text, _strict(params))


def _golden_objects() -> list[tuple[str, dict]]:
    """Every object of every golden stream: each target (mpijob's v1 and v2beta1 without a
    profile), each profile of static, jobset and trainjob, the CRDs, monitoring's PrometheusRule."""
    out = []
    for stream in sorted(GOLDEN.glob("*.yaml")):
        out += [(stream.name, obj) for obj in yaml.load_all(stream.read_text(), Loader=LOADER) if obj]
    return out


def _rendered(mpigen_in_process, monkeypatch, *args: str) -> list[dict]:
    monkeypatch.chdir(ROOT)
    run = mpigen_in_process("render", "--stdout", "--no-cache", *args)
    assert run.returncode == 0, run.stderr
    return [obj for obj in yaml.safe_load_all(run.stdout) if obj]


def _unchanged_under_post_build(obj: dict) -> None:
    for strict in (True, False):
        try:
            assert post_build(obj, VARIABLES, strict=strict) == obj
        except NotPorted as exc:  # never silently: a new expression needs the port extended
            pytest.fail(f"{obj['kind']} {obj['metadata']['name']}: {exc}")


def test_every_golden_object_goes_through_post_build_unchanged():
    objects = _golden_objects()
    assert {name for name, _ in objects} >= {"flux.yaml", "jobset-flux.yaml", "trainjob-flux.yaml", "argocd.yaml",
                                             "static.yaml", "mpijob-v2beta1.yaml", "crd-v1.yaml", "monitored.yaml"}
    for _, obj in objects:
        _unchanged_under_post_build(obj)


@pytest.mark.parametrize("api, paths", [
    ("kubeflow.org/v2beta1", MPIJOB_EXAMPLES),  # less the examples it refuses (tests/support/golden.py)
    # the training-operator's v1 runs Open MPI only (tests/support/golden.py)
    ("kubeflow.org/v1", ["blueprints/tensorflow-mnist.yaml", "blueprints/resnet50-imagenet.yaml"]),
])
def test_the_mpijob_target_s_objects_under_flux_go_through_unchanged(mpigen_in_process, monkeypatch, api, paths):
    """The one target golden/ has no flux stream of."""
    objects = _rendered(mpigen_in_process, monkeypatch, *paths, "--target", "mpijob", "--mpijob-api", api,
                        "--gitops", "flux")
    assert "MPIJob" in {obj["kind"] for obj in objects}
    for obj in objects:
        _unchanged_under_post_build(obj)


def test_the_annotation_is_on_exactly_the_objects_post_build_would_break_or_change():
    """Without it, each annotated object fails a strict Kustomization's build, or is applied
    changed (`$$` halved): so the annotation is needed where it is, and nowhere else."""
    annotated = [obj for _, obj in _golden_objects() if obj["metadata"].get("annotations", {}).get(KEY) == "disabled"]
    assert {obj["kind"] for obj in annotated} == {"ConfigMap", "CustomResourceDefinition"}
    failed = 0
    for obj in annotated:
        bare = {**obj, "metadata": {**obj["metadata"], "annotations": {
            k: v for k, v in obj["metadata"]["annotations"].items() if k != KEY}}}
        try:
            assert post_build(bare, VARIABLES, strict=True) != bare
        except SubstitutionFailed:
            failed += 1
        else:
            assert post_build(bare, VARIABLES, strict=False) != bare
    assert failed > 0  # the scripts' ${...}: what kustomize-controller v1.9 made a failed reconcile


def test_a_blueprint_s_own_command_with_a_variable_is_kept_from_substitution(cli):
    """A launcher line of the user's that reads the rank's environment lands in the JobSet
    itself, which then carries the annotation; without it a strict build fails."""
    text = (ROOT / "blueprints" / "kueue-queued.yaml").read_text().replace(
        'command: [python, /app/train.py, --lr, "3e-4"]',
        'command: [bash, -c, "python /app/train.py --seed ${OMPI_COMM_WORLD_RANK:-0} --out /tmp/$$"]')
    Path("job.yaml").write_text(text)
    run = cli("render", "job.yaml", "--target", "jobset", "--gitops", "flux", "--stdout", "--no-cache")
    assert run.returncode == 0, run.stderr
    (jobset,) = [obj for obj in yaml.safe_load_all(run.stdout) if obj and obj["kind"] == "JobSet"]
    assert jobset["metadata"]["annotations"][KEY] == "disabled"
    assert post_build(jobset, VARIABLES) == jobset
    del jobset["metadata"]["annotations"][KEY]
    assert post_build(jobset, VARIABLES) != jobset  # the default taken, the $$ halved


def test_a_blueprint_cannot_set_the_annotation_itself():
    """mpigen writes it where it is needed; a blueprint's own value would be overwritten, or
    turn substitution back on for an object that would break."""
    (doc,) = parse(blueprint_text("job", annotations={KEY: "enabled"}), "job.yaml")
    _, diagnostics = validate_document(doc, Reserved())
    assert [d.message for d in diagnostics if d.severity == "error"] == [
        f"metadata.annotations: key {KEY!r} is written by the MPI Operator or mpigen on the rendered objects; "
        "choose another key"]


@pytest.mark.parametrize("target", ["mpijob", "trainjob"])
def test_import_reads_the_annotation_as_mpigen_s_own(cli, target):
    """An annotated job imports back to its blueprint without a word: the annotation is not
    the user's, and the proof renders the job as mpigen writes it."""
    text = (ROOT / "blueprints" / "kueue-queued.yaml").read_text().replace(
        'command: [python, /app/train.py, --lr, "3e-4"]', 'command: [bash, -c, "python /app/train.py ${SEED:-0}"]')
    Path("job.yaml").write_text(text)
    run = cli("render", "job.yaml", "--target", target, "--stdout", "--no-cache")
    assert run.returncode == 0 and f"{KEY}: disabled".encode() in run.stdout
    Path("rendered.yaml").write_bytes(run.stdout)
    imported = cli("import", "rendered.yaml", "-o", "imported")
    assert imported.returncode == 0 and imported.lines("warning") == [], imported.stderr
    blueprint = yaml.safe_load(Path("imported/team-a/vit-sweep-7.yaml").read_text())
    assert KEY not in blueprint["metadata"].get("annotations", {})
    assert blueprint["spec"]["command"] == ["bash", "-c", "python /app/train.py ${SEED:-0}"]
