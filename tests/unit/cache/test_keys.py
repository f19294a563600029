"""What a cache key holds: a change to any byte of mpigen's package, to a file's bytes, path or
way of being named, or to a run's settings, gives another key."""

from __future__ import annotations

import shutil
from pathlib import Path

from mpigen.cache import fingerprint
from mpigen.cache.fingerprint import context, file_key


def test_a_changed_file_of_the_package_is_another_build(tmp_path, monkeypatch):
    package = tmp_path / "mpigen"
    shutil.copytree(Path(fingerprint.__file__).parent.parent, package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(fingerprint, "_PACKAGE", package)
    first = fingerprint.build.__wrapped__()
    assert fingerprint.build.__wrapped__() == first
    template = next(package.rglob("*.j2"))
    template.write_bytes(template.read_bytes() + b" ")
    assert fingerprint.build.__wrapped__() != first


def test_every_part_of_a_file_key_counts():
    base = context("settings")
    keys = {file_key(base, "bp/a.yaml", False, b"x: 1\n"), file_key(base, "bp/a.yaml", True, b"x: 1\n"),
            file_key(base, "bp/b.yaml", False, b"x: 1\n"), file_key(base, "bp/a.yaml", False, b"x: 2\n"),
            file_key(context("other settings"), "bp/a.yaml", False, b"x: 1\n"),
            file_key(context("settings", ""), "bp/a.yaml", False, b"x: 1\n")}
    assert len(keys) == 6
