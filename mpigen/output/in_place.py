"""The write in place, for a change to a small part of DIR (it touches only the files whose
bytes change), and where DIR cannot be swapped (a mount point; a parent this user may not
write into; folders this user could not recreate as they are): the changed files are
staged in a hidden folder inside DIR with a journal, then renamed in one by one, each
file replaced or removed kept as a backup, the index last (the commit). An error before
the commit puts every backup back; so does the next run after a kill (roll_back).
Interrupt, terminate and hang-up wait until the renames are done."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import signal
import tempfile
from pathlib import Path, PurePosixPath

from mpigen.output.failure import WriteFailed
from mpigen.output.files import flush, remove_empty_dirs, write_files
from mpigen.output.index import INDEX
from mpigen.output.scratch import INSIDE

JOURNAL = "journal.json"


def in_place(out: Path, tree, changed: dict[str, bytes], metas, stale: list[str]) -> None:
    """Stage the changed files inside `out`, then rename them in, the index last."""
    try:
        stage = Path(tempfile.mkdtemp(prefix=f"{INSIDE}{os.getpid()}-", dir=out))
    except OSError as exc:
        raise WriteFailed("", exc) from exc
    needed = {str(p) for rel in changed for p in PurePosixPath(rel).parents if str(p) != "."}
    journal = {"folders": sorted(needed - tree.dirs), "paths": sorted(changed), "stale": stale,
               "new": sorted(p for p in changed if p not in tree.files)}
    try:
        write_files(stage / "new", changed, metas)
        write_files(stage, {JOURNAL + ".tmp": json.dumps(journal).encode("utf-8")}, {})
        try:
            os.rename(stage / (JOURNAL + ".tmp"), stage / JOURNAL)
        except OSError as exc:
            raise WriteFailed("", exc) from exc
        flush(stage)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    with _signals_held():  # until DIR holds the new state and nothing of the stage is left
        _rename_in(out, stage, tree, journal, stale)
        shutil.rmtree(stage, ignore_errors=True)
        remove_empty_dirs(out, {str(PurePosixPath(p).parent) for p in stale})


def _rename_in(out: Path, stage: Path, tree, journal: dict, stale: list[str]) -> None:
    """The renames, the index last; on any error, every backup put back."""
    rel = ""
    try:
        for rel in journal["folders"]:
            os.mkdir(f"{out}/{rel}")
        for rel in [p for p in journal["paths"] if p != INDEX]:
            if rel in tree.files:
                _back_up(out, stage, rel, keep=True)
            os.rename(f"{stage}/new/{rel}", f"{out}/{rel}")
        for rel in stale:
            _back_up(out, stage, rel, keep=False)
        rel = INDEX
        os.rename(f"{stage}/new/{INDEX}", f"{out}/{INDEX}")
    except BaseException as exc:
        try:
            roll_back(out, stage)
        except OSError as undo:  # the next run rolls back what is left
            raise WriteFailed(rel, exc if isinstance(exc, OSError) else undo,
                              "cannot write, nor undo what was written (run mpigen again to repair it)", False) from undo
        if isinstance(exc, OSError):
            raise WriteFailed(rel, exc) from exc
        raise


@contextlib.contextmanager
def _signals_held():
    """Interrupt, terminate and hang-up held back while the files are renamed in (an instant):
    a run stopped then ends once DIR holds the complete new state. Only SIGKILL (or a power
    cut) can stop the renames half done, and the next run rolls them back (roll_back)."""
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, ValueError, OSError):  # no signal masks here, or not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _back_up(out: Path, stage: Path, rel: str, keep: bool) -> None:
    """Keep the file at `rel` as stage/old/rel: a second name for it while it stays in
    place (`keep`; where hard links are refused, moved), or moved there."""
    backup = f"{stage}/old/{rel}"
    os.makedirs(os.path.dirname(backup), exist_ok=True)
    if keep:
        try:
            os.link(f"{out}/{rel}", backup)
            return
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.EMLINK, errno.EXDEV, errno.ENOTSUP):
                raise
    os.rename(f"{out}/{rel}", backup)


def roll_back(out: Path, stage: Path) -> None:
    """Undo what the in-place write staged in `stage` did to `out`, unless it committed
    (its index is renamed in already); then remove `stage`."""
    try:
        journal = _journal(json.loads((stage / JOURNAL).read_bytes()))
    except (OSError, ValueError):
        journal = None  # not written yet: nothing was renamed
    if journal is not None and os.path.lexists(stage / "new" / INDEX):
        new = set(journal["new"])
        for rel in journal["paths"] + journal["stale"]:
            if os.path.lexists(f"{stage}/old/{rel}"):
                os.rename(f"{stage}/old/{rel}", f"{out}/{rel}")
            elif rel in new and not os.path.lexists(f"{stage}/new/{rel}"):
                Path(out, rel).unlink(missing_ok=True)
        for rel in reversed(journal["folders"]):
            with contextlib.suppress(OSError):
                os.rmdir(f"{out}/{rel}")
    shutil.rmtree(stage, ignore_errors=True)


def _journal(data) -> dict[str, list[str]] | None:
    """A journal as in_place writes it (lists of plain relative paths under four keys), or
    None: a journal of another shape, or naming a path outside DIR, is no journal of mpigen's
    and moves nothing."""
    keys = ("folders", "paths", "stale", "new")
    if not isinstance(data, dict) or not all(isinstance(data.get(key), list) for key in keys):
        return None
    for key in keys:
        for rel in data[key]:
            if not isinstance(rel, str) or not rel or rel.startswith("/") or \
                    any(part in ("", ".", "..") or "\0" in part for part in rel.split("/")):
                return None
    return data
