"""The property tests' profile (tests/support/properties.py) is the one this process runs with,
on every pytest-xdist worker too (each worker loads tests/conftest.py, which loads it): fixed
examples, no example database, unless MPIGEN_PROPERTY_RUN=long asks for fresh ones."""

from __future__ import annotations

from hypothesis import settings

from tests.support.properties import LONG


def test_the_profile_of_this_process_is_the_suite_s():
    assert settings.default.database is None
    assert settings.default.derandomize is not LONG
