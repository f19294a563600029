"""The documentation's examples work: every blueprint shown in README.md and docs/ renders,
every error line shown has the documented form, and the make targets of README's Install exist."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import tomllib

import pytest

from mpigen.render.target import Target
from tests.support.command_line import run_mpigen
from tests.support.paths import ROOT
from tests.support.rendering import render_text

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def yaml_blocks():
    for doc in DOCS:
        for i, block in enumerate(re.findall(r"```yaml\n(.*?)```", doc.read_text(), re.S)):
            yield pytest.param(block, id=f"{doc.name}#{i}")


BLOCKS = list(yaml_blocks())


def test_the_tutorial_names_every_runtime_dependency_and_extra():
    """pyproject.toml's dependencies and extras, as the tutorial lists them (they drifted)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    sentence = re.search(r"mpigen's runtime needs only (.*?)\. Check", (ROOT / "docs" / "tutorial.md").read_text(),
                         re.S)[1].lower()
    for requirement in project["dependencies"]:
        assert re.match(r"[A-Za-z0-9_.-]+", requirement)[0].lower() in sentence, requirement
    for extra in set(project["optional-dependencies"]) - {"test"}:
        assert f"mpigen[{extra}]" in sentence, extra


@pytest.mark.parametrize("block", [b for b in BLOCKS if "kind: MPIJobBlueprint" in b.values[0]])
def test_documented_blueprints_render(block):
    objects = render_text(block, "doc.yaml")
    kinds = {o["kind"] for o in objects}
    assert {"ConfigMap", "ServiceAccount", "Role", "RoleBinding", "StatefulSet", "Job"} <= kinds <= {
        "ConfigMap", "ServiceAccount", "Role", "RoleBinding", "StatefulSet", "Job", "PodGroup"}


@pytest.mark.parametrize("block", [b for b in BLOCKS if "kind: Overlay" in b.values[0]])
def test_documented_overlays_are_valid(block):
    from mpigen.load.parser import parse
    from mpigen.overlay.file import _validate

    problems = []
    assert _validate(parse(block, "overlay.yaml")[0], problems) is not None and problems == []


@pytest.mark.parametrize("block", [b for b in BLOCKS if "kind: Config" in b.values[0]])
def test_documented_config_is_valid(block, tmp_path):
    from mpigen.project.config import load_config

    (tmp_path / "mpigen.yaml").write_text(block)
    assert load_config(tmp_path) is not None


def test_every_file_the_docs_cite_is_in_the_repository():
    """A reader can open what a doc cites: no notes kept outside the repository (shared/...),
    and every relative link leads to a file or folder of the repository."""
    for doc in DOCS:
        text = doc.read_text()
        assert "shared/" not in text, doc.name
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if not re.match(r"[a-z]+:", target):
                assert (doc.parent / target).exists(), (doc.name, target)


def test_documented_commands_exist():
    """Every `mpigen <command>` line in a shell block of the docs names a real command."""
    from mpigen.cli.main import COMMANDS

    commands = set(COMMANDS)
    for doc in DOCS:
        for block in re.findall(r"```sh\n(.*?)```", doc.read_text(), re.S):
            for name in re.findall(r"^mpigen (\w+)", block, re.M):
                assert name in commands, (doc.name, name)


def test_quick_start_targets_exist():
    """README's Install shows the two commands of a clone, `make render` and `make test`, and
    they are the Makefile's; CI runs `make test`."""
    readme = (ROOT / "README.md").read_text()
    quick = readme[readme.index("## Install"):readme.index("## A blueprint")]
    commands = re.findall(r"^make (\w+)", quick, re.M)
    assert commands == ["render", "test"]
    makefile = (ROOT / "Makefile").read_text()
    for target in commands:
        assert re.search(rf"^{target}:", makefile, re.M)
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_documented_error_lines_have_the_contract_form():
    text = (ROOT / "docs" / "cli.md").read_text()
    lines = [l for l in text.splitlines() if re.match(r"^blueprints/\S+:\d+:\d+: ", l)]
    assert lines
    for line in lines:
        assert re.match(r"^\S+:\d+:\d+: (error|warning): \S", line)


