"""A target per group of jobs (issue 53): which target each job of an environment renders with,
by the one precedence rule of docs/overlays.md ("A target per group of jobs"): the --target flag,
else the first rule that selects the job (the overlay's own, its bases' from the last applied,
mpigen.yaml's), else the environment's target, else mpigen.yaml's, else static; the rules select
as patches do (a name glob, a label selector, both); and the errors of a rule, at its value."""

from __future__ import annotations

import pytest

from mpigen.errors import InputError
from mpigen.project.options import Flags, resolve
from mpigen.project.rendered import settings_of
from mpigen.render.mpijob.options import MpiJobOptions
from mpigen.render.static.options import StaticOptions
from tests.support.blueprints import blueprint_text
from tests.support.text import pos, write

CONFIG_HEAD = "apiVersion: mpigen.dev/v1alpha1\nkind: Config\n"
OVERLAY_HEAD = "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n"


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("ARGOCD_ENV_MPIGEN_TARGET", "ARGOCD_ENV_MPIGEN_GITOPS", "ARGOCD_ENV_MPIGEN_OVERLAY"):
        monkeypatch.delenv(name, raising=False)
    write("blueprints/one.yaml", blueprint_text("one"))


def rule(selector: str, target: str) -> str:
    return f"  - jobs: {{{selector}}}\n    target: {target}\n"


def repository(config: str = "", rendered: tuple[str, ...] = ("env",), **overlays: str) -> None:
    """mpigen.yaml with `config`, rendering the overlays `rendered`, and an overlay per keyword."""
    for name, body in overlays.items():
        write(f"overlays/{name}/overlay.yaml", OVERLAY_HEAD + body)
    listed = f"overlays: [{', '.join(rendered)}]\n" if overlays else ""
    write("mpigen.yaml", CONFIG_HEAD + listed + config)


def target_of(name: str, labels: dict | None = None, flags: Flags = Flags()) -> str:
    """The target the job of this name and labels renders with in the run's first environment."""
    (env, *_) = settings_of(resolve(flags, print)).environments
    return env.job_options(name, labels or {}, set()).target


# (mpigen.yaml, overlays, job name, labels, flag, the job's target)
PRECEDENCE = [
    ("", {}, "vit-a", {}, None, "static"),
    ("target: mpijob\n", {}, "vit-a", {}, None, "mpijob"),
    ("target: mpijob\n", {"env": "target: jobset\n"}, "vit-a", {}, None, "jobset"),
    # a rule of mpigen.yaml wins over the environment's target, for the jobs it selects only
    ("targets:\n" + rule("name: vit-*", "trainjob"), {"env": "target: jobset\n"}, "vit-a", {}, None, "trainjob"),
    ("targets:\n" + rule("name: vit-*", "trainjob"), {"env": "target: jobset\n"}, "bert", {}, None, "jobset"),
    # the overlay's rule before mpigen.yaml's
    ("targets:\n" + rule("name: vit-*", "trainjob"), {"env": "targets:\n" + rule("name: vit-a", "mpijob")},
     "vit-a", {}, None, "mpijob"),
    # within a file, the first rule that selects the job
    ("targets:\n" + rule("name: vit-*", "trainjob") + rule("name: vit-a", "mpijob"), {}, "vit-a", {}, None,
     "trainjob"),
    # the bases' rules after the overlay's own, the last base applied first
    ("", {"env": "bases: [a, b]\n", "a": "targets:\n" + rule("name: vit-*", "mpijob"),
          "b": "targets:\n" + rule("name: vit-*", "trainjob")}, "vit-a", {}, None, "trainjob"),
    ("", {"env": "bases: [a, b]\ntargets:\n" + rule("name: vit-*", "jobset"),
          "a": "targets:\n" + rule("name: vit-*", "mpijob"), "b": "targets:\n" + rule("name: vit-*", "trainjob")},
     "vit-a", {}, None, "jobset"),
    # a base's rule before mpigen.yaml's, and the base's target after both
    ("targets:\n" + rule("name: vit-*", "mpijob"),
     {"env": "bases: [a]\n", "a": "target: trainjob\ntargets:\n" + rule("name: vit-*", "jobset")},
     "vit-a", {}, None, "jobset"),
    ("targets:\n" + rule("name: bert", "mpijob"),
     {"env": "bases: [a]\n", "a": "target: trainjob\ntargets:\n" + rule("name: vit-*", "jobset")},
     "bert", {}, None, "mpijob"),
    # the flag wins over every rule
    ("targets:\n" + rule("name: vit-*", "trainjob"), {"env": "targets:\n" + rule("name: vit-a", "mpijob")},
     "vit-a", {}, "static", "static"),
    # a label selector, and a name and a selector together (both must match)
    ("targets:\n" + rule('labelSelector: "queue in (gpu, tpu)"', "jobset"), {}, "any", {"queue": "gpu"}, None,
     "jobset"),
    ("targets:\n" + rule('labelSelector: "queue in (gpu, tpu)"', "jobset"), {}, "any", {"queue": "cpu"}, None,
     "static"),
    ("targets:\n" + rule('labelSelector: "!queue"', "mpijob"), {}, "any", {}, None, "mpijob"),
    ("targets:\n" + rule('name: vit-*, labelSelector: "queue"', "jobset"), {}, "vit-a", {"queue": "gpu"}, None,
     "jobset"),
    ("targets:\n" + rule('name: vit-*, labelSelector: "queue"', "jobset"), {}, "vit-a", {}, None, "static"),
    ("targets:\n" + rule('name: vit-*, labelSelector: "queue"', "jobset"), {}, "bert", {"queue": "gpu"}, None,
     "static"),
]


