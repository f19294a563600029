"""The pool of worker processes (mpigen.pipeline.pool): what each file gives comes back in input
order, as a serial run gives it, also when a worker is killed (as the kernel's out-of-memory
killer does) or the work raises; the work reaches the workers as a parameter, unpickled. The
workers are real forked processes; that a small run stays in this process is
tests/unit/pipeline/test_pool.py."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from mpigen.pipeline import pool

FILES = list(range(1000))


# The pool as on a machine of several cores, in slices of 7 (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("pool_of_small_slices")


def test_results_come_in_input_order_from_other_processes():
    parent = os.getpid()
    lock = threading.Lock()  # unpicklable: the work is never pickled, only forked
    done = list(pool.computed(FILES, lambda part: [(f, os.getpid() != parent, lock is not None) for f in part],
                              pool.PARALLEL_THRESHOLD))
    assert [f for f, _, _ in done] == FILES
    assert all(in_worker for _, in_worker, _ in done)


def test_a_killed_worker_loses_no_slice_and_hangs_nothing():
    parent = os.getpid()

    def work(part: list[int]) -> list[int]:
        if os.getpid() != parent and 500 in part:
            os.kill(os.getpid(), signal.SIGKILL)
        return [f * 2 for f in part]

    assert list(pool.computed(FILES, work, pool.PARALLEL_THRESHOLD)) == [f * 2 for f in FILES]


def test_what_the_work_raises_is_raised_in_the_caller():
    def work(part: list[int]) -> list[int]:
        if 500 in part:
            raise ValueError("file 500")
        return part

    with pytest.raises(ValueError, match="file 500"):
        list(pool.computed(FILES, work, pool.PARALLEL_THRESHOLD))