def test_documented_path_errors_are_what_mpigen_prints(tmp_path):
    """The position-less error lines docs/cli.md shows, each from the run it describes:
    a render with nowhere to write, a FIFO in a searched folder, an option that is no image reference, a full disk behind
    standard output (/dev/full), a mistyped overlay on the command line and a mistyped
    target in Argo CD's plugin settings. (Another user's mpigen.yaml needs two users:
    tests/system/another_user/test_foreign_config.py runs its example.)"""
    text = (ROOT / "docs" / "cli.md").read_text()
    shown = [line for line in text.splitlines() if line.startswith("error: ") and "MPIGEN_SAFE_DIRECTORIES" not in line]
    (tmp_path / "blueprints").mkdir()
    os.mkfifo(tmp_path / "blueprints" / "pipe.yaml")
    example = str(ROOT / "blueprints" / "mpich-pi.yaml")
    runs = [run_mpigen("render", cwd=tmp_path),  # no mpigen.yaml to name the output folder
            run_mpigen("validate", "blueprints", cwd=tmp_path),
            run_mpigen("render", example, "--stdout", "--kubectl-delivery-image", "kubectl delivery")]
    with open("/dev/full", "wb") as full:
        runs.append(run_mpigen("render", example, "--stdout", stdout=full, stderr=subprocess.PIPE))
    runs.append(run_mpigen("render", "--overlay", "prd", "--stdout", cwd=ROOT))
    runs.append(run_mpigen("render", "--stdout", cwd=ROOT, env={**os.environ, "ARGOCD_ENV_MPIGEN_TARGET": "jobsett"}))
    # the error lines: the example's warnings (its cleanPodPolicy without a GitOps profile) aside
    printed = ["\n".join(line for line in done.stderr.decode().strip().splitlines() if ": warning: " not in line)
               for done in runs]
    assert printed == shown
    assert [done.returncode for done in runs] == [2, 2, 2, 2, 2, 2]


