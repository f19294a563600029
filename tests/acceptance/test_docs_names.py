"""Every name in the docs that the render produces is checked against a render (issue 30,
point 6): the Flux Kustomizations and Argo CD Applications (`mpigen-...`), the paths of the
output and companion folders (`rendered/...`, `<ns>/<kind>-<name>.yaml`,
`kustomizations-<overlay>.yaml`, `workers/`, `runtimes/`), and the object names quoted from
golden output, found in README.md, docs/*.md and docs/**/*.yaml as tests/support/docs_names.py
describes, each against a real render of the configuration its section shows (SCOPES): the
doc's own mpigen.yaml where it has one, else the repository's blueprints/ and overlays/ with
the settings the section documents. A section that says which Kustomizations a target gets
must name every one its render writes. Each configuration is rendered once, in a copy."""

from __future__ import annotations

import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.docs_names import Claim, Render, Scope, claims, problems, unnamed, written
from tests.support.docs_run import shell_blocks
from tests.support.golden import CASES, render_stream
from tests.support.golden import config_target
from tests.support.paths import BLUEPRINTS, ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs").rglob("*.yaml"))]
EXAMPLE_JOBS = {yaml.safe_load(path.read_text(encoding="utf-8"))["metadata"]["name"] for path in BLUEPRINTS.glob("*.yaml")}


def config_block(doc: str, heading: str) -> str:
    """The mpigen.yaml a doc shows under `heading`: its first ```yaml block of kind Config there."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    section = text[text.index(heading):]
    return next(block for block in re.findall(r"```yaml\n(.*?)```", section, re.S) if "kind: Config" in block)


def with_target(config: str, target: str) -> str:
    """The configuration with every job's target (under mpijob, less the examples it refuses)."""
    return config + config_target(target)


@dataclass(frozen=True)
class Configuration:
    """A repository a doc shows, and the `mpigen render` run in it: `config` its mpigen.yaml
    (None: none), `files` its blueprints and overlays (None: the repository's)."""

    config: str | None
    args: tuple[str, ...] = ()
    files: tuple[tuple[str, str], ...] | None = None


def example_job(name: str, namespace: str, **spec) -> str:
    """An example blueprint under another name and namespace."""
    document = yaml.safe_load((BLUEPRINTS / "mpich-pi.yaml").read_text(encoding="utf-8"))
    document["metadata"].update(name=name, namespace=namespace)
    document["spec"].update(spec)
    return yaml.safe_dump(document, sort_keys=False)


def overlay(gitops: str) -> str:
    return f"apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\ngitops: {gitops}\n"


def tutorial_files() -> tuple[tuple[str, str], ...]:
    return tuple((path, text) for block in shell_blocks(ROOT / "docs" / "tutorial.md")
                 for path, text in block.files.items())


GITOPS_ARGOCD = config_block("docs/gitops.md", "## 4. Argo CD, rendered in CI")
GITOPS_FLUX = config_block("docs/gitops.md", "## 5. Flux, rendered in CI")
# gitops.md section 5's names, each from a repository of the overlays it names (each overlay's
# `gitops`: flux or argocd): the Kustomizations of jobs (job `c` in namespace `a-b`, job `b-c` in
# `a`), of environments (overlays `dev-eu`, `dev-runtimes`, `Prod_EU`) and of their steps (target
# trainjob), and Argo CD's Applications (`prod-eu`, `Prod_EU`); two flux and two argocd
# environments of one cluster sharing a ClusterTrainingRuntime, for the cluster's folders.
JOBS = (("blueprints/c.yaml", example_job("c", "a-b")), ("blueprints/b-c.yaml", example_job("b-c", "a")))
SHARED = (("blueprints/shared.yaml", example_job("shared", "hpc", runtime={"emit": "ClusterTrainingRuntime"})),)


def names_repository(overlays: dict[str, str], blueprints: tuple[tuple[str, str], ...],
                     target: str | None = None) -> Configuration:
    """A repository of `blueprints` and of `overlays` (name -> profile), rendering them all."""
    config = (f"apiVersion: mpigen.dev/v1alpha1\nkind: Config\noverlays: [{', '.join(overlays)}]\n"
              "argocd: {repoURL: https://git.example.com/ml/training.git}\nflux: {}\n")
    return Configuration(with_target(config, target) if target else config, files=blueprints + tuple(
        (f"overlays/{name}/overlay.yaml", overlay(gitops)) for name, gitops in overlays.items()))


# The Kustomization a doc's Flux health checks go into: the prod environment of the repository under flux.
HEALTH = ("apiVersion: mpigen.dev/v1alpha1\nkind: Config\noverlays: [prod]\noutput: rendered\n"
          "flux: {kustomizations: clusters/flux}\n")
