"""What a store writes in its cache folder (mpigen.cache.store): folders private to the user,
and entries read only when the user wrote them."""

from __future__ import annotations

import os
import stat

from mpigen.cache.folder import judged
from mpigen.cache.store import FORMAT, Store
from tests.support.output_machine import NOBODY, need_root

BUILD = "00112233445566aa"
KEY = bytes(range(32))


def test_the_folders_made_are_private_and_an_entry_of_another_user_is_not_read(tmp_path):
    cache = judged(tmp_path / "cache").folder
    store = Store(cache, BUILD, frozenset())
    store.put(KEY, "a value")
    for folder in (cache / FORMAT, cache / FORMAT / BUILD, cache / FORMAT / BUILD / KEY.hex()[:2]):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert Store(cache, BUILD, frozenset()).get(KEY) == "a value"
    need_root()
    os.chown(cache / FORMAT / BUILD / KEY.hex()[:2] / KEY.hex(), NOBODY, NOBODY)
    assert Store(cache, BUILD, frozenset()).get(KEY) is None
