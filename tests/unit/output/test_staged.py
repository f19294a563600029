"""The pieces that keep a render's output folder out of memory: the index made one entry at a
time is byte for byte what json.dumps makes of it (the format mpigen.output.index documents),
and the spill gives back each document, from whichever process put it."""

from __future__ import annotations

import json
import multiprocessing

from hypothesis import given, strategies as st

from mpigen.emit.spill import Spill
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


def _put_in_child(spill: Spill, texts: list[str], refs) -> None:
    refs.extend([spill.put(f"{i}.yaml", text) for i, text in enumerate(texts)])


def test_the_spill_gives_back_what_each_process_put():
    """Two forked processes and the parent write to the spill at once; the parent reads
    every document back, whoever wrote it."""
    spill = Spill()
    context = multiprocessing.get_context("fork")
    with context.Manager() as manager:
        texts = {name: [f"---\n{name}: {i}\nnote: {'é' * i}\n" for i in range(200)] for name in ("a", "b")}
        refs = {name: manager.list() for name in texts}
        children = [context.Process(target=_put_in_child, args=(spill, texts[name], refs[name])) for name in texts]
        for child in children:
            child.start()
        mine = [spill.put("p.yaml", f"---\nparent: {i}\n") for i in range(50)]
        for child in children:
            child.join()
            assert child.exitcode == 0
        for name in texts:
            assert [spill.read("", ref).decode() for ref in refs[name]] == texts[name]
        assert [spill.read("", ref) for ref in mine] == [f"---\nparent: {i}\n".encode() for i in range(50)]
    spill.close()
