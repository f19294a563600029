"""An overlay's patch is a JSON merge patch (RFC 7386): the test cases of the RFC's Appendix A,
applied by mpigen.overlay.patched as an overlay applies a patch to a blueprint, and the
position of every value the patch writes kept in the overlay's file."""

from __future__ import annotations

import json

import pytest

from mpigen.errors import Mark
from mpigen.load.document import Document
from mpigen.load.parser import parse
from mpigen.overlay.patched import Patched
from tests.support.blueprints import blueprint_text
from tests.support.text import pos

# RFC 7386, Appendix A: (original, patch, result), verbatim.
APPENDIX_A = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


# The RFC's cases whose original and patch are objects, as an overlay's patch of a whole
# document is, and the same rules on a blueprint's shape.
OBJECT_CASES = [case for case in APPENDIX_A if isinstance(case[0], dict) and isinstance(case[1], dict)] + [
    ({"spec": {"resources": {"worker": {"cpu": "4", "memory": "8Gi"}}}},
     {"spec": {"resources": {"worker": {"memory": "16Gi"}, "launcher": {"cpu": "1"}}}},
     {"spec": {"resources": {"worker": {"cpu": "4", "memory": "16Gi"}, "launcher": {"cpu": "1"}}}}),
    ({"spec": {"command": ["python", "a.py", "--x"], "slotsPerWorker": 2}},
     {"spec": {"command": ["b"], "slotsPerWorker": None, "missing": None}},
     {"spec": {"command": ["b"]}}),
    ({"spec": {"runPolicy": 3}}, {"spec": {"runPolicy": {"backoffLimit": 1, "x": None}}},
     {"spec": {"runPolicy": {"backoffLimit": 1}}}),
]


def document(data: dict):
    (doc,) = parse(json.dumps(data), "doc.yaml")
    return doc


@pytest.mark.parametrize("original, patch, result", APPENDIX_A, ids=[json.dumps(c[1]) for c in APPENDIX_A])
def test_the_rfc_cases_under_a_blueprint_key(original, patch, result):
    """An overlay patches the blueprint, a mapping: each case sits under a key of it (a null
    result is the key removed, as RFC 7386 removes a member patched with null)."""
    patched = Patched(document({"spec": original, "kept": 1}))
    patched.merge({"spec": patch}, document({"patch": {"spec": patch}}), ("patch",))
    assert patched.data == ({"kept": 1} if result is None else {"spec": result, "kept": 1})


@pytest.mark.parametrize("original, patch, result", OBJECT_CASES,
                         ids=lambda v: json.dumps(v, separators=(",", ":")))
def test_a_patch_of_the_whole_document_follows_rfc7386(original, patch, result):
    before = json.dumps(original)
    patched = Patched(Document("target.yaml", original, Mark("target.yaml")))
    patched.merge(patch, Document("overlay.yaml", {"patch": patch}, Mark("overlay.yaml")), ("patch",))
    assert patched.data == result
    assert json.dumps(original) == before  # the blueprint's own data is not changed


def test_the_patch_and_the_blueprint_are_left_as_they_were():
    blueprint, overlay = document({"spec": {"env": {"A": "1"}}}), document({"patch": {"spec": {"env": {"B": "2"}}}})
    patched = Patched(blueprint)
    patched.merge(overlay.data["patch"], overlay, ("patch",))
    patched.data["spec"]["env"]["B"] = "changed"
    assert blueprint.data == {"spec": {"env": {"A": "1"}}} and overlay.data == {"patch": {"spec": {"env": {"B": "2"}}}}


def test_a_written_value_is_marked_in_the_overlay_and_the_others_in_the_blueprint():
    text = blueprint_text("job", workers=2)
    overlay_text = "patches:\n  - patch:\n      spec: {workers: 8, env: {A: '1'}}\n"
    (blueprint,), (overlay,) = parse(text, "job.yaml"), parse(overlay_text, "overlay.yaml")
    patched = Patched(blueprint)
    patched.merge(overlay.data["patches"][0]["patch"], overlay, ("patches", 0, "patch"))
    doc = patched.document()
    assert doc.data["spec"]["workers"] == 8
    marks = {loc: doc.value_mark(loc) for loc in [("spec", "workers"), ("spec", "env", "A"), ("spec", "image")]}
    assert (marks[("spec", "workers")].path, marks[("spec", "workers")].line, marks[("spec", "workers")].column) == (
        "overlay.yaml", *pos(overlay_text, "8"))
    assert (marks[("spec", "env", "A")].line, marks[("spec", "env", "A")].column) == pos(overlay_text, "'1'")
    assert (marks[("spec", "image")].path, marks[("spec", "image")].line) == (
        "job.yaml", pos(text, '"example.com/train:1"')[0])


def test_no_patch_leaves_the_document_itself():
    (blueprint,) = parse(blueprint_text("job"), "job.yaml")
    assert Patched(blueprint).document() is blueprint
