"""The pieces that keep a render's output folder out of memory: the index made one entry at a
time is byte for byte what json.dumps makes of it (the format mpigen.output.index documents);
the spill's reading back from whichever process put a document is
tests/acceptance/output/test_spill_across_processes.py."""

from __future__ import annotations

import json

from hypothesis import given, strategies as st

from mpigen.output.index import VERSION, _ABOUT, index_bytes, parse_index

PATHS = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
DIGESTS = st.text("0123456789abcdef", min_size=64, max_size=64)


@given(st.dictionaries(PATHS, DIGESTS, max_size=12))
def test_the_index_is_what_json_dumps_writes(entries):
    document = {"about": _ABOUT, "files": dict(sorted(entries.items())), "mpigenIndex": VERSION}
    expected = (json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
    assert index_bytes(entries) == expected
    assert json.loads(index_bytes(entries)) == document


def test_an_index_of_safe_paths_reads_back_as_its_entries():
    entries = {"dev/team-a/job-x.yaml": "a" * 64, "kustomization.yaml": "b" * 64, "ünï/cödé.yaml": "c" * 64}
    assert parse_index(index_bytes(entries)).entries == entries
