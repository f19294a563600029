"""The render fixture of the GitOps tests: a blueprint text through the real pipeline under a profile."""

from __future__ import annotations

import itertools

import pytest
import yaml

from tests.support.gitops import Rendered


@pytest.fixture
def render(tmp_path):
    """render(text, gitops) -> Rendered: the blueprint text in a file of its own, through
    the real pipeline (the emitted YAML read back)."""
    from mpigen.pipeline.run import render_paths
    from mpigen.pipeline.settings import run_settings
    from mpigen.render.target import Options

    counter = itertools.count()

    def run(text: str, gitops: str = "argocd") -> Rendered:
        folder = tmp_path / f"render-{next(counter)}"
        folder.mkdir()
        (folder / "job.yaml").write_text(text, encoding="utf-8")
        result = render_paths([folder], run_settings(Options(target="static", gitops=gitops)))
        return Rendered([yaml.safe_load(item.text) for item in result.objects], result.warnings)

    return run
