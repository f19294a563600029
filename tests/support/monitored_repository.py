"""A copy of the repository's blueprints and overlays under an mpigen.yaml that monitors every
environment (for the monitoring settings tests of tests/acceptance/monitoring/): the Config, and
the digest of its runbookURL that the names of the rendered monitoring objects carry."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.paths import ROOT

CONFIG = ("apiVersion: mpigen.dev/v1alpha1\nkind: Config\noverlays: [dev, prod]\noutput: rendered\n"
          "monitoring:\n  prometheusRule: {labels: {release: prometheus}}\n"
          "  runbookURL: https://git.example.com/ml/training/-/blob/main/docs/monitoring.md\n")
DIGEST = "bae1f5"  # the first 6 hex digits of the sha256 of that runbookURL


def repository(tmp_path: Path, config: str = CONFIG) -> Path:
    """tmp_path holding the checkout's blueprints/ and overlays/ and `config` as mpigen.yaml."""
    for folder in ("blueprints", "overlays"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    (tmp_path / "mpigen.yaml").write_text(config, encoding="utf-8")
    return tmp_path
