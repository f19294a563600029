"""What a cache key holds: a change to any byte of mpigen's package, to a file's bytes, path or
way of being named, or to a run's settings, gives another key."""

from __future__ import annotations

from mpigen.cache import fingerprint
from mpigen.cache.fingerprint import context, file_key


def test_a_changed_file_of_the_package_is_another_build(tmp_path, monkeypatch):
    """A package of a module and a template (as mpigen's own holds), not a copy of mpigen's."""
    package = tmp_path / "mpigen"
    (package / "render" / "templates").mkdir(parents=True)
    (package / "__init__.py").write_text('"""The package."""\n')
    template = package / "render" / "templates" / "job.yaml.j2"
    template.write_text("kind: {{ kind }}\n")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "x.pyc").write_bytes(b"compiled")
    monkeypatch.setattr(fingerprint, "_PACKAGE", package)
    first = fingerprint.build.__wrapped__()
    assert fingerprint.build.__wrapped__() == first
    (package / "__pycache__" / "x.pyc").write_bytes(b"compiled again")  # not the package's code
    assert fingerprint.build.__wrapped__() == first
    template.write_bytes(template.read_bytes() + b" ")
    assert fingerprint.build.__wrapped__() != first


def test_every_part_of_a_file_key_counts():
    base = context("settings")
    keys = {file_key(base, "bp/a.yaml", False, b"x: 1\n"), file_key(base, "bp/a.yaml", True, b"x: 1\n"),
            file_key(base, "bp/b.yaml", False, b"x: 1\n"), file_key(base, "bp/a.yaml", False, b"x: 2\n"),
            file_key(context("other settings"), "bp/a.yaml", False, b"x: 1\n"),
            file_key(context("settings", ""), "bp/a.yaml", False, b"x: 1\n")}
    assert len(keys) == 6
