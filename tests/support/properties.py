"""How the property tests draw their examples: the same ones on every run unless asked.

By default (and so in CI) every property test is derandomized: its examples come from a seed
fixed by the test itself, and no example database carries failures from one run to the next,
so that a failure in CI is the same failure on any machine that runs the same code.

MPIGEN_PROPERTY_RUN=long draws fresh random examples, ten times as many of each test's
count (`examples(n)`), for a longer search before a release or after a change to a parser:

    MPIGEN_PROPERTY_RUN=long .venv/bin/python -m pytest -k "any_value or random" -p no:cacheprovider

A failure found that way is reported by Hypothesis with the seed it ran with, "run pytest
with --hypothesis-seed=N to reproduce this failure"; that option (with the same variable)
replays the run. Add the failing value as an example test, then fix the code.
"""

from __future__ import annotations

import os

from hypothesis import settings

LONG = os.environ.get("MPIGEN_PROPERTY_RUN", "") == "long"
LONG_FACTOR = 10

settings.register_profile("fixed", derandomize=True, database=None, print_blob=True)
settings.register_profile("long", derandomize=False, database=None, print_blob=True, max_examples=100 * LONG_FACTOR)
settings.load_profile("long" if LONG else "fixed")


def examples(count: int) -> int:
    """A test's number of examples: `count`, or LONG_FACTOR times as many in a long run."""
    return count * LONG_FACTOR if LONG else count
