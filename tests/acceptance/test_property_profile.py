"""The property tests draw the same examples on every run (CI's included), and fresh ones only
when asked (tests/support/properties.py)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support.paths import ROOT

DRAW = """
from hypothesis import given, strategies as st
import tests.support.properties
seen = []
@given(st.integers(0, 2 ** 62))
def draw(value):
    seen.append(value)
draw()
print(seen)
"""


def drawn(**env: str) -> str:
    done = subprocess.run([sys.executable, "-c", DRAW], cwd=ROOT, env={**os.environ, **env}, capture_output=True,
                          text=True, check=True)
    return done.stdout


def test_two_runs_draw_the_same_examples():
    assert drawn(MPIGEN_PROPERTY_RUN="") == drawn(MPIGEN_PROPERTY_RUN="")


def test_a_long_run_draws_new_examples_and_more_of_them():
    fixed, long, again = drawn(MPIGEN_PROPERTY_RUN=""), drawn(MPIGEN_PROPERTY_RUN="long"), drawn(MPIGEN_PROPERTY_RUN="long")
    assert long != again and len(long.split(",")) > 5 * len(fixed.split(","))
