"""The loader's iterative composer over PyYAML's event stream (libyaml when available):
nesting limits, aliases, marks, YAML 1.1 scalars, and the same Documents from the C and the
pure-Python parser."""

from __future__ import annotations

import math
import re
import textwrap

import pytest
import yaml

from mpigen.errors import InputError
from mpigen.load.parser import MAX_DEPTH, parse
from tests.support.paths import BLUEPRINTS, ROOT

DEEP = f"nesting is deeper than {MAX_DEPTH} levels"


def refused(text: str) -> list[tuple[int, int, str]]:
    with pytest.raises(InputError) as caught:
        parse(text, "t.yaml")
    return [(d.mark.line, d.mark.column, d.message) for d in caught.value.diagnostics]


def at(mark) -> tuple[int, int]:
    return mark.line, mark.column


# --- nesting ------------------------------------------------------------------------------
# Every node is a level: the root is level 1, and the keys and values of a collection at
# level n are at level n + 1. A node at level 65 is refused, at that node.

def test_flow_nesting_of_64_levels_is_read_and_65_is_refused(loader):
    assert parse("[" * 64 + "]" * 64, "t.yaml")[0].data is not None
    assert refused("[" * 65 + "]" * 65) == [(1, 65, DEEP)]
    # 64 sequences and a scalar in the innermost: the scalar is level 65
    assert refused("[" * 64 + "x" + "]" * 64) == [(1, 65, DEEP)]
    # {a: {a: ... 1}}: the key of the 64th mapping is level 65, at column 4*63 + 2
    assert refused("{a: " * 64 + "1" + "}" * 64) == [(1, 4 * 63 + 2, DEEP)]


def test_block_nesting_of_64_levels_is_read_and_65_is_refused(loader):
    def mappings(n: int) -> str:  # n nested block mappings, two spaces per level
        return "".join("  " * i + "k:\n" for i in range(n - 1)) + "  " * (n - 1) + "k: x\n"

    doc = parse(mappings(63), "t.yaml")[0]  # innermost key and value at level 64
    assert at(doc.value_marks[("k",) * 63]) == (63, 2 * 62 + 4)
    assert refused(mappings(64)) == [(64, 2 * 63 + 1, DEEP)]  # the 64th mapping's key
    # `- - - x`: one block sequence per dash
    assert parse("- " * 63 + "x\n", "t.yaml")[0].data is not None
    assert refused("- " * 64 + "x\n") == [(1, 2 * 64 + 1, DEEP)]


def test_nesting_is_counted_inside_refused_keys_and_their_values(loader):
    # The value of a duplicate key is not kept, but it is still read.
    text = "a: 1\na: " + "[" * 70 + "]" * 70 + "\n"
    assert refused(text) == [(2, 4 + (65 - 2), DEEP)]  # the value `[` at column 4 is level 2
    # A key that is a collection: `? [[[...` with the key's first `[` at level 2.
    text = "? " + "[" * 70 + "]" * 70 + "\n: 1\n"
    assert refused(text) == [(1, 3 + (65 - 2), DEEP)]


# --- aliases and anchors ------------------------------------------------------------------

ALIAS = "aliases are not allowed in mpigen files (found *{}); write the value out in full"


def test_aliases_are_refused_at_their_position(loader):
    assert refused("a: &x 1\nb: [1, *x]\n") == [(2, 8, ALIAS.format("x"))]
    assert refused("a: &anchor {c: 1}\nb:\n  c: *anchor\n") == [(3, 6, ALIAS.format("anchor"))]
    assert refused("- &k a\n- {*k : 1}\n") == [(2, 4, ALIAS.format("k"))]  # as a key
    # also in the value of a refused (duplicate) key, and in a later document
    assert refused("a: &x 1\na: [*x]\n") == [(2, 5, ALIAS.format("x"))]
    assert refused("a: &x 1\n---\nb: *x\n") == [(3, 4, ALIAS.format("x"))]


def test_anchors_alone_are_fine(loader):
    doc, = parse("a: &x 1\nb: &y {c: &z [d]}\nc: &x 2\n", "t.yaml")
    assert doc.data == {"a": 1, "b": {"c": ["d"]}, "c": 2}
    assert doc.problems == []
    # a value with an anchor is marked where its properties start
    assert at(doc.value_marks[("a",)]) == (1, 4)
    assert at(doc.value_marks[("b", "c")]) == (2, 11)
    assert at(doc.key_marks[("b", "c", 0)]) == (2, 15)


