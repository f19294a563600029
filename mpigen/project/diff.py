"""diff: two renders compared object by object (git revisions, two folders, or the live cluster),
and, between two revisions, the blueprint edits an overlay makes moot."""

from __future__ import annotations

import os
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from mpigen.errors import UsageError
from mpigen.pipeline.run import Progress
from mpigen.project.cluster import connect
from mpigen.project.options import ClusterFlags, Flags, Setup, resolve
from mpigen.project.rendered import Warn, rendered
from mpigen.project.repository import NO_CONFIG
from mpigen.review.diff.compare import compare
from mpigen.review.diff.located import locate
from mpigen.review.diff.overridden import overridden
from mpigen.review.diff.report import Report
from mpigen.review.diff.restarts import cause_between, restarts
from mpigen.review.diff.upgrades import live_upgrades, upgrades
from mpigen.review.live import live_texts
from mpigen.review.revision import (commit_of, default_base, folder_texts, render_texts, require_commits,
                                    revision_texts)
from mpigen.review.sources import CommitTree, WorkingTree

WORKING_TREE = "working tree"


@dataclass(frozen=True)
class Sides:
    """What the command line names to compare: two folders (`dirs`), or the revisions (None:
    the default base, and the working tree as the head)."""

    dirs: tuple[str, ...] = ()
    base: str | None = None
    head: str | None = None
    live: bool = False


def diff(flags: Flags, sides: Sides, cluster: ClusterFlags, warn: Warn, progress: Progress | None = None) -> Report:
    """The old render against the new: the committed output at git revision `base` (the merge
    base with the default branch when None) against the committed output at `head`, or a
    fresh render of the working tree when head is None; or folder `dirs[0]` against
    `dirs[1]`; or the cluster's objects against a fresh render. Two positional arguments
    that are not paths are two revisions. Raises InputError and UsageError."""
    revisions = sides.base is not None or sides.head is not None
    if sides.live and (sides.dirs or revisions):
        raise UsageError("--live compares the render with the cluster: give neither folders nor --base/--head")
    if sides.live:
        server = connect(cluster, "--live")
        new = render_texts(rendered(resolve(flags, warn), warn, progress))
        suspended: dict[str, bool] = {}
        live = live_texts(server, new, suspended)
        report = compare(live, new, f"cluster {server.server}", WORKING_TREE)
        report.upgrades = live_upgrades(live, new, suspended, WorkingTree())
        return report
    if sides.dirs and revisions:
        raise UsageError("give either OLD NEW or --base/--head REV, not both")
    if sides.dirs:
        if len(sides.dirs) != 2:
            raise UsageError("give two folders to compare (OLD_DIR NEW_DIR), or two git revisions "
                             "(--base OLD_REV --head NEW_REV)")
        old_dir, new_dir = sides.dirs
        if os.path.lexists(old_dir) or os.path.lexists(new_dir):
            return compare(folder_texts(Path(old_dir)), folder_texts(Path(new_dir)), old_dir, new_dir)
        return _revisions(flags, sides.dirs, old_dir, new_dir, warn, progress)
    return _revisions(flags, (), sides.base, sides.head, warn, progress)


def _revisions(flags: Flags, named: tuple[str, ...], base: str | None, head: str | None, warn: Warn,
               progress: Progress | None) -> Report:
    """The output committed at base against that at head (None: a fresh render of the working
    tree). `named` are the positional arguments read as revisions, for the messages."""
    setup = resolve(flags, warn)
    output = _output(setup)
    require_commits(" and ".join(named))
    base_label, base_commit = commit_of(base, None if named else "--base") if base is not None else ("", "")
    head_label, head_commit = commit_of(head, None if named else "--head") if head is not None else (WORKING_TREE, None)
    if base is None:
        base_label, base_commit = commit_of(default_base(head_commit or "HEAD"), "--base")
    old = revision_texts(base_commit, base_label, output, setup.scope)
    if head_commit is None:
        new = render_texts(rendered(setup, warn, progress))
    else:
        new = revision_texts(head_commit, head_label, output, setup.scope)
    report = compare(old, new, base_label, head_label)
    with CommitTree(base_commit) as old_tree, CommitTree(head_commit) if head_commit else nullcontext() as head_tree:
        report.overridden = overridden(new, old_tree, head_tree or WorkingTree())
        locate(report, old_tree, head_tree or WorkingTree())
        report.upgrades = upgrades(old, new, old_tree, head_tree or WorkingTree())
        report.restarts = restarts(report.jobs, cause_between(old, new, old_tree, head_tree or WorkingTree(),
                                                              report.upgrades))
    return report


def _output(setup: Setup) -> Path:
    """The output folder the revisions hold (mpigen.yaml's, or -o DIR)."""
    if setup.output is None:
        where = f"{NO_CONFIG} to name it" if setup.config is None else f"{setup.config.path} names it for no PATH"
        raise UsageError(f"say which output folder the revisions hold: -o DIR ({where})")
    return setup.output
