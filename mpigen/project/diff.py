"""diff: two renders compared object by object (a git revision, two folders, or the live cluster)."""

from __future__ import annotations

from pathlib import Path

from mpigen.errors import UsageError
from mpigen.pipeline import Progress
from mpigen.project.cluster import connect
from mpigen.project.options import ClusterFlags, Flags, resolve
from mpigen.project.rendered import Warn, rendered
from mpigen.project.repository import NO_CONFIG
from mpigen.review.diff.compare import compare
from mpigen.review.diff.report import Report
from mpigen.review.live import live_texts
from mpigen.review.revision import folder_texts, render_texts, revision_texts


def diff(flags: Flags, dirs: list[str], base: str | None, live: bool, cluster: ClusterFlags, warn: Warn,
         progress: Progress | None = None) -> Report:
    """The old render against the new: the committed output at git revision `base` (the merge
    base with the default branch when None) against a fresh render of the working tree, or
    folder `dirs[0]` against `dirs[1]`, or the cluster's objects against a fresh render.
    Raises InputError and UsageError."""
    if dirs and base is not None:
        raise UsageError("give either OLD_DIR NEW_DIR or --base REV, not both")
    if live and (dirs or base is not None):
        raise UsageError("--live compares the render with the cluster: give neither folders nor --base")
    if live:
        server = connect(cluster, "--live")
        new = render_texts(rendered(resolve(flags, warn), warn, progress))
        return compare(live_texts(server, new), new, f"cluster {server.server}", "working tree")
    if dirs:
        if len(dirs) != 2:
            raise UsageError("give two folders to compare: OLD_DIR NEW_DIR")
        return compare(folder_texts(Path(dirs[0])), folder_texts(Path(dirs[1])), dirs[0], dirs[1])
    setup = resolve(flags, warn)
    if setup.output is None:
        where = f"{NO_CONFIG} to name it" if setup.config is None else f"{setup.config.path} names it for no PATH"
        raise UsageError(f"say which output folder the base revision holds: -o DIR ({where})")
    new = render_texts(rendered(setup, warn, progress))
    rev, old = revision_texts(base, setup.output, setup.scope)
    return compare(old, new, rev, "working tree")
