"""The pool of worker processes (mpigen.pipeline.pool): a run of fewer renders than its
threshold stays in this process. The workers themselves (forked processes, a killed one, the
work raising) are tests/acceptance/test_process_pool.py."""

from __future__ import annotations

import os

import pytest

from mpigen.pipeline import pool

FILES = list(range(1000))


@pytest.fixture(autouse=True)
def parallel(monkeypatch):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: the pool works serially whatever the size")
    monkeypatch.delenv("MPIGEN_PROCESSES", raising=False)
    monkeypatch.setattr(pool, "MAX_SLICE", 7)


def test_a_small_run_stays_in_this_process():
    parent = os.getpid()
    assert list(pool.computed(FILES[:10], lambda part: [os.getpid() == parent for _ in part], 10)) == [True] * 10
