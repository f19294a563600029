"""An object's compact JSON takes at most JSON_BYTES_PER_BYTE bytes per byte of the document
mpigen writes of it, so that the size checks read the document's size instead of encoding the
object (mpigen.render.refusals.oversized): held on values made of what each format escapes or
writes differently (control characters, quotes, backslashes, line breaks, empty strings and
containers, non-ASCII and characters outside the BMP)."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mpigen.emit.yaml import JSON_BYTES_PER_BYTE, dump_object
from mpigen.kube.sizes import compact_json
from tests.support.properties import examples

TEXT = st.text(alphabet=st.sampled_from('\x00\x01\x1f\x7f"\\\'\n\t :-#a\u00e9\u2028\U0001f600'), max_size=6)
JSON = st.recursive(st.none() | st.booleans() | st.integers() | TEXT,
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                    max_leaves=16)


@settings(max_examples=examples(600))
@given(st.dictionaries(TEXT, JSON, max_size=4))
@example({"a": "\x00" * 64})  # six bytes each in JSON (\u0000), two here (\0): the bound
@example({"a": "\x01" * 8})  # six bytes each in JSON, four here (\x01)
@example({"a": '"' * 8})  # two in JSON, one in a single-quoted scalar
@example({"a": [[], {}, "", [""]]})
@example({"": {"": {"": [None]}}})
def test_the_json_of_an_object_fits_in_three_bytes_per_byte_of_its_document(obj):
    assert len(compact_json(obj).encode("utf-8")) <= JSON_BYTES_PER_BYTE * len(dump_object(obj).encode("utf-8"))
