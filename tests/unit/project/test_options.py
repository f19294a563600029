"""The options of a run resolved through the table of targets: each target's own options
from its flag, ARGOCD_ENV_*, the overlay and mpigen.yaml in that order, typed as the
environment's target declares them, and a target's flag given with another target refused."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mpigen.errors import InputError
from mpigen.formats.trainer import Runtime
from mpigen.project.options import Flags, resolve
from mpigen.render import targets
from mpigen.render.mpijob.options import MpiJobOptions
from mpigen.render.static.options import DEFAULT_KUBECTL_DELIVERY_IMAGE, StaticOptions
from mpigen.render.target import Flag, Setting, TargetOptions
from mpigen.render.trainjob.options import TrainJobOptions
from tests.support.blueprints import blueprint_text
from tests.support.text import write

CONFIG_HEAD = "apiVersion: mpigen.dev/v1alpha1\nkind: Config\n"
OVERLAY_HEAD = "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n"
V1 = "kubeflow.org/v1"


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("ARGOCD_ENV_MPIGEN_TARGET", "ARGOCD_ENV_MPIGEN_GITOPS", "ARGOCD_ENV_MPIGEN_OVERLAY"):
        monkeypatch.delenv(name, raising=False)
    write("blueprints/one.yaml", blueprint_text("one"))


def repository(config: str = "", **overlays: str) -> None:
    """mpigen.yaml with `config`, and an overlay per keyword (its name: its body)."""
    for name, body in overlays.items():
        write(f"overlays/{name}/overlay.yaml", OVERLAY_HEAD + body)
    listed = f"overlays: [{', '.join(overlays)}]\n" if overlays else ""
    write("mpigen.yaml", CONFIG_HEAD + listed + config)


def refusal(flags: Flags) -> str:
    with pytest.raises(InputError) as raised:
        resolve(flags, print)
    (diagnostic,) = raised.value.diagnostics
    return diagnostic.message


def test_with_no_setting_each_target_has_its_defaults():
    setup = resolve(Flags(paths=("blueprints",)), print)
    assert setup.options.own == StaticOptions(DEFAULT_KUBECTL_DELIVERY_IMAGE)
    assert resolve(Flags(paths=("blueprints",), target="mpijob"), print).options.own == MpiJobOptions()
    assert resolve(Flags(paths=("blueprints",), target="jobset"), print).options.own is None


def test_a_flag_wins_over_mpigen_yaml():
    repository("target: mpijob\nmpijobApi: kubeflow.org/v1\nwithCRD: true\n")
    assert resolve(Flags(), print).options.own == MpiJobOptions(api=V1, with_crd=True)
    flags = Flags(target_flags={"--mpijob-api": "kubeflow.org/v2beta1"})
    assert resolve(flags, print).options.own == MpiJobOptions(api="kubeflow.org/v2beta1", with_crd=True)


def test_the_static_image_from_the_flag_else_mpigen_yaml():
    repository("kubectlDeliveryImage: registry.example.com/kd:1\n")
    assert resolve(Flags(), print).options.own == StaticOptions("registry.example.com/kd:1")
    flags = Flags(target_flags={"--kubectl-delivery-image": "registry.example.com/kd:2"})
    assert resolve(flags, print).options.own == StaticOptions("registry.example.com/kd:2")


def test_an_overlay_wins_over_mpigen_yaml_and_its_base_is_inherited():
    repository("target: trainjob\ntrainingRuntime: {name: from-config}\n",
               base="trainingRuntime: {name: from-base}\n", child="bases: [base]\n", plain="labels: {a: b}\n")
    setup = resolve(Flags(), print)
    assert setup.options.own == TrainJobOptions(Runtime(name="from-config"))
    by_overlay = {overlay.name: options.own for overlay, options in zip(setup.overlays, setup.env_options)}
    assert by_overlay == {"base": TrainJobOptions(Runtime(name="from-base")),
                          "child": TrainJobOptions(Runtime(name="from-base")),
                          "plain": TrainJobOptions(Runtime(name="from-config"))}


def test_the_pod_security_level_from_mpigen_yaml_else_none_and_an_overlay_s_wins():
    assert resolve(Flags(paths=("blueprints",)), print).options.pod_security is None
    repository("podSecurity: baseline\n", strict="podSecurity: restricted\n", child="bases: [strict]\n",
               plain="labels: {a: b}\n", open="podSecurity: privileged\n")
    setup = resolve(Flags(), print)
    assert setup.options.pod_security == "baseline"
    assert {o.name: e.pod_security for o, e in zip(setup.overlays, setup.env_options)} == {
        "strict": "restricted", "child": "restricted", "plain": "baseline", "open": "privileged"}


def test_an_overlay_s_target_gets_its_own_options_typed():
    repository("mpijobApi: kubeflow.org/v1\n", mpi="target: mpijob\n", other="labels: {a: b}\n")
    setup = resolve(Flags(), print)
    assert [options.own for options in setup.env_options] == [MpiJobOptions(api=V1), StaticOptions()]


def test_argocd_env_target_is_below_the_flag_and_above_mpigen_yaml(monkeypatch):
    repository("target: static\n")
    monkeypatch.setenv("ARGOCD_ENV_MPIGEN_TARGET", "mpijob")
    assert resolve(Flags(), print).options.own == MpiJobOptions()
    assert resolve(Flags(target="trainjob"), print).options.own == TrainJobOptions()


@pytest.mark.parametrize("config, flags", [
    ("", Flags(paths=("blueprints",), target_flags={"--with-crd": True})),
    ("target: jobset\n", Flags(target_flags={"--with-crd": True})),
    ("withCRD: true\n", Flags()),
    ("withCRD: true\ntarget: mpijob\n", Flags(target="static")),
])
def test_with_crd_with_another_target_is_refused(config, flags):
    repository(config)
    assert refusal(flags) == ("--with-crd adds the MPIJob CRD, which only the mpijob target uses; "
                              "add --target mpijob")


def test_mpigen_yaml_s_with_crd_is_for_the_environments_that_render_mpijobs():
    """Issue 30, item 5: withCRD is the default of the mpijob environments, whichever target
    mpigen.yaml names: an overlay's mpijob environment gets it (refused before, as a `--with-crd`
    given with another target), its jobset environment does not."""
    repository("withCRD: true\n", dev="target: mpijob\n", prod="target: jobset\n", staging="target: trainjob\n")
    setup = resolve(Flags(), print)
    assert [o.target for o in setup.env_options] == ["mpijob", "jobset", "trainjob"]
    assert setup.env_options[0].own == MpiJobOptions(with_crd=True)
    assert not any(isinstance(o.own, MpiJobOptions) for o in setup.env_options[1:])


def test_a_bad_image_flag_is_refused_whatever_the_target():
    flags = Flags(paths=("blueprints",), target="jobset", target_flags={"--kubectl-delivery-image": "Not An Image"})
    assert refusal(flags).startswith("--kubectl-delivery-image: 'Not An Image' is not an image reference: ")


def test_a_target_in_the_table_alone_brings_its_flag_and_options(monkeypatch):
    """A toy target declares a flag; the resolution reads it through the table, by its name."""
    def build(given):
        return tuple(sorted(given.items()))

    def check(given, options):
        if given.get("colour") == "red" and options.target != "toy":
            raise InputError([])

    flag = Flag("--colour", help="with --target toy: the colour")
    toy = replace(targets.TARGETS["jobset"], name="toy",
                  options=TargetOptions("a toy", (Setting("colour", flag),), build, check))
    monkeypatch.setattr(targets, "TARGETS", {**targets.TARGETS, "toy": toy})
    options = resolve(Flags(paths=("blueprints",), target="toy", target_flags={"--colour": "red"}), print).options
    assert (options.target, options.own) == ("toy", (("colour", "red"),))
    with pytest.raises(InputError):
        resolve(Flags(paths=("blueprints",), target_flags={"--colour": "red"}), print)


def test_the_trainer_version_is_v2_3_by_default_and_each_overlay_s_key_wins_inherited_on_its_own():
    assert resolve(Flags(paths=("blueprints",)), print).options.trainer_version == "v2.3"
    repository("versions: {trainer: v2.3}\n", new="versions: {trainer: v2.4}\n", child="bases: [new]\n",
               plain="labels: {a: b}\n", empty="versions: {}\nbases: [new]\n")
    setup = resolve(Flags(), print)
    assert setup.options.trainer_version == "v2.3"
    assert {o.name: e.trainer_version for o, e in zip(setup.overlays, setup.env_options)} == {
        "new": "v2.4", "child": "v2.4", "plain": "v2.3", "empty": "v2.4"}


def test_a_trainer_version_mpigen_does_not_know_is_refused_at_its_line():
    repository("versions:\n  trainer: v2.5\n")
    with pytest.raises(InputError) as raised:
        resolve(Flags(), print)
    (diagnostic,) = raised.value.diagnostics
    assert (diagnostic.mark.path, diagnostic.mark.line) == ("mpigen.yaml", 4)
    assert "'v2.3'" in diagnostic.message and "'v2.4'" in diagnostic.message


def test_the_kueue_version_is_v0_19_by_default_and_each_overlay_s_key_wins_inherited_beside_the_trainer_s():
    assert resolve(Flags(paths=("blueprints",)), print).options.kueue_version == "v0.19"
    repository("versions: {kueue: v0.20}\n", old="versions: {kueue: v0.17, trainer: v2.4}\n",
               child="bases: [old]\nversions: {trainer: v2.3}\n", plain="labels: {a: b}\n")
    setup = resolve(Flags(), print)
    assert setup.options.kueue_version == "v0.20"
    assert {o.name: (e.kueue_version, e.trainer_version) for o, e in zip(setup.overlays, setup.env_options)} == {
        "old": ("v0.17", "v2.4"), "child": ("v0.17", "v2.3"), "plain": ("v0.20", "v2.3")}


def test_a_kueue_version_mpigen_does_not_know_is_refused_at_its_line():
    repository("versions:\n  kueue: v0.16\n")
    with pytest.raises(InputError) as raised:
        resolve(Flags(), print)
    (diagnostic,) = raised.value.diagnostics
    assert (diagnostic.mark.path, diagnostic.mark.line) == ("mpigen.yaml", 4)
    assert all(f"'{v}'" in diagnostic.message for v in ("v0.17", "v0.18", "v0.19", "v0.20"))
