"""The renames of an in-place write are not cut short by interrupt, terminate or hang-up: a
signal sent while they go on is handled once DIR holds the complete new state and the stage
is gone."""

from __future__ import annotations

import signal
import threading

import pytest

from mpigen.output import in_place as module
from mpigen.output.index import INDEX
from mpigen.output.tree import Tree


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_during_the_renames_is_handled_after_them(tmp_path, monkeypatch, signum):
    out = tmp_path / "out"
    out.mkdir()
    for name, text in (("a.yaml", "old a\n"), ("b.yaml", "old b\n"), (INDEX, "old index\n")):
        (out / name).write_text(text)
    seen = []

    def handler(number, frame):
        seen.append(sorted((p.name, p.read_text()) for p in out.iterdir()))

    previous = signal.signal(signum, handler)
    rename_in = module._rename_in

    def signalled(*args):
        # In the middle of the write, to this thread: a signal to the process (os.kill) may reach
        # another thread of a test process (pytest-xdist's worker has one), which the write's
        # mask, like mpigen's single thread's, does not cover.
        signal.pthread_kill(threading.get_ident(), signum)
        rename_in(*args)

    monkeypatch.setattr(module, "_rename_in", signalled)
    try:
        module.in_place(out, Tree.scan(out), {"a.yaml": b"new a\n", INDEX: b"new index\n"}, {}, ["b.yaml"])
    finally:
        signal.signal(signum, previous)
    assert seen == [[(INDEX, "new index\n"), ("a.yaml", "new a\n")]]
