"""What a store writes and prunes in its cache folder (mpigen.cache.store): folders private to
the user, entries read only when the user wrote them, and of what no run has used for a
week, only what mpigen makes there: every other file, every link and what it points at,
stays byte for byte."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from mpigen.cache.folder import judged
from mpigen.cache.store import FORMAT, EntryStore
from tests.support.cache_entries import BUILD, KEY, aged, entry

def files(root: Path) -> dict[str, bytes | str]:
    """Every file's bytes and every link's target under `root`."""
    return {p.relative_to(root).as_posix(): os.readlink(p) if p.is_symlink() else p.read_bytes()
            for p in root.rglob("*") if p.is_symlink() or p.is_file()}


def test_the_folders_made_are_private(tmp_path):
    cache = judged(tmp_path / "cache").folder
    store = EntryStore(cache, BUILD, frozenset())
    store.put(KEY, "a value")
    for folder in (cache / FORMAT, cache / FORMAT / BUILD, cache / FORMAT / BUILD / KEY.hex()[:2]):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert EntryStore(cache, BUILD, frozenset()).get(KEY) == "a value"


def test_only_what_mpigen_makes_is_pruned(tmp_path):
    cache = judged(tmp_path / "cache").folder
    gone = [cache / "v1", cache / FORMAT / "0123456789abcdef", cache / "v5"]
    entry(gone[0] / "0123456789abcdef")
    entry(gone[1])
    entry(gone[2] / "fedcba9876543210")
    (gone[2] / "fedcba9876543210" / "ab" / ".new-abcd_123").write_bytes(b"half an entry")
    kept = [cache / "v3", cache / FORMAT / "1111111111111111", cache / "vx", cache / "v1-old", cache / "v4",
            cache / FORMAT / "2222222222222222", cache / FORMAT / "3333333333333333", cache / "v6"]
    entry(kept[0] / "0123456789abcdef")
    (kept[0] / "README").write_text("the user's notes")  # beside entries: the whole folder stays
    entry(kept[1])
    (kept[1] / "ab" / "notes.txt").write_text("the user's notes")
    entry(kept[2])
    entry(kept[3])
    entry(tmp_path / "elsewhere" / "0123456789abcdef")
    kept[4].symlink_to(tmp_path / "elsewhere")  # a link of mpigen's name: neither removed nor followed
    (cache / FORMAT / "2222222222222222").symlink_to(tmp_path / "elsewhere" / "0123456789abcdef")
    entry(kept[6]).parent.joinpath("deeper").mkdir()  # a folder mpigen never makes there
    entry(kept[7] / "0123456789abcdef" / "ab")  # deeper than mpigen makes its folders
    recent = entry(cache / FORMAT / "4444444444444444")
    aged(*gone, *kept)
    before = {**files(cache), **{f"elsewhere/{k}": v for k, v in files(tmp_path / "elsewhere").items()}}
    EntryStore(cache, BUILD, frozenset()).put(KEY, "a value")
    assert not any(path.exists() for path in gone)
    assert all(path.is_symlink() or path.exists() for path in kept) and recent.exists()
    after = {**files(cache), **{f"elsewhere/{k}": v for k, v in files(tmp_path / "elsewhere").items()}}
    assert {path: data for path, data in before.items() if not path.startswith(("v1/", f"{FORMAT}/0123", "v5/"))} \
        == {path: data for path, data in after.items() if not path.startswith(f"{FORMAT}/{BUILD}/")}
