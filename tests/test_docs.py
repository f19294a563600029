"""The documentation's examples work: every blueprint shown in README.md and docs/ renders,
every error line shown has the documented form, and the Quick start targets exist."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT, render_text

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def yaml_blocks():
    for doc in DOCS:
        for i, block in enumerate(re.findall(r"```yaml\n(.*?)```", doc.read_text(), re.S)):
            yield pytest.param(block, id=f"{doc.name}#{i}")


@pytest.mark.parametrize("block", list(yaml_blocks()))
def test_documented_blueprints_render(block):
    if "kind: MPIJobBlueprint" not in block:
        pytest.skip("not a blueprint")
    objects = render_text(block, "doc.yaml")
    assert {o["kind"] for o in objects} == {"ConfigMap", "ServiceAccount", "Role", "RoleBinding", "StatefulSet", "Job"}


def test_quick_start_targets_exist():
    readme = (ROOT / "README.md").read_text()
    quick = readme[readme.index("## Quick start"):readme.index("## A blueprint")]
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
