"""A kustomization.yaml kept in the cache is the text the emitter makes of exactly its list of
paths: on the run that stores it, on the runs that find it, for any paths, and when the entry
is damaged."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.properties import examples

from mpigen.cache import kustomizations as kept
from mpigen.cache.kustomizations import kustomizations
from mpigen.cache.store import FORMAT
from mpigen.emit.layout import kustomization_text

PATHS = st.lists(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20), max_size=8)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(PATHS, min_size=1, max_size=4))
def test_a_kept_text_is_the_emitters_for_its_list(tmp_path_factory, lists):
    cache = tmp_path_factory.mktemp("cache")
    storing = kustomizations(cache, large=0)
    assert [storing(paths) for paths in lists] == [kustomization_text(paths) for paths in lists]
    finding = kustomizations(cache, large=0)  # another run: every text from the cache, none emitted
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kept, "kustomization_text", _not_emitted)
        found = [finding(paths) for paths in reversed(lists)]
    assert found == [kustomization_text(paths) for paths in reversed(lists)]


def _not_emitted(paths):
    raise AssertionError("emitted again")


def test_a_large_list_is_stored_and_a_damaged_entry_ignored(tmp_path):
    paths = [f"team-{i % 7}/job-{i:05d}-launcher.yaml" for i in range(1500)]
    assert kustomizations(tmp_path)(paths) == kustomization_text(paths)
    stored = [p for p in (tmp_path / FORMAT).rglob("*") if p.is_file() and p.parent.name != FORMAT]
    entries = [p for p in stored if len(p.name) == 64]
    assert len(entries) == 1
    assert kustomizations(tmp_path)(paths[:-1]) == kustomization_text(paths[:-1])  # one path less: its own text
    data = entries[0].read_bytes()
    entries[0].write_bytes(data[:-5] + b"XXXXX")
    assert kustomizations(tmp_path)(paths) == kustomization_text(paths)


def test_short_lists_and_no_cache_are_not_stored(tmp_path):
    paths = ["default/job-a.yaml", "default/job-b.yaml"]
    assert kustomizations(tmp_path)(paths) == kustomization_text(paths)
    assert kustomizations(None)(paths) == kustomization_text(paths)
    assert not (tmp_path / FORMAT).exists()
