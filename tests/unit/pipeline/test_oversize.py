"""Where a render too large for the cluster is reported (mpigen.pipeline.oversize): at the field
the object's kind names, else at the key of the blueprint's largest field, and path-level when
the file writes no field to blame."""

from __future__ import annotations

from mpigen.errors import Mark
from mpigen.load.parser import parse
from mpigen.pipeline.oversize import size_errors, size_marks
from mpigen.render.refusals import TooLarge
from mpigen.render.targets import RESERVED
from mpigen.validate.document import validate_document
from tests.support.blueprints import blueprint_yaml
from tests.support.text import pos

TEXT = blueprint_yaml("big", metadata="annotations: {a: b}\n",
                      spec="image: r/i:1\nworkers: 2\ncommand: [a]\nenv:\n  BIG: " + "x" * 1000 + "\n")


def test_a_problem_is_reported_at_its_field_or_at_the_largest_key():
    (doc,) = parse(TEXT, "big.yaml")
    blueprint, _ = validate_document(doc, RESERVED)
    marks = size_marks(doc)
    assert set(marks) == {"spec.workers", "spec.image", "spec.command", "spec.env", "metadata.annotations"}
    workers, largest = size_errors([TooLarge("spec.workers", "many"), TooLarge("", "big")], blueprint, marks, "big.yaml")
    assert (workers.mark, workers.message) == (Mark("big.yaml", *pos(TEXT, "2\n")), "spec.workers: many")
    assert largest.mark == Mark("big.yaml", *pos(TEXT, "env:"))
    assert largest.message.startswith("spec.env: big; spec.env is the largest part of the blueprint (1,010 bytes")


def test_a_field_the_file_does_not_write_is_reported_path_level():
    (doc,) = parse(TEXT, "big.yaml")
    blueprint, _ = validate_document(doc, RESERVED)
    (only,) = size_errors([TooLarge("", "big")], blueprint, {}, "big.yaml")
    assert only.mark == Mark("big.yaml") and not only.mark.positioned


def test_one_error_a_field_and_limit_names_how_many_more_objects_are_over_it():
    (doc,) = parse(TEXT, "big.yaml")
    blueprint, _ = validate_document(doc, RESERVED)
    problems = [TooLarge("", "the Job a is big", "annotations"), TooLarge("", "the Role b is big", "annotations"),
                TooLarge("", "the JobSet c is big", "etcd")]
    annotations, etcd = size_errors(problems, blueprint, size_marks(doc), "big.yaml")
    assert annotations.message.startswith("spec.env: the Job a is big (and 1 more of the job's objects);")
    assert etcd.message.startswith("spec.env: the JobSet c is big;")
