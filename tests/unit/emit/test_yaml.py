"""The emitter, checked by reading its output back with two independent YAML readers:
PyYAML (YAML 1.1, as kubectl and go-yaml read manifests) and ruamel.yaml (YAML 1.2)."""

from __future__ import annotations

import io

import pytest
import yaml as pyyaml
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.properties import examples
from ruamel.yaml import YAML

from mpigen.emit.install_order import INSTALL_ORDER, sort_objects
from mpigen.emit.yaml import dump_object, dump_stream


def read_11(text: str):
    return list(pyyaml.safe_load_all(text))


def read_12(text: str):
    return list(YAML(typ="safe", pure=True).load_all(io.StringIO(text)))


TRICKY = [
    "yes", "no", "on", "off", "y", "n", "true", "False", "NULL", "~", "", " ", "0755", "0x1F", "1e3", "1_000",
    "1:20", "1.5", ".5", "+1", "-1", ".inf", "-.Inf", ".NaN", "inf", "nan", "2001-12-14", "2001-12-14 21:59:43.10",
    "<<", "=", "-", "--", "---", "...", "- x", "-np", "--mca", "^openib", "a: b", "a #b", "a:", "#x", "&a", "*a",
    "!tag", "|", ">", "'q'", '"q"', "%x", "@x", "`x", "?x", ":x", "[a]", "{a}", "a,b", "tab\there", "new\nline",
    "trail\n", "two\n\n", "\nlead", " lead", "trail ", "x\x7fy", "\x85", "caf\u00e9", "\u2028", "emoji \U0001F600",
    "0b101", "0o17", "Infinity", "0x1p-2", "9" * 400, "100m", "64Gi", "365d", "/etc/mpi/kubexec.sh",
    "nvidia.com/gpu", "$(VAR)", "${POD_NAME%${POD_NAME#?}}", "a\\b", "line1\nline2 ", "\tx\ny",
]


@pytest.mark.parametrize("value", TRICKY)
def test_strings_read_back_as_the_same_string(value):
    text = dump_object({"v": value, "l": [value], value or "k": "x"})
    assert read_11(text) == [{"v": value, "l": [value], value or "k": "x"}]
    assert read_12(text) == [{"v": value, "l": [value], value or "k": "x"}]


json_leaf = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**62), max_value=2**62),
                      st.text(max_size=30))
json_data = st.recursive(
    json_leaf,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(max_size=12), children,
                                                                                max_size=4)),
    max_leaves=25,
)


@settings(max_examples=examples(300), deadline=None)
@given(st.dictionaries(st.text(max_size=12), json_data, max_size=5))
def test_any_json_object_round_trips(obj):
    text = dump_object(obj)
    assert read_11(text) == [obj]
    assert read_12(text) == [obj]
    assert text.startswith("---\n") and text.endswith("\n") and "\r" not in text


def test_style_block_two_space_no_aliases():
    shared = {"a": 1}
    text = dump_object({"apiVersion": "v1", "kind": "X", "metadata": {"namespace": "ns", "name": "x"},
                        "spec": {"one": shared, "two": shared, "list": [shared, {"name": "b", "a": []}]}})
    assert "&" not in text and "*" not in text
    assert text == (
        "---\napiVersion: v1\nkind: X\nmetadata:\n  name: x\n  namespace: ns\nspec:\n"
        "  list:\n  - a: 1\n  - name: b\n    a: []\n  one:\n    a: 1\n  two:\n    a: 1\n")


def test_scripts_are_literal_blocks():
    text = dump_object({"data": {"hostfile": "a slots=1\nb slots=1\n", "kubexec.sh": "#!/bin/sh\nset -x"}})
    assert "hostfile: |\n    a slots=1\n    b slots=1\n" in text
    assert "kubexec.sh: |-\n    #!/bin/sh\n    set -x\n" in text


def test_comment_line_after_document_start():
    assert dump_stream([({"a": 1}, "Source: x.yaml"), ({"b": 2}, None)]) == "---\n# Source: x.yaml\na: 1\n---\nb: 2\n"


def test_install_order_then_namespace_then_name():
    objs = [{"kind": k, "metadata": {"namespace": ns, "name": n}} for k, ns, n in [
        ("Job", "a", "x"), ("PodGroup", "a", "x"), ("ConfigMap", "b", "a"), ("ConfigMap", "a", "z"),
        ("ServiceAccount", "z", "z"), ("MPIJob", "a", "a"), ("StatefulSet", "a", "a"), ("Role", "a", "a"),
        ("RoleBinding", "a", "a"), ("CustomResourceDefinition", "", "c")]]
    order = [(o["kind"], o["metadata"]["namespace"], o["metadata"]["name"]) for o in sort_objects(objs)]
    assert order == [("ServiceAccount", "z", "z"), ("ConfigMap", "a", "z"), ("ConfigMap", "b", "a"),
                     ("CustomResourceDefinition", "", "c"), ("Role", "a", "a"), ("RoleBinding", "a", "a"),
                     ("StatefulSet", "a", "a"), ("Job", "a", "x"), ("MPIJob", "a", "a"), ("PodGroup", "a", "x")]
    assert INSTALL_ORDER.index("ServiceAccount") < INSTALL_ORDER.index("ConfigMap") < INSTALL_ORDER.index("Role")


def test_floats_are_refused():
    with pytest.raises(TypeError):
        dump_object({"cpu": 0.5})
