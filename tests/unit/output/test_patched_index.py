"""An index patched in place (the digests of a few files replaced) is the index of the patched
entries, byte for byte, as index_bytes writes it and parse_index reads it back; an entry it
cannot find once, as written, gives None (the caller then writes the whole index)."""

from __future__ import annotations

import hashlib

from hypothesis import given, strategies as st

from mpigen.output.index import index_bytes, parse_index, patched_index

segment = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="/\\"),
                  min_size=1, max_size=8).filter(lambda s: s not in (".", ".."))
path = st.lists(segment, min_size=1, max_size=3).map("/".join)
hexdigest = st.binary(min_size=1, max_size=8).map(lambda b: hashlib.sha256(b).hexdigest())


@given(entries=st.dictionaries(path, hexdigest, min_size=1, max_size=30), data=st.data())
def test_a_patched_index_is_the_index_of_the_patched_entries(entries, data):
    changed = data.draw(st.lists(st.sampled_from(sorted(entries)), unique=True, max_size=5))
    new = {p: data.draw(hexdigest) for p in changed}
    patched = patched_index(index_bytes(entries), {p: (entries[p], new[p]) for p in changed})
    assert patched == index_bytes({**entries, **new})
    assert parse_index(patched).entries == {**entries, **new}


def test_an_entry_not_in_the_index_as_written_gives_none():
    entries = {"team-a/job-a.yaml": "a" * 64, "b/team-a/job-a.yaml": "a" * 64}
    data = index_bytes(entries)
    assert patched_index(data, {"team-a/job-a.yaml": ("c" * 64, "d" * 64)}) is None  # another digest
    assert patched_index(data, {"team-b/job-a.yaml": ("a" * 64, "d" * 64)}) is None  # another path
    # A path that ends another path is told apart from it.
    assert parse_index(patched_index(data, {"team-a/job-a.yaml": ("a" * 64, "d" * 64)})).entries == \
        {"team-a/job-a.yaml": "d" * 64, "b/team-a/job-a.yaml": "a" * 64}
