"""The cache's entries (mpigen.cache.store) of another user, as root (chown): never read, and a
folder holding one never pruned. The cases of tests/unit/cache/test_store.py that need root."""

from __future__ import annotations

import os
from pathlib import Path

from mpigen.cache.folder import judged
from mpigen.cache.store import FORMAT, EntryStore
from tests.support.cache_entries import BUILD, KEY, aged, entry
from tests.support.output_machine import NOBODY, need_root

def test_an_entry_of_another_user_is_not_read(tmp_path):
    need_root()
    cache = judged(tmp_path / "cache").folder
    EntryStore(cache, BUILD, frozenset()).put(KEY, "a value")
    os.chown(cache / FORMAT / BUILD / KEY.hex()[:2] / KEY.hex(), NOBODY, NOBODY)
    assert EntryStore(cache, BUILD, frozenset()).get(KEY) is None


def test_a_folder_holding_an_entry_of_another_user_is_not_pruned(tmp_path):
    need_root()
    cache = judged(tmp_path / "cache").folder
    planted = entry(cache / FORMAT / "0123456789abcdef")
    os.chown(planted, NOBODY, NOBODY)
    aged(cache / FORMAT / "0123456789abcdef")
    EntryStore(cache, BUILD, frozenset()).put(KEY, "a value")
    assert planted.read_bytes() == b"an entry of another build"