# --- marks --------------------------------------------------------------------------------

SAMPLE = """\
apiVersion: v1
metadata:
  name: demo
  labels: {team: vision, tier: "gold"}
spec:
  command: [python, train.py]
  env:
  datasets:
    - name: a
      pvc: claim
    -   name: b
        hostPath: &h /mnt
    - plain
    -
  script: |
    echo hi
  ports:
  - 80
  - "443"
"""

# (line, column) of every key (list items: where the item starts) and every value, by hand.
SAMPLE_KEYS = {
    ("apiVersion",): (1, 1),
    ("metadata",): (2, 1),
    ("metadata", "name"): (3, 3),
    ("metadata", "labels"): (4, 3),
    ("metadata", "labels", "team"): (4, 12),
    ("metadata", "labels", "tier"): (4, 26),
    ("spec",): (5, 1),
    ("spec", "command"): (6, 3),
    ("spec", "command", 0): (6, 13),
    ("spec", "command", 1): (6, 21),
    ("spec", "env"): (7, 3),
    ("spec", "datasets"): (8, 3),
    ("spec", "datasets", 0): (9, 7),          # a mapping item starts at its first key
    ("spec", "datasets", 0, "name"): (9, 7),
    ("spec", "datasets", 0, "pvc"): (10, 7),
    ("spec", "datasets", 1): (11, 9),
    ("spec", "datasets", 1, "name"): (11, 9),
    ("spec", "datasets", 1, "hostPath"): (12, 9),
    ("spec", "datasets", 2): (13, 7),
    ("spec", "datasets", 3): (14, 6),         # an empty item: just after its dash
    ("spec", "script"): (15, 3),
    ("spec", "ports"): (17, 3),
    ("spec", "ports", 0): (18, 5),
    ("spec", "ports", 1): (19, 5),
}
SAMPLE_VALUES = {
    (): (1, 1),
    ("apiVersion",): (1, 13),
    ("metadata",): (3, 3),                    # a block mapping starts at its first key
    ("metadata", "name"): (3, 9),
    ("metadata", "labels"): (4, 11),
    ("metadata", "labels", "team"): (4, 18),
    ("metadata", "labels", "tier"): (4, 32),
    ("spec",): (6, 3),
    ("spec", "command"): (6, 12),
    ("spec", "command", 0): (6, 13),
    ("spec", "command", 1): (6, 21),
    ("spec", "env"): (7, 3),                  # `env:` with nothing after it: at its key
    ("spec", "datasets"): (9, 5),
    ("spec", "datasets", 0): (9, 7),
    ("spec", "datasets", 0, "name"): (9, 13),
    ("spec", "datasets", 0, "pvc"): (10, 12),
    ("spec", "datasets", 1): (11, 9),
    ("spec", "datasets", 1, "name"): (11, 15),
    ("spec", "datasets", 1, "hostPath"): (12, 19),  # at the anchor
    ("spec", "datasets", 2): (13, 7),
    ("spec", "datasets", 3): (14, 6),
    ("spec", "script"): (15, 11),
    ("spec", "ports"): (18, 3),               # an indentless sequence starts at its dash
    ("spec", "ports", 0): (18, 5),
    ("spec", "ports", 1): (19, 5),
}


def test_marks_of_keys_values_and_list_items(loader):
    doc, = parse(SAMPLE, "s.yaml")
    assert doc.data == {
        "apiVersion": "v1",
        "metadata": {"name": "demo", "labels": {"team": "vision", "tier": "gold"}},
        "spec": {"command": ["python", "train.py"], "env": None,
                 "datasets": [{"name": "a", "pvc": "claim"}, {"name": "b", "hostPath": "/mnt"}, "plain", None],
                 "script": "echo hi\n", "ports": [80, "443"]},
    }
    assert {loc: at(m) for loc, m in doc.key_marks.items()} == SAMPLE_KEYS
    assert {loc: at(m) for loc, m in doc.value_marks.items()} == SAMPLE_VALUES
    assert {m.path for m in [*doc.key_marks.values(), *doc.value_marks.values()]} == {"s.yaml"}
    assert at(doc.start) == (1, 1) and doc.problems == [] and doc.reported == set()


