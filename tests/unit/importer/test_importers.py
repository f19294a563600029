"""Which importer reads a job manifest: the one its target declares in the table
(mpigen.render.targets), resolved only by `mpigen import`, so that rendering loads none."""

from __future__ import annotations

import dataclasses

import pytest

from mpigen.decompile.mpijob import import_document
from mpigen.decompile.port import Given
from mpigen.importer.blueprints import blueprints
from mpigen.importer.importers import import_job, importers
from mpigen.load.parser import parse
from mpigen.render.targets import IMPORTABLE, RESERVED, TARGETS
from tests.support.import_round_trip import job
from tests.support.text import pos, write
from tests.support.toy_importer import TOY

DECLARED = [target for target in TARGETS.values() if target.importer is not None]


def test_each_kind_is_read_by_one_target_and_loading_is_told_the_same_kinds():
    kinds = [target.importer.kind for target in DECLARED]
    assert DECLARED and len(set(kinds)) == len(kinds)
    assert {kind: target.name for kind, (target, _) in importers().items()} == \
        {target.importer.kind: target.name for target in DECLARED}
    assert IMPORTABLE == {t.importer.kind: (t.importer.group, t.importer.article) for t in DECLARED}


@pytest.mark.parametrize("target", DECLARED, ids=lambda target: target.name)
def test_a_declared_importer_module_defines_what_the_stage_calls(target):
    module = target.importer.decompiler()
    assert callable(module.import_job)
    assert callable(getattr(module, "reference_of", None)) == (target.importer.references is not None)


def test_a_job_is_read_by_the_importer_its_target_declares():
    (doc,) = parse(job(), "mpijob.yaml")
    assert import_job(doc) == import_document(doc, given=Given(reserved=RESERVED))


def test_a_kind_no_importer_reads_is_refused_at_its_line():
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
    result = import_job(parse(text, "cm.yaml")[0])
    assert result.blueprint == {}
    kinds = ", ".join(target.importer.kind for target in DECLARED)
    assert [(d.severity, (d.mark.line, d.mark.column), d.message) for d in result.diagnostics] == \
        [("error", pos(text, "ConfigMap"), f"kind: not one of the kinds mpigen import reads: {kinds}")]


def test_a_file_without_jobs_names_what_import_reads(tmp_path):
    path = tmp_path / "cm.yaml"
    write(path, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    texts, problems = blueprints([str(path)], strict=False)
    assert texts == {}
    assert [d.message for d in problems] == ["no MPIJob, TrainJob or Trainer runtime in this file"]


@pytest.fixture
def toy_table(monkeypatch):
    """The table with a toy target that declares the importer of tests/support/toy_importer.py."""
    toy = dataclasses.replace(TARGETS["static"], name="toy", importer=TOY)
    monkeypatch.setitem(TARGETS, "toy", toy)


def test_a_target_with_an_importer_in_the_table_alone_is_read_with_what_its_jobs_reference(toy_table, tmp_path):
    write(tmp_path / "job.yaml", "apiVersion: toy.example.com/v1\nkind: ToyJob\nmetadata: {name: a}\n"
                                 "spec: {image: example.com/a:1}\n")
    write(tmp_path / "refs.yaml", "apiVersion: toy.example.com/v1\nkind: ToyConfig\nmetadata: {name: a}\n"
                                  "data: {workers: 3}\n---\napiVersion: toy.example.com/v1\nkind: ToyConfig\n"
                                  "metadata: {name: b}\n")
    texts, problems = blueprints([str(tmp_path / "job.yaml"), str(tmp_path / "refs.yaml")], strict=False)
    assert list(texts) == ["default/a.yaml"] and "workers: 3" in texts["default/a.yaml"]
    assert [(d.severity, d.message) for d in problems] == [("warning", "ToyConfig 'b': no ToyJob given references it")]
    write(tmp_path / "none.yaml", "kind: Other\n")
    _, problems = blueprints([str(tmp_path / "none.yaml")], strict=False)
    assert [d.message for d in problems] == \
        ["no MPIJob, TrainJob, ToyJob, Trainer runtime or toy configuration in this file"]
