"""The pool of worker processes (mpigen.pipeline.pool): a run of fewer renders than its
threshold stays in this process. The workers themselves (forked processes, a killed one, the
work raising) are tests/acceptance/test_process_pool.py."""

from __future__ import annotations

import gc
import os

import pytest

from mpigen.pipeline import pool

FILES = list(range(1000))


# The pool as on a machine of several cores, in slices of 7 (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("pool_of_small_slices")


def test_a_small_run_stays_in_this_process():
    parent = os.getpid()
    assert list(pool.computed(FILES[:10], lambda part: [os.getpid() == parent for _ in part], 10)) == [True] * 10


def test_what_the_process_holds_when_a_run_starts_is_left_out_of_the_collector_rounds():
    held = {"settings": ["of the run"]}  # alive before the run, which the collector tracks
    in_rounds = lambda part: [any(obj is held for obj in gc.get_objects()) for _ in part]  # noqa: E731
    try:
        assert list(pool.computed(FILES[:2], in_rounds, 2)) == [False, False]  # frozen: in no generation
    finally:
        gc.unfreeze()


def test_the_youngest_generation_is_collected_less_often_while_the_work_lasts():
    before = gc.get_threshold()
    try:
        during = list(pool.computed(FILES[:2], lambda part: [gc.get_threshold()[0] for _ in part], 2))
    finally:
        gc.unfreeze()
    assert during == [max(pool.YOUNG, before[0])] * 2 and pool.YOUNG > 700
    assert gc.get_threshold() == before
