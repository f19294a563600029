"""The index is read with one look at all its entries at once (index._all_safe) where every
entry is plainly safe, and entry by entry otherwise (_checked, which says which entry is
not): the two agree on every index, and the index is written as json.dumps writes it."""

from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st
from tests.support.properties import examples

from mpigen.output.index import _ABOUT, _all_safe, _checked, index_bytes

paths = st.text(alphabet=st.sampled_from("ab./\\\n\x00\u2028é\""), max_size=6)
digests = st.sampled_from(["0" * 64, "f" * 64, "0" * 63, "0" * 64 + "\n" + "1" * 64, "", "X" * 64])


@settings(max_examples=examples(2000))
@given(st.dictionaries(paths, digests, max_size=4))
def test_all_at_once_is_entry_by_entry(files):
    if files:
        assert _all_safe(files) == (_checked(files.items()).distrust is None)


@settings(max_examples=examples(500))
@given(st.dictionaries(paths, st.sampled_from(["0" * 64, "f" * 64]), max_size=4))
def test_the_index_is_what_json_writes(files):
    document = {"about": _ABOUT, "files": files, "mpigenIndex": 1}
    assert index_bytes(files) == (json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