@pytest.mark.parametrize("config, overlays, name, labels, flag, expected", PRECEDENCE)
def test_a_jobs_target_follows_the_one_precedence_rule(config, overlays, name, labels, flag, expected):
    repository(config, **overlays)
    assert target_of(name, labels, Flags(target=flag)) == expected


def test_the_argocd_plugins_target_acts_as_the_flag(monkeypatch):
    repository("targets:\n" + rule("name: vit-*", "trainjob"))
    monkeypatch.setenv("ARGOCD_ENV_MPIGEN_TARGET", "mpijob")
    assert target_of("vit-a") == "mpijob"


def test_a_ruled_target_gets_its_own_options_from_the_overlay_and_mpigen_yaml():
    """Each job renders with its target's own options: mpigen.yaml's withCRD reaches the mpijob
    jobs of a static environment (and is not refused: an environment renders with mpijob), and
    the static jobs keep theirs."""
    repository("withCRD: true\nkubectlDeliveryImage: registry.example.com/kd:1\ntargets:\n"
               + rule("name: vit-*", "mpijob"))
    (env,) = settings_of(resolve(Flags(), print)).environments
    assert env.job_options("vit-a", {}, set()).own == MpiJobOptions(with_crd=True)
    assert env.job_options("bert", {}, set()).own == StaticOptions("registry.example.com/kd:1")
    assert [o.target for o in env.all_options] == ["static", "mpijob"]


def test_the_rules_that_select_a_job_are_recorded_as_used():
    repository("targets:\n" + rule("name: vit-*", "trainjob") + rule("name: vit-a", "mpijob")
               + rule("name: bert", "jobset"))
    (env,) = settings_of(resolve(Flags(), print)).environments
    used: set = set()
    env.job_options("vit-a", {}, used)
    assert used == {("mpigen.yaml", "targets", 0), ("mpigen.yaml", "targets", 1)}


def refused(flags: Flags = Flags()) -> list[str]:
    with pytest.raises(InputError) as raised:
        resolve(flags, print)
    return [str(d) for d in raised.value.diagnostics]


def test_an_unknown_target_in_mpigen_yaml_is_an_error_at_its_value():
    text = CONFIG_HEAD + "targets:\n" + rule("name: vit-*", "jobsett")
    write("mpigen.yaml", text)
    line, column = pos(text, "jobsett")
    (problem,) = refused()
    assert problem.startswith(f"mpigen.yaml:{line}:{column}: error: targets[0].target: 'jobsett' is not one of")
    assert "did you mean 'jobset'?" in problem


def test_an_unknown_target_in_an_overlay_or_its_base_is_an_error_at_its_value():
    repository("", env="bases: [a]\n", a="targets:\n" + rule("name: x", "static") + rule("name: vit-*", "trainjobs"))
    text = (OVERLAY_HEAD + "targets:\n" + rule("name: x", "static") + rule("name: vit-*", "trainjobs"))
    line, column = pos(text, "trainjobs")
    assert refused() == [f"overlays/a/overlay.yaml:{line}:{column}: error: targets[1].target: 'trainjobs' is not "
                         "one of static, mpijob, jobset, trainjob; did you mean 'trainjob'?"]


@pytest.mark.parametrize("where", ["mpigen.yaml", "overlays/env/overlay.yaml"])
def test_a_selector_that_does_not_parse_is_an_error_at_its_value(where):
    body = "targets:\n" + rule('labelSelector: "queue in (gpu"', "jobset")
    repository(body if where == "mpigen.yaml" else "", env="" if where == "mpigen.yaml" else body)
    text = (CONFIG_HEAD + "overlays: [env]\n" + body) if where == "mpigen.yaml" else OVERLAY_HEAD + body
    line, column = pos(text, '"queue in (gpu"')
    (problem,) = refused()
    assert problem.startswith(f"{where}:{line}:{column}: error: targets[0].jobs.labelSelector: cannot read "
                              "'queue in (gpu'")


def test_a_rule_that_selects_every_job_is_refused_at_its_item():
    text = CONFIG_HEAD + "targets:\n  - jobs: {}\n    target: jobset\n"
    write("mpigen.yaml", text)
    (problem,) = refused()
    line, column = pos(text, "jobs: {}")
    assert problem.startswith(f"mpigen.yaml:{line}:")
    assert "a rule selects its jobs by jobs.name or jobs.labelSelector" in problem


def test_an_overlays_unknown_target_and_its_rules_unknown_target_are_reported_in_one_run():
    repository("", env="target: jobsett\ntargets:\n" + rule("name: vit-*", "trainjobs"))
    text = OVERLAY_HEAD + "target: jobsett\ntargets:\n" + rule("name: vit-*", "trainjobs")
    assert sorted(refused()) == sorted([
        f"overlays/env/overlay.yaml:{':'.join(map(str, pos(text, 'jobsett')))}: error: target: 'jobsett' is not "
        "one of static, mpijob, jobset, trainjob; did you mean 'jobset'?",
        f"overlays/env/overlay.yaml:{':'.join(map(str, pos(text, 'trainjobs')))}: error: targets[0].target: "
        "'trainjobs' is not one of static, mpijob, jobset, trainjob; did you mean 'trainjob'?"])
