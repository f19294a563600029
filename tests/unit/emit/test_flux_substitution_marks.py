"""Which objects carry `kustomize.toolkit.fluxcd.io/substitute: disabled`: exactly those whose
keys or strings Flux's envsubst would read (`${` or `$$`, fluxcd/pkg envsubst v1.7.0
parse/scan.go), found in the object's JSON (mpigen.emit.flux_substitution). Held here against
the port of envsubst in tests/support/flux_substitution.py, on values rich in the characters
JSON escapes or writes around strings; and the same objects annotated when a run writes their
documents, which it reads in the document first."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mpigen.emit.flux_substitution import holds_substitution, kept_document, kept_from_substitution
from mpigen.emit.yaml import dump_object
from tests.support.flux_substitution import NotPorted, SubstitutionFailed, substitute
from tests.support.properties import examples

TEXT = st.text(alphabet=st.sampled_from('${}"\\:,[] a\n\u00e9'), max_size=8)
JSON = st.recursive(st.none() | st.booleans() | st.integers() | TEXT,
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                    max_leaves=12)


def _read_by_envsubst(text: str) -> bool:
    """Whether envsubst, with every variable set, changes or refuses the text."""
    try:
        return substitute(text, lambda name: ("value", True)) != text
    except (SubstitutionFailed, NotPorted):
        return True


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


@settings(max_examples=examples(400))
@given(JSON)
@example({"a$": "{b"})  # a mark split across a key and its value
@example(["$", "{"])  # ... across two items
@example({"k": '$"{'})  # ... around an escaped quote
@example({"$$": 1})  # a key alone
def test_an_object_is_kept_from_substitution_when_envsubst_would_read_a_string_of_it(value):
    assert holds_substitution(value) == any(_read_by_envsubst(s) for s in _strings(value))


@settings(max_examples=examples(400))
@given(st.dictionaries(TEXT, JSON, min_size=1, max_size=4), st.sampled_from(["", "from a/b.yaml", "x $${y}"]))
@example({"metadata": {"name": "a"}, "data": {"run.sh": "echo ${OMPI_COMM_WORLD_RANK}\n"}}, "")
@example({"metadata": {"name": "a"}, "data": {"k": "$\n{"}}, "")  # side by side in no string
def test_a_document_is_written_as_the_object_kept_from_substitution(obj, comment):
    obj.setdefault("metadata", {})
    if not isinstance(obj["metadata"], dict):
        obj["metadata"] = {}
    assert kept_document(obj, comment) == dump_object(kept_from_substitution(obj), comment)