def test_documented_repository_messages_are_what_mpigen_prints(tmp_path):
    """docs/cli.md's `-v` line and its message outside any repository, from those runs."""
    text = (ROOT / "docs" / "cli.md").read_text()
    section = text[text.index("### Finding the repository"):text.index("PATH is a blueprint file")]
    verbose, outside = re.findall(r"```\n(.*?)\n```", section, re.S)
    (tmp_path / "blueprints").mkdir()
    (tmp_path / "blueprints" / "job.yaml").write_text((ROOT / "blueprints" / "mpich-pi.yaml").read_text())
    done = run_mpigen("render", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.decode().strip() == outside
    shown = re.fullmatch(r"mpigen: using (\S+)/mpigen.yaml \(the paths in it and in the messages are relative to "
                         r"(\S+)\)", verbose)
    assert shown and shown[1] == shown[2]
    done = run_mpigen("validate", "-v", cwd=ROOT / "blueprints")
    root = ROOT.resolve().as_posix()
    assert done.returncode == 0 and done.stderr.decode().splitlines()[0] == verbose.replace(shown[1], root)


def test_documented_yaml_hints_are_what_mpigen_prints(tmp_path):
    """The YAML syntax errors docs/cli.md shows, each from the mistake it describes in the
    line it names of a copy of an example blueprint."""
    text = (ROOT / "docs" / "cli.md").read_text()
    shown = [line for line in text.splitlines() if line.startswith("blueprints/resnet.yaml:") and "YAML" in line]
    good = (ROOT / "blueprints" / "resnet50-imagenet.yaml").read_text()
    mistakes = [("image: horovod/horovod:0.28.1", "image: horovod/horovod: 0.28.1"), ("workers: 4", "workers:4"),
                ("  workers: 4", "\tworkers: 4"), ("400Gi}", "400Gi")]
    printed = []
    for old, new in mistakes:
        assert good.count(old) == 1, old
        (tmp_path / "blueprints").mkdir(exist_ok=True)
        (tmp_path / "blueprints" / "resnet.yaml").write_text(good.replace(old, new))
        done = run_mpigen("validate", cwd=tmp_path)
        assert done.returncode == 2
        printed.append(done.stderr.decode().strip())
    assert printed == shown


def test_documented_import_commands_run(tmp_path):
    """The `mpigen import` examples of docs/cli.md, run as shown in a copy of the repository's
    MPIJob output: each succeeds, and the blueprints they give render."""
    import shlex
    import shutil

    text = (ROOT / "docs" / "cli.md").read_text()
    section = text[text.index("## mpigen import"):text.index("## mpigen validate")]
    block, = re.findall(r"```sh\n(.*?)```", section, re.S)
    shutil.copytree(ROOT / "golden" / "mpijob-v2beta1", tmp_path / "golden" / "mpijob-v2beta1")
    for line in block.splitlines():
        argv = [word for word in shlex.split(line.split("#")[0])]
        expanded = [str(p.relative_to(tmp_path)) for word in argv[2:] if "*" in word
                    for p in sorted(tmp_path.glob(word))]
        argv = [w for w in argv[1:] if "*" not in w] + expanded
        done = run_mpigen(*argv, cwd=tmp_path)
        assert done.returncode == 0, (line, done.stderr)
        assert done.stdout.startswith(b"# yaml-language-server: $schema=../schemas/blueprint.schema.json\n---\n") \
            if "-o" not in argv else done.stdout == b""
    assert sorted(p.name for p in (tmp_path / "imported" / "hpc").iterdir()) == ["intel-pi.yaml", "mpich-pi.yaml"]
    assert run_mpigen("render", "imported", "--stdout", cwd=tmp_path).returncode == 0


def test_architecture_shows_the_layers_and_the_target_interface_the_code_has():
    """docs/architecture.md draws the layering import-linter enforces and the Target a new
    target fills in: both must be the code's."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c["id"] == "stages")
    drawn = re.search(r"## The layering, enforced\n.*?```\n(.*?)```", text, re.S).group(1).split("\n")
    assert [line.replace("mpigen.", "") for line in layers] == [line for line in drawn if line]
    block = re.search(r"```python\n@dataclass\(frozen=True\)\nclass Target:\n(.*?)```", text, re.S).group(1)
    shown = re.findall(r"^    (\w+):", block, re.M)
    assert shown == [field.name for field in dataclasses.fields(Target)]


# How the docs name a version of mpigen: the index's pin (extras too), the wheel and the sdist
# `make dist` builds, the release tag of a clone or a git URL, and what `mpigen --version` prints.
VERSION = r"(\d+(?:\.\d+)+)"
PINNED = re.compile(rf"mpigen(?:\[\w+\])?=={VERSION}|mpigen-{VERSION}(?:-py3-none-any\.whl|\.tar\.gz)"
                    rf"|mpigen@v{VERSION}|checked out at `v{VERSION}`|rev: v{VERSION}|^mpigen {VERSION}$"
                    rf"|each of version {VERSION}", re.M)
INSTALL_DOCS = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*") if p.suffix in (".md", ".yml", ".yaml"))]


def test_the_docs_install_the_version_of_pyproject():
    """Every version of mpigen the docs name is pyproject's, so a release cannot leave them
    behind; and every doc that installs mpigen says how from a wheel and, once it is published,
    from the index, pinned."""
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    named, installing = {}, []
    for doc in INSTALL_DOCS:
        text = doc.read_text(encoding="utf-8")
        where = doc.relative_to(ROOT).as_posix()
        named[where] = sorted({"".join(found) for found in PINNED.findall(text)})
        if "pip install" in text:
            installing.append(where)
            says_how = f"mpigen-{version}-py3-none-any.whl" in text and f"mpigen=={version}" in text
            assert says_how, f"{where}: name the wheel and the index's pin of mpigen {version}"
    assert set(installing) >= {"README.md", "docs/tutorial.md", "docs/ci.md", "docs/ci/github-actions.yml",
                               "docs/gitops.md"}
    assert {doc: versions for doc, versions in named.items() if versions not in ([], [version])} == {}
    assert all(named[doc] == [version] for doc in installing)