CONFIGURATIONS = {
    "the repository": Configuration((ROOT / "mpigen.yaml").read_text(encoding="utf-8")),
    "blueprints/ -o rendered": Configuration(None, ("blueprints", "-o", "rendered")),
    "docs/overlays.md's layout": Configuration(
        "apiVersion: mpigen.dev/v1alpha1\nkind: Config\nblueprints: [blueprints]\noverlays: [dev, prod]\n"
        "output: rendered\n"),
    "docs/gitops.md section 4": Configuration(GITOPS_ARGOCD),
    "docs/gitops.md section 5": Configuration(GITOPS_FLUX),
    **{f"docs/gitops.md section 5, target {target}": Configuration(with_target(GITOPS_FLUX, target))
       for target in ("jobset", "mpijob", "trainjob")},
    # An environment whose target rules mix the targets (docs/overlays.md, A target per group of jobs).
    "docs/gitops.md section 5, mixed targets": Configuration(
        GITOPS_FLUX + "targets:\n  - jobs: {name: vit-sweep-7}\n    target: jobset\n"
                      "  - jobs: {name: mpich-pi}\n    target: trainjob\n"),
    "docs/gitops.md section 5's job names": names_repository(
        {"dev": "flux", "prod": "argocd", "prod-eu": "argocd", "Prod_EU": "argocd"}, JOBS),
    "docs/gitops.md section 5's environment names": names_repository(
        {"dev": "flux", "dev-eu": "flux", "dev-runtimes": "flux", "Prod_EU": "flux"}, JOBS, "jobset"),
    "docs/gitops.md section 5's step and cluster names": names_repository(
        {"dev": "flux", "dev-eu": "flux", "Prod_EU": "flux", "prod": "argocd", "prod-eu": "argocd"},
        JOBS + SHARED, "trainjob"),
    "two flux environments sharing a ClusterTrainingRuntime": names_repository(
        {"dev": "flux", "prod": "flux"}, SHARED, "trainjob"),
    # Step 5 renders before the tutorial writes mpigen.yaml (with it, a render of PATH into its
    # output folder is refused: it would replace every environment's folder).
    "docs/tutorial.md step 5": Configuration(None, ("blueprints", "-o", "rendered"),
                                             tuple(f for f in tutorial_files() if f[0] != "mpigen.yaml")),
    "docs/tutorial.md": Configuration(None, (), tutorial_files()),
    "no overlays under flux, target trainjob": Configuration(
        "apiVersion: mpigen.dev/v1alpha1\nkind: Config\ngitops: flux\ntarget: trainjob\nflux: {}\n"),
    **{f"prod under flux, target {target}": Configuration(with_target(HEALTH, target), ("--gitops", "flux"))
       for target in ("jobset", "mpijob", "trainjob")},
    "a ClusterTrainingRuntime": Configuration(None, ("blueprints", "--target", "trainjob", "-o", "rendered"), SHARED),
    "the monitored overlay": Configuration(None, ("--overlay", "monitored", "-o", "rendered")),
}
FLUX_TARGETS = tuple(f"docs/gitops.md section 5, target {target}" for target in ("jobset", "mpijob", "trainjob"))
SECTION_5_NAMES = tuple(f"docs/gitops.md section 5's {kind} names"
                        for kind in ("job", "environment", "step and cluster"))
HEALTH_TARGETS = tuple(f"prod under flux, target {target}" for target in ("jobset", "mpijob", "trainjob"))
SCOPES = {
    ("README.md", ""): Scope(("the repository", "blueprints/ -o rendered")),
    ("docs/cli.md", ""): Scope(("the repository", "blueprints/ -o rendered")),
    ("docs/development.md", ""): Scope(("the repository", "blueprints/ -o rendered")),
    ("docs/cli.md", "## mpigen import"): Scope(elsewhere="`mpigen import -o DIR` writes blueprints, not a render"),
    ("docs/overlays.md", ""): Scope(("docs/overlays.md's layout", "the repository")),
    ("docs/tutorial.md", ""): Scope(("docs/tutorial.md",)),
    ("docs/tutorial.md", "## 5. Render it"): Scope(("docs/tutorial.md step 5",)),
    ("docs/gitops.md", "## 1. Choose a profile"): Scope(("the repository", "docs/gitops.md section 5")),
    ("docs/gitops.md", "## 4. Argo CD, rendered in CI"): Scope(("docs/gitops.md section 4", "the repository"),
                                                             complete=True),
    ("docs/gitops.md", "## 5. Flux, rendered in CI"): Scope(
        ("docs/gitops.md section 5", *FLUX_TARGETS, "docs/gitops.md section 5, mixed targets", *SECTION_5_NAMES,
         "no overlays under flux, target trainjob"),
        complete=True),
    ("docs/gitops.md", "## 7. Health"): Scope(HEALTH_TARGETS),
    ("docs/targets.md", "## The jobset target > ### GitOps"): Scope(
        ("docs/gitops.md section 5, target jobset",), complete=True),
    ("docs/targets.md", "## The trainjob target > ### GitOps"): Scope(
        ("docs/gitops.md section 5, target trainjob", "no overlays under flux, target trainjob",
         "two flux environments sharing a ClusterTrainingRuntime"), complete=True),
    ("docs/targets.md", "## The trainjob target > ### The runtime"): Scope(("a ClusterTrainingRuntime",)),
    ("docs/monitoring.md", ""): Scope(("the monitored overlay",)),
    **{(f"docs/flux/{target}-health.yaml", ""): Scope((f"prod under flux, target {target}",))
       for target in ("jobset", "mpijob", "trainjob")},
}


