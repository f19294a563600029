"""mpigen.emit.companion_names: every name of one companion folder is a valid Kubernetes name
and no two sources share one, whatever the environments, namespaces, jobs and steps
(issue 30, item 3: environment `dev-runtimes` on jobset and environment `dev`'s runtimes
step on trainjob were both `mpigen-dev-runtimes`).

The rules come from outside mpigen: see tests/support/kubernetes_names.py.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from tests.support.properties import examples

from mpigen.emit import companion_names as names
from mpigen.render.targets import TARGETS
from tests.support.kubernetes_names import DNS1123_LABEL

# Parts drawn from a small alphabet, so that '-' and '--' joins meet often.
_LABEL = st.from_regex(r"\A[ab]([-ab]{0,4}[ab])?\Z")
_ENV = st.one_of(_LABEL, st.from_regex(r"\A[aB_.]([-aB_.]{0,3}[aB])?\Z"), st.just("a" * 63), st.just("a-" * 31 + "a"))
_JOB = st.from_regex(r"\A[a]([-ab]{0,4}[ab])?\Z")
_STEPS = st.lists(st.sampled_from(["a", "b", "ab", "runtimes", "trainjobs", "workers"]), min_size=1, max_size=3,
                  unique=True).map(tuple)
_DESTINATION = st.one_of(_LABEL, st.sampled_from(["https://kubernetes.default.svc", "https://a-b:6443",
                                                  "https://a--b:6443", "in-cluster"]))


def _flux_names(envs: list[tuple[str, tuple[str, ...]]], jobs: list[tuple[str, str]]) -> dict[str, tuple]:
    """Every Flux Kustomization a render of these environments (each with its target's steps)
    and jobs may write, by the source it names: name -> source; a name met twice raises."""
    made: dict[str, tuple] = {}

    def take(name: str, source: tuple) -> None:
        assert made.setdefault(name, source) == source, (name, made[name], source)
        assert len(name) <= 63 and DNS1123_LABEL.fullmatch(name), name

    take(names.cluster_kustomization(), ("cluster",))
    for env, steps in envs:
        take(names.environment_kustomization(env), ("environment", env))
        for step, name in names.environment_step_kustomizations(env, steps).items():
            take(name, ("environment step", env, step))
        for namespace, job in jobs:
            for step, name in names.job_step_kustomizations(env, namespace, job, steps).items():
                take(name, ("job step", env, namespace, job, step))
    return made


@st.composite
def _renders(draw) -> tuple[dict[str, tuple[str, ...]], list[tuple[str, str]]]:
    """Environments (each with its target's steps) and jobs, some environments made of the
    others' parts joined by '-' or '--', as a name that meets another would be."""
    envs = draw(st.dictionaries(_ENV, _STEPS, min_size=1, max_size=3))
    jobs = draw(st.lists(st.tuples(_LABEL, _JOB), max_size=3, unique=True))
    parts = [*envs, *(s for steps in envs.values() for s in steps), *(p for job in jobs for p in job)]
    for _ in range(draw(st.integers(0, 3))):
        joined = draw(st.lists(st.sampled_from(parts), min_size=2, max_size=4))
        env = "".join(part + draw(st.sampled_from(["-", "--"])) for part in joined[:-1]) + joined[-1]
        if len(env) <= 63:
            envs.setdefault(env, draw(_STEPS))
    return envs, jobs


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_renders())
def test_flux_names_of_a_render_with_overlays_never_meet(render):
    envs, jobs = render
    _flux_names(list(envs.items()), jobs)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_STEPS, st.lists(st.tuples(_LABEL, _JOB), max_size=6, unique=True))
def test_flux_names_of_a_render_without_overlays_never_meet(steps, jobs):
    """Without overlays the one environment is "" (and the cluster folder is not written)."""
    made = _flux_names([("", steps)], jobs)
    assert made.pop(names.cluster_kustomization()) == ("cluster",)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_ENV, min_size=1, max_size=5, unique=True), st.lists(_DESTINATION, max_size=4, unique=True))
def test_argocd_names_never_meet(envs, destinations):
    made = [names.application(env) for env in envs] + [names.cluster_application(d) for d in destinations]
    assert len(set(made)) == len(made), list(zip([*envs, *destinations], made))
    assert all(len(n) <= 63 and DNS1123_LABEL.fullmatch(n) for n in made), made


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.one_of(_ENV, st.sampled_from(["_cluster", "kustomization.yaml"])), max_size=5, unique=True),
       st.lists(_DESTINATION, max_size=4, unique=True))
def test_folders_and_files_of_cluster_scoped_objects_are_no_environment_s(envs, destinations):
    """An environment's folder and companion file are its name's; the cluster folders' are not."""
    from mpigen.kube.names import folder_name_problem

    clusters = [names.cluster_kustomization(), *map(names.cluster_application, destinations)]
    folders = [names.cluster_folder(c) for c in clusters]
    assert len(set(folders)) == len(folders)
    for env in envs:
        if folder_name_problem(env) is None:
            assert env not in folders
            assert names.kustomizations_file(env) not in map(names.kustomizations_file, folders)


def test_the_issue_s_case():
    """trainjob environment `dev` and jobset environment `dev-runtimes`."""
    assert names.environment_step_kustomizations("dev", ("runtimes", "trainjobs")) == {
        "runtimes": "mpigen-dev-runtimes", "trainjobs": "mpigen-dev-trainjobs"}
    assert names.environment_kustomization("dev-runtimes") == "mpigen-dev--runtimes"


def test_names_without_a_dash_are_those_users_have():
    """Renaming a Flux Kustomization that prunes deletes its objects (docs/gitops.md): only
    environments whose names hold a '-' get new environment and step names."""
    assert names.environment_kustomization("prod") == "mpigen-prod"
    assert names.environment_kustomization("") == "mpigen"
    assert names.environment_step_kustomizations("", ("runtimes",)) == {"runtimes": "mpigen-runtimes"}
    assert names.job_step_kustomizations("dev", "ml-dev", "intel-pi", ("workers",)) == {
        "workers": "mpigen-dev-ml--dev-intel-pi-workers"}
    assert names.application("prod-eu") == "mpigen-prod-eu"  # Argo CD's keep the plain join
    assert names.environment_kustomization("Prod_EU") == names.application("Prod_EU")  # hashed as before


def test_every_target_s_steps_fit_the_scheme():
    for target in TARGETS.values():
        if target.flux is not None:
            names.environment_step_kustomizations("dev", target.flux.steps)
    with pytest.raises(ValueError):
        names.environment_step_kustomizations("dev", ("run-times",))
