"""The constrained values the formats are made of (mpigen.formats.types), against the rules of
Kubernetes they stand for: label keys and values as apimachinery validates them (the patterns of
tests/support/kubernetes_names.py, copied from k8s.io/apimachinery), and quantities as
pkg/api/resource/quantity.go parses them (an integer exponent; at most 2^63-1) and resource
requests must be (not negative)."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from mpigen.formats.types import EnvName, LabelKey, LabelValue, Quantity, RunName
from tests.support.kubernetes_names import LABEL_VALUE, QUALIFIED_NAME


def accepts(kind, value) -> bool:
    try:
        TypeAdapter(kind).validate_python(value)
    except ValidationError:
        return False
    return True


LABEL_VALUES = ["", "a", "vision", "v1.2_b-3", "A" * 63, "A" * 64, "-a", "a-", "a b", "a/b", "ü", "_a", "a.", "1"]


@pytest.mark.parametrize("value", LABEL_VALUES)
def test_a_label_value_is_what_apimachinery_accepts(value):
    assert accepts(LabelValue, value) == (len(value) <= 63 and LABEL_VALUE.fullmatch(value) is not None)


# The lengths of the parts (k8s.io/apimachinery pkg/util/validation/validation.go
# IsQualifiedName: a name part of at most 63 characters, a prefix of at most 253) are checked
# beside the pattern, which says nothing of them.
PREFIX_OF_253 = ("a" * 63 + ".") * 3 + "a" * 61
LABEL_KEYS = ["team", "app.kubernetes.io/name", "example.com/a_b.c", "Example.com/x", "/x", "a/", "a/b/c",
              "-team", "team-", "x" * 63, "a.b/" + "x" * 63, "x" * 64, "a.b/" + "x" * 64,
              PREFIX_OF_253 + "/x", PREFIX_OF_253 + "a/x"]


@pytest.mark.parametrize("key", LABEL_KEYS)
def test_a_label_key_is_a_qualified_name(key):
    """An optional DNS-1123 subdomain prefix and '/', then a name of at most 63 characters."""
    prefix, _, name = key.rpartition("/")
    expected = QUALIFIED_NAME.fullmatch(key) is not None and len(name) <= 63 and len(prefix) <= 253
    assert accepts(LabelKey, key) == expected


@pytest.mark.parametrize("key, part", [("x" * 64, "name part"), ("a.b/" + "x" * 64, "name part"),
                                       (PREFIX_OF_253 + "a/x", "prefix")])
def test_a_label_key_too_long_is_named_with_the_part_that_is(key, part):
    with pytest.raises(ValidationError) as raised:
        TypeAdapter(LabelKey).validate_python(key)
    message = raised.value.errors()[0]["msg"]
    assert repr(key) in message and f"its {part}" in message and "at most" in message


@pytest.mark.parametrize("value, valid", [
    ("16", True), (16, True), ("500m", True), ("64Gi", True), ("1.5", True), (1.5, True), (".5", True),
    ("1e3", True), ("1E-3", True), ("7Ei", True), ("9223372036854775807", True),
    ("1GB", False), ("64 Gi", False), ("1gi", False), ("-1", False), (-1, False), ("1e1.5", False),
    ("8Ei", False), ("9223372036854775808", False), ("", False), ("m", False),
])
def test_a_quantity_is_one_kubernetes_can_hold(value, valid):
    assert accepts(Quantity, value) == valid


@pytest.mark.parametrize("value, valid", [("NCCL_DEBUG", True), ("_x", True), ("a1", True), ("1a", False),
                                          ("A-B", False), ("A.B", False), ("", False), ("A B", False)])
def test_an_environment_variable_name_is_one_every_shell_takes(value, valid):
    """POSIX (XBD 8.1): letters, digits and '_', not starting with a digit."""
    assert accepts(EnvName, value) == valid


@pytest.mark.parametrize("value, valid", [("r1", True), (7, True), ("A.b_c-1", True), ("", False), ("a" * 64, False),
                                          (True, False), ("-r", False)])
def test_a_run_name_is_a_label_value_it_is_written_into(value, valid):
    """The run becomes the value of the label mpigen.dev/run: a non-empty label value."""
    assert accepts(RunName, value) == valid