def render(configuration: Configuration, repository: Path) -> Render:
    """`mpigen render` of the configuration in a new repository, and what it wrote."""
    files = configuration.files
    if files is None:
        shutil.copytree(ROOT / "blueprints", repository / "blueprints")
        shutil.copytree(ROOT / "overlays", repository / "overlays")
    for path, text in files or ():
        (repository / path).parent.mkdir(parents=True, exist_ok=True)
        (repository / path).write_text(text, encoding="utf-8")
    if configuration.config:
        (repository / "mpigen.yaml").write_text(configuration.config, encoding="utf-8")
    config = yaml.safe_load((repository / "mpigen.yaml").read_text(encoding="utf-8")) \
        if (repository / "mpigen.yaml").is_file() else {}
    done = run_mpigen("render", *configuration.args, cwd=repository)
    assert done.returncode == 0, done.stderr.decode()
    args = configuration.args
    output = args[args.index("-o") + 1] if "-o" in args else config.get("output", "rendered")
    companions = {section.get(key, default) for key, default, section in (
        ("applications", "argocd", config.get("argocd")), ("kustomizations", "flux", config.get("flux")))
                  if section is not None}
    jobs = {yaml.safe_load(path.read_text(encoding="utf-8"))["metadata"]["name"]
            for path in (repository / "blueprints").glob("*.yaml")}
    return written(repository, {output}, companions, set(config.get("overlays", [])), jobs)


def golden_case(path: str) -> str:
    """The case of tests/support/golden.py whose render a golden file is ("the repository" for
    golden/overlays*/ and golden/argocd-applications/, which `mpigen render` writes here)."""
    case = re.fullmatch(r"golden/([\w-]+?)(?:\.yaml|/.*)?", path).group(1)
    return case if case in CASES else "the repository"


def stream_render(case: str) -> Render:
    """The objects of the golden case's stream, as mpigen renders it now."""
    names = frozenset(o["metadata"]["name"] for o in yaml.safe_load_all(render_stream(case)) if o)
    empty = frozenset()
    return Render(empty, empty, empty, names, empty, empty, frozenset(EXAMPLE_JOBS), empty, empty, empty)


def folders() -> set[str]:
    """The folders the configurations write: where a path of a doc names what a render writes."""
    found = {"rendered", "argocd", "flux"}
    for configuration in CONFIGURATIONS.values():
        config = yaml.safe_load(configuration.config) if configuration.config else {}
        found.add(config.get("output", "rendered"))
        found.update(section[key] for key, section in (("applications", config.get("argocd") or {}),
                                                       ("kustomizations", config.get("flux") or {}))
                     if key in section)
    return found


@pytest.fixture(scope="module")
def found() -> list[Claim]:
    return [claim for doc in DOCS for claim in claims(doc, ROOT, folders(), EXAMPLE_JOBS)]


@pytest.fixture(scope="module")
def renders(found, tmp_path_factory) -> dict[str, Render]:
    """Each configuration rendered once, and each golden case the docs quote objects from, side
    by side (each render is a process of its own)."""
    cases = {golden_case(path) for claim in found for path in claim.golden} - {"the repository"}
    with ThreadPoolExecutor() as pool:
        done = {name: pool.submit(render, configuration, tmp_path_factory.mktemp("repository"))
                for name, configuration in CONFIGURATIONS.items()}
        done.update({case: pool.submit(stream_render, case) for case in cases})
    return {name: future.result() for name, future in done.items()}


def test_every_name_the_docs_give_the_render_is_what_it_writes(found, renders):
    assert len(found) > 50
    reported = problems(found, SCOPES, renders, lambda path: renders[golden_case(path)])
    reported += unnamed(ROOT, found, SCOPES, renders)
    assert reported == [], "\n".join(reported)
