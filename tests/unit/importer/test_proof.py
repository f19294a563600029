"""The proof of an import (mpigen.importer.proof): the blueprint rendered with a target and
each document given compared with the rendered object of its kind, every difference
reported at the given document's line."""

from __future__ import annotations

import yaml

from mpigen.decompile.reader import KindReader
from mpigen.importer.proof import prove
from mpigen.load.parser import parse
from tests.support.import_round_trip import V2BETA1, imported, job, render_blueprint
from tests.support.text import pos


def proven(target: str, blueprint: dict, text: str) -> list[tuple[str, tuple[int, int], str]]:
    (doc,) = parse(text, "given.yaml")
    reader = KindReader(doc, False, V2BETA1)
    prove(target, blueprint, [(reader, doc.data)], set())
    return [(d.severity, (d.mark.line, d.mark.column), d.message) for d in reader.problems]


def test_what_the_render_gives_back_is_no_difference_and_a_changed_value_is_one_at_its_line():
    blueprint, diagnostics = imported(job(api=V2BETA1))
    assert diagnostics == []
    made = render_blueprint(blueprint, target="mpijob")["MPIJob"]
    text = yaml.safe_dump(made, sort_keys=False)
    assert proven("mpijob", blueprint, text) == []
    changed = text.replace("slotsPerWorker: 1\n", "slotsPerWorker: 4\n")
    assert proven("mpijob", blueprint, changed) == [
        ("warning", pos(changed, "slotsPerWorker"), "MPIJob spec.slotsPerWorker: the imported blueprint renders 1 "
                                                    "here, not 4")]


def test_a_blueprint_the_target_refuses_is_an_error_at_the_jobs_name():
    blueprint, _ = imported(job(api=V2BETA1))
    blueprint["spec"]["workers"] = 0
    text = "apiVersion: x/v1\nkind: MPIJob\nmetadata: {name: train}\n"
    (problem,) = proven("mpijob", blueprint, text)
    assert problem[:2] == ("error", pos(text, "train"))
    assert problem[2].startswith("MPIJob metadata.name: the imported blueprint cannot be rendered for the mpijob target: ")