def test_refused_keys_are_reported_and_their_values_not_kept(loader):
    text = textwrap.dedent("""\
        a: 1
        b:
          on: x
          <<: {c: 1}
          [l]: 2
          a: !foo y
          a: !foo z
        a: !bar [0x]
        """)
    doc, = parse(text, "t.yaml")
    assert doc.data == {"a": 1, "b": {"a": None}}
    assert [(d.mark.line, d.mark.column, d.message) for d in doc.problems] == [
        (3, 3, "b: key 'on' is read by YAML 1.1 as a boolean, not a string; quote it: \"on\""),
        (4, 3, "b: merge keys (<<) are not allowed; write the keys out in full"),
        (5, 3, "b: mapping keys must be plain strings"),
        (6, 6, "YAML tag '!foo' is not supported; remove the tag and write a plain value"),
        (7, 3, "b: duplicate key 'a' (first set at line 6, column 3); keep one"),
        (8, 1, "duplicate key 'a' (first set at line 1, column 1); keep one"),
    ]
    assert at(doc.value_marks[("a",)]) == (1, 4) and at(doc.key_marks[("b", "a")]) == (6, 3)
    assert doc.reported == {("b", "a")}
    assert ("b", "on") not in doc.key_marks and ("b", "<<") not in doc.value_marks


def test_syntax_and_character_errors_are_positioned(loader):
    (line, column, message), = refused("a: b: c\n")
    assert (line, column) == (1, 5) and message.startswith("invalid YAML: mapping values are not allowed")
    assert refused("a: b\n  c: \x01\n") == [
        (2, 6, "invalid YAML: unacceptable character #x0001: special characters are not allowed")]


# --- YAML 1.1 scalars ---------------------------------------------------------------------

TRICKY = [
    "on", "off", "On", "OFF", "yes", "No", "y", "n", "true", "False", "null", "Null", "~", "",
    "0755", "0o17", "0x1F", "-0x1f", "0b1010", "+12", "-0", "1_000", "190:20:30", "0", "00", "08", "09.5",
    "1e3", "1.0e3", "1.0e+3", "1.5", "-.5", ".5", "1.", "6.8523015e+5", "685_230.15", "190:20:30.15",
    ".inf", "-.Inf", "+.INF", ".NaN",
    "'on'", '"0755"', "'1e3'", "!!str 0755", "!!str yes", '!!int "12"', "!!int '0x10'", "!!float '1'",
    '!!bool "yes"', "!!bool 'off'", "!!null ''",
    "hello world", "-_", "+_", "._", "a:b", "http://x.y/z?q=1", "'it''s'", '"tab\\there"', '"\\u00e9t\\u00e9"',
    "é", "日本語", "0.", "1_", "_1", "1__2", "0x_1", "0b1_0",
    "|\n  two\n  lines", ">\n  folded\n  text",
]


# Where Kubernetes' reader (go-yaml v2) and PyYAML differ, mpigen reads as Kubernetes does:
# sigs.k8s.io/yaml v1.4.0 goyaml.v2/resolve.go (its fork of go-yaml v2.4.0), `resolve`.
GO_YAML = {
    # resolveMap: y/Y/n/N are booleans.
    "y": True, "n": False, "Y": True, "N": False,
    # yamlStyleFloat `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`: an exponent needs no
    # dot nor sign, a dot no digit before it, whatever the sign; ParseFloat's ErrRange is a string.
    "1e3": 1000.0, "1.0e3": 1000.0, "-2E+2": -200.0, "-.5": -0.5, "+.5": 0.5, ".5e3": 500.0, "-.5e1": -5.0,
    "1e400": "1e400",
    # "Base 60 floats are a bad idea ... purposefully unsupported here": strings, not 685230.
    "190:20:30": "190:20:30", "190:20:30.15": "190:20:30.15", "1:30": "1:30", "-1:30": "-1:30",
    # strconv.ParseInt(plain, 0, 64): Go's 0o, 0O, 0X and 0B prefixes are integers.
    "0o17": 15, "0O17": 15, "0X1F": 31, "0B101": 5,
    # ... where a leading 0 followed by 8 or 9 is no octal: yamlStyleFloat's decimal float.
    "08": 8.0, "0_9": 9.0,
    # ... ParseInt's range, then ParseUint's; beyond it, a float.
    "18446744073709551615": 18446744073709551615, "99999999999999999999": 1e20,
}


