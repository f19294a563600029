"""The progress bar of a long render or validation (tqdm): on standard error, only where it is a
terminal, shown once the run has lasted about a second and cleared when the blueprints are done,
before anything else is printed. Standard output and the files written never change.

tqdm is imported only when standard error is a terminal (the pipeline's first report of
progress), so that neither start-up nor a run in a pipe or CI pays for it."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from mpigen.project.rendered import Progress

DELAY = 1.0  # seconds of a run before its bar shows: a quick render prints nothing more


@contextmanager
def progress_bar(doing: str) -> Iterator[Progress | None]:
    """The Progress to give the facade: a bar named `doing` (`rendering`) on a terminal, None
    elsewhere. The bar is gone when the block ends, however it ends."""
    if not on_terminal():
        yield None
        return
    bar = Bar(doing)
    try:
        yield bar.update
    finally:
        bar.close()


def on_terminal() -> bool:
    """Whether standard error is a terminal that can redraw a line (TERM=dumb cannot)."""
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError, OSError):
        return False


class Bar:
    """A tqdm bar made at the first report of progress, closed (its line cleared) at the last."""

    def __init__(self, doing: str):
        self.doing = doing
        self.bar = None
        self.closed = False

    def update(self, done: int, total: int) -> None:
        if self.closed:
            return
        if done >= total:
            self.close()
            return
        if self.bar is None:
            # Deferred: only a run on a terminal loads tqdm (see the module's docstring).
            from tqdm import tqdm

            # No monitor thread: the pipeline forks its worker processes after this.
            tqdm.monitor_interval = 0
            # Every report redraws (a chunk is up to 200 files: a few reports a second at most).
            self.bar = tqdm(total=total, desc=self.doing, unit="file", delay=DELAY, leave=False, file=sys.stderr,
                            dynamic_ncols=True, mininterval=0, miniters=1)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        self.closed = True
        if self.bar is not None:
            self.bar.close()  # clears its line; writes nothing when it never showed
