"""The worker processes of a large run: the files the cache lacks split into contiguous slices,
each worked on by one of a set of forked processes (one per core, at most MAX_WORKERS), the
results given back in input order, so that the output is the same bytes as a serial run.

What a worker does is a function of a slice handed to the pool as a parameter: the workers are
forked, so it reaches them with everything it holds (the run's settings, the cache's memo, the
render's store) without being pickled, and nothing is kept in a module. When processes cannot
be had (no memory or threads left to start them) or one dies (killed by the kernel's
out-of-memory killer), the slices not yet given back are worked on in this process: the same
results, never a hang or a lost slice."""

from __future__ import annotations

import gc
import os
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from mpigen.render.targets import compile_shared_templates

# Below this many blueprint renders, starting processes costs more than it saves.
PARALLEL_THRESHOLD = 300
MAX_SLICE = 200  # files a worker takes at a time (and a serial run between two reports of progress)
MAX_WORKERS = 8  # as many as the render's spill has files for (mpigen.emit.spill.SLOTS)
QUEUED = 2  # slices given to a worker at a time
# New objects between two rounds of the garbage collector's youngest generation during the work
# (computed): 1,500 jobs of the bench made 450 rounds at 700, 0.07-0.1 s of their CPU; about 20
# at this, which found as many cycles.
YOUNG = 10_000

Work = Callable[[list[Any]], list[Any]]  # a slice of files -> what each gives, in order


class WorkerDied(RuntimeError):
    """A worker process ended before it gave back the slice it was working on."""


def computed(files: list[Any], work: Work, renders: int) -> Iterator[Any]:
    """What `work` gives of each file, in order, as it comes; in parallel when the files make
    `renders` renders or more (PARALLEL_THRESHOLD). A worker holds what a slice gives until
    the slice is done, so slices are at most MAX_SLICE files, whatever the size of the
    repository; the caller keeps what it needs of each file and drops the rest.

    What the process holds when the work starts (every module, class and schema it imported,
    the run's settings) lives to its end: it is left out of the garbage collector's rounds
    (gc.freeze), which otherwise walked all of it again at each full round while the files'
    results piled up, and which forked workers then share without copying its pages (as the
    gc module's documentation advises before a fork); mpigen.cache.memo does so for what it
    unpickles. Its youngest generation is collected every YOUNG new objects rather than 700 (the
    interpreter's default) while the work lasts: a file's work makes few reference cycles, and
    each round walked what a file had made so far, handing what lives on to older rounds."""
    gc.freeze()
    thresholds = gc.get_threshold()
    gc.set_threshold(max(YOUNG, thresholds[0]), *thresholds[1:])
    try:
        yield from _computed(files, work, renders)
    finally:
        gc.set_threshold(*thresholds)


def _computed(files: list[Any], work: Work, renders: int) -> Iterator[Any]:
    workers = _workers(renders)
    size = max(1, min(MAX_SLICE, -(-len(files) // (workers * 2)) if workers > 1 else len(files)))
    slices = [files[start:start + size] for start in range(0, len(files), size)]
    done = 0
    if workers > 1:
        try:
            for results in _parallel(slices, work, workers):
                yield from results
                done += 1
        except (OSError, WorkerDied):
            pass
    for part in slices[done:]:
        yield from work(part)


def _parallel(slices: list[list[Any]], work: Work, workers: int) -> Iterator[list[Any]]:
    """work(slice) of each slice in forked worker processes, results in order. Raises OSError
    when the processes cannot be started, WorkerDied when one ends before its slice is done."""
    # multiprocessing (with logging, pickle and subprocess, about 8 ms of every start) is
    # loaded only for inputs large enough to be rendered in parallel.
    import multiprocessing
    from multiprocessing.connection import wait

    compile_shared_templates()  # once, before the fork: the workers share them
    context = multiprocessing.get_context("fork")
    workers_of: dict[Any, Any] = {}  # the pipe to each worker -> the worker
    busy: dict[Any, deque[int]] = {}  # the pipe to each worker -> the slices it was given and has not given back
    given, results, wanted = 0, {}, 0
    try:
        for _ in range(min(workers, len(slices))):
            mine, theirs = context.Pipe()
            worker = context.Process(target=_serve, args=(theirs, work, slices), daemon=True)
            worker.start()
            theirs.close()
            workers_of[mine], busy[mine] = worker, deque()
        for _ in range(QUEUED):  # a worker starts its next slice while this process takes in the last
            for pipe in busy:
                given = _give(pipe, busy[pipe], given, len(slices))
        while wanted < len(slices):
            ready = set(wait([*(pipe for pipe in busy if busy[pipe]),
                              *(workers_of[pipe].sentinel for pipe in busy if busy[pipe])]))
            for pipe in [pipe for pipe in busy if pipe in ready]:
                results[busy[pipe].popleft()] = _received(pipe)
                given = _give(pipe, busy[pipe], given, len(slices))
            if any(workers_of[pipe].sentinel in ready and busy[pipe] for pipe in busy):
                raise WorkerDied("a worker process ended before its slices were done")
            while wanted in results:
                yield results.pop(wanted)
                wanted += 1
    finally:
        _stop(workers_of, busy)


def _give(pipe: Any, queued: deque[int], given: int, slices: int) -> int:
    """The next slice given to the worker at the end of `pipe` (none left: told to stop once
    it has done its own); returns the number of slices given."""
    if given < slices:
        pipe.send(given)
        queued.append(given)
        return given + 1
    if not queued:
        pipe.send(None)
    return given


def _received(pipe: Any) -> list[Any]:
    """What a worker gave back of its slice (raised again here when its work raised)."""
    try:
        failed, value = pipe.recv()
    except (EOFError, OSError):
        raise WorkerDied("a worker process ended while it gave back its slice") from None
    if failed:
        raise value
    return value


def _serve(pipe: Any, work: Work, slices: list[list[Any]]) -> None:
    """A worker: work on each slice the parent names, until it names none."""
    while (index := pipe.recv()) is not None:
        try:
            pipe.send((False, work(slices[index])))
        except Exception as exc:  # given back to the parent, which raises it
            pipe.send((True, exc))


def _stop(workers_of: dict[Any, Any], busy: dict[Any, deque[int]]) -> None:
    """Every worker ended: one still at work killed (its slice is done again in this process,
    or not needed), the others told to stop."""
    for pipe, worker in workers_of.items():
        if busy[pipe]:
            worker.kill()
            continue
        try:
            pipe.send(None)
        except OSError:
            pass
    for pipe, worker in workers_of.items():
        worker.join(5)
        if worker.is_alive():
            worker.kill()
            worker.join()
        pipe.close()


def _workers(renders: int) -> int:
    if renders < PARALLEL_THRESHOLD or os.environ.get("MPIGEN_PROCESSES") == "1":
        return 1
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_WORKERS))