def test_scalars_read_as_yaml_safe_load_reads_them(loader):
    text = "".join(f"k{i}: {value}\n".replace("\n  ", "\n    ") for i, value in enumerate(TRICKY))
    expected = yaml.safe_load(text)
    for i, value in enumerate(TRICKY):
        if value in GO_YAML:
            expected[f"k{i}"] = GO_YAML[value]
    doc, = parse(text, "t.yaml")
    assert doc.problems == []
    assert list(doc.data) == list(expected)
    for key, want in expected.items():
        got = doc.data[key]
        if isinstance(want, float) and math.isnan(want):
            assert isinstance(got, float) and math.isnan(got), key
        else:
            assert (type(got), got) == (type(want), want), (key, TRICKY[int(key[1:])])


def test_kubernetes_scalars_that_pyyaml_reads_as_strings(loader):
    doc, = parse("".join(f"k{i}: {v}\n" for i, v in enumerate(GO_YAML)), "t.yaml")
    assert list(doc.data.values()) == list(GO_YAML.values())
    assert all(type(got) is type(want) for got, want in zip(doc.data.values(), GO_YAML.values()))


def test_timestamps_stay_the_strings_they_are_written_as(loader):
    text = "a: 2001-12-14\nb: 2001-12-14t21:59:43.10-05:00\nc: !!timestamp 2002-12-14\n"
    assert yaml.safe_load(text)["a"] != "2001-12-14"  # PyYAML makes dates of them
    assert parse(text, "t.yaml")[0].data == {"a": "2001-12-14", "b": "2001-12-14t21:59:43.10-05:00",
                                             "c": "2002-12-14"}


def test_numbers_that_cannot_be_read_are_positioned_problems(loader):
    """A tag that asks for a number the text is not. Plain, `0b_` and a number beyond float64
    are the strings go-yaml reads (resolve.go: no digit after 0b; ParseFloat's ErrRange)."""
    doc, = parse("a: 0b_\nb: !!int ''\nc: 1" + "0" * 5000 + "\nd: !!float x\n", "t.yaml")
    assert doc.data == {"a": "0b_", "b": None, "c": "1" + "0" * 5000, "d": None}
    assert [(d.mark.line, d.mark.column) for d in doc.problems] == [(2, 4), (4, 4)]
    assert [d.message for d in doc.problems] == ["cannot read number ''", "cannot read number 'x'"]
    assert doc.reported == {("b",), ("d",)}


# --- C and pure-Python parsers agree --------------------------------------------------------

def corpus() -> list[tuple[str, str]]:
    texts = [(p.name, p.read_text()) for p in sorted(BLUEPRINTS.glob("*.yaml"))]
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for i, block in enumerate(re.findall(r"```yaml\n(.*?)```", doc.read_text(), re.S)):
            texts.append((f"{doc.name}#{i}", block))
    texts.append(("sample", SAMPLE))
    texts.append(("problems", "a: 1\na: 2\n1: x\nb: [!x y, 0b_, on, 2001-01-01]\n---\n---\n- [a, {b: }]\n"))
    return texts


@pytest.mark.skipif(not hasattr(yaml, "CSafeLoader"), reason="PyYAML is built without libyaml")
def test_pure_python_fallback_gives_the_same_documents(monkeypatch):
    texts = corpus()
    assert len([name for name, _ in texts if name.endswith(".yaml")]) >= 4
    c_docs = [parse(text, name) for name, text in texts]
    monkeypatch.delattr(yaml, "CSafeLoader")
    pure_docs = [parse(text, name) for name, text in texts]
    for (name, _), c, pure in zip(texts, c_docs, pure_docs):
        assert c == pure, name  # data, start, key_marks, value_marks, problems, reported
        assert c and all(d.key_marks and d.value_marks for d in c if isinstance(d.data, (dict, list)) and d.data)


@pytest.mark.skipif(not hasattr(yaml, "CSafeLoader"), reason="PyYAML is built without libyaml")
def test_libyaml_is_used_when_available(monkeypatch):
    made = []

    class Recording(yaml.CSafeLoader):
        def __init__(self, stream):
            made.append(stream)
            super().__init__(stream)

    monkeypatch.setattr(yaml, "CSafeLoader", Recording)
    parse("a: 1\n", "t.yaml")
    assert made == ["a: 1\n"]
