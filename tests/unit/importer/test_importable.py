"""What loading tells a user who passes `mpigen render` a manifest `mpigen import` reads: the
kinds the targets' importers declare (mpigen.render.targets.IMPORTABLE), passed down to
mpigen.load.blueprints."""

from __future__ import annotations

from pathlib import Path

from mpigen.formats.blueprint import API_VERSION, BLUEPRINT_KIND
from mpigen.load.blueprints import load_files
from mpigen.render.targets import IMPORTABLE
from tests.support.text import pos, write
from tests.support.import_round_trip import job


def told(path: Path, named: bool, importable=IMPORTABLE) -> list[tuple[str, tuple[int, int], str]]:
    blueprints, problems = load_files([(path, named)], importable=importable)
    assert blueprints == []
    return [(d.severity, (d.mark.line, d.mark.column), d.message) for d in problems]


def test_a_named_manifest_of_an_importers_kind_is_an_error_that_names_mpigen_import(tmp_path):
    text = write(tmp_path / "job.yaml", job())
    hint = f"an MPIJob, not a blueprint: turn it into one with mpigen import {tmp_path / 'job.yaml'}"
    assert told(tmp_path / "job.yaml", named=True) == [("error", pos(text, "MPIJob"), hint)]
    assert told(tmp_path / "job.yaml", named=False) == [("warning", pos(text, "MPIJob"), hint)]


def test_a_kind_of_another_api_group_or_no_importer_is_not_blueprint_only(tmp_path):
    text = write(tmp_path / "job.yaml", job().replace("kubeflow.org/v1alpha2", "example.com/v1"))
    other = [("error", pos(text, "MPIJob"), f"not a blueprint: no document has kind: {BLUEPRINT_KIND} "
                                            f"(apiVersion: {API_VERSION})")]
    assert told(tmp_path / "job.yaml", named=True) == other
    write(tmp_path / "job.yaml", job())
    assert told(tmp_path / "job.yaml", named=True, importable=None) == other
