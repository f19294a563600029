"""Which jobs a diff restarts, and why: the overview's `Restarts: N jobs (...): <job>: <why>; ...`.

A job restarts when a run going on is stopped and started again from its beginning: its run
objects (a kind's `run` fact: the object whose controller makes the launcher) are replaced by
others (under a GitOps profile, a new run's name: Argo CD's prune and Flux's garbage
collection delete the old run's objects, their pods with them, and the new ones start), or an
object is changed so that its running pods are replaced (a kind's `restarts_pods` fact). Git
cannot say whether the old run still goes on: a job is named whenever it would restart if it
did.

Why, between two revisions (`cause_between`): the job's blueprint document changed, its
environment's clusters move to another version of an operator that one of its kinds follows
(mpigen.review.diff.upgrades: `versions.trainer v2.3 -> v2.4`, and any other key of
`versions:` alike; a move no kind of the job follows is named when nothing else of its sources
changed), its overlay or mpigen.yaml changed other than in `versions:`, and when
none of these did, mpigen's output changed: the same sources rendered by another mpigen give
another run. Between two folders or against the cluster, no sources are at hand: the objects
say it (`replaced`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from mpigen.errors import InputError
from mpigen.formats.config import CONFIG_FILE
from mpigen.load.parser import parse
from mpigen.render.targets import kind_facts
from mpigen.review.diff.manifests import blueprint_of, read_render, rendered_environments
from mpigen.review.diff.model import JobDiff, ObjectKey
from mpigen.review.diff.overridden import Tree, blueprint_documents
from mpigen.review.diff.upgrades import Upgrade

MPIGEN_OUTPUT = ("mpigen's output changed: its blueprint, overlay and mpigen.yaml are as they were, and the "
                 "mpigen that rendered the base renders them as another run")
REPLACED = "a new run replaces its run"  # between folders or against the cluster: the objects say it
WORKERS = "its running workers are replaced"
Cause = Callable[[JobDiff], str]


@dataclass(frozen=True)
class Restart:
    """A job whose run going on the change would restart, and why."""

    environment: str
    namespace: str
    job: str
    why: str

    def said(self) -> str:
        """`ml/train (env prod): versions.trainer v2.3 -> v2.4`."""
        where = "/".join(part for part in (self.namespace, self.job) if part)
        return where + (f" (env {self.environment})" if self.environment else "") + f": {self.why}"


def restarting(job: JobDiff) -> bool:
    """Whether the change restarts a run of the job that goes on."""
    return (job.new_run and job.ends_run) or job.restarts_workers


def replaced(job: JobDiff) -> str:
    """What the objects alone say of a restart."""
    return REPLACED if job.new_run and job.ends_run else WORKERS


def restarts(jobs: list[JobDiff], cause: Cause = replaced) -> list[Restart]:
    """The jobs that restart, in the report's order, each with its cause."""
    return [Restart(job.environment, job.namespace, job.job, cause(job)) for job in jobs if restarting(job)]


def cause_between(old_files: dict[str, str], new_files: dict[str, str], old: Tree, new: Tree,
                  upgrades: list[Upgrade]) -> Cause:
    """Why a job restarts between two revisions, from the sources each side has."""
    overlays = rendered_environments(new_files) | rendered_environments(old_files)
    config_changed = _without_versions(old, CONFIG_FILE) != _without_versions(new, CONFIG_FILE)
    blueprints: dict[ObjectKey, str] = {}  # read once, when a job restarts: most diffs restart none

    def cause(job: JobDiff) -> str:
        if not blueprints:
            blueprints.update(_blueprints(old_files) | _blueprints(new_files))
        reasons = []
        paths = {blueprints.get(key, "") for key in _keys(job)} - {""}
        if any(_document(old, path, job.job) != _document(new, path, job.job) for path in sorted(paths)):
            reasons.append("its blueprint changed")
        keys = {facts.versions_key for facts in (kind_facts(k.api_version, k.kind) for k in _keys(job)) if facts}
        moved = [up for up in upgrades if up.environment == job.environment]
        reasons += [f"versions.{up.key} {up.old} -> {up.new}" for up in moved if up.key in keys]
        overlay = overlays.get(job.environment, "")
        if overlay and _overlay_settings(old, overlay) != _overlay_settings(new, overlay):
            reasons.append(f"its overlay changed ({overlay})")
        if config_changed:
            reasons.append(f"{CONFIG_FILE} changed")
        if not reasons and moved:  # no kind of the job follows the key, yet nothing else of its sources moved
            reasons = [f"versions.{up.key} {up.old} -> {up.new}" for up in moved]
        return "; ".join(reasons) if reasons else MPIGEN_OUTPUT

    return cause


def _keys(job: JobDiff) -> set[ObjectKey]:
    return {m.key for m in (*job.added, *job.removed)} | {change.key for change in job.changed}


def _blueprints(files: dict[str, str]) -> dict[ObjectKey, str]:
    """The blueprint file each object of a side was rendered from (its `# Source:` comment)."""
    return {key: blueprint_of(files, manifest) for key, manifest in read_render(files, "", []).items()}


def _document(tree: Tree, path: str, job: str):
    """The data of the job's document in a side's blueprint file (None: no such file or job)."""
    text = tree.texts([path]).get(path)
    document = blueprint_documents(text, path).get(job) if text is not None else None
    return document.data if document is not None else None


def _overlay_settings(tree: Tree, path: str) -> list | None:
    """What the overlay and its bases set, but their versions (None: the side cannot resolve it)."""
    overlay = tree.overlay(path)
    if overlay is None:
        return None
    return [item.model.model_dump(exclude={"versions"}) for item in overlay.chain()]


def _without_versions(tree: Tree, path: str):
    """A side's mpigen.yaml but its versions (None: none; its text: a file that does not parse)."""
    text = tree.texts([path]).get(path)
    if text is None:
        return None
    try:
        docs = parse(text, path)
    except InputError:
        return text
    data = docs[0].data if docs else None
    return {k: v for k, v in data.items() if k != "versions"} if isinstance(data, dict) else data
