"""Operator upgrades in a diff: an environment whose clusters run another version of an
operator on the new side (a key of `versions:`, mpigen.formats.versions: its overlay's or its
nearest base's, else mpigen.yaml's, else the default), and what the move does to each object
of that environment the clusters already run, as the table of kinds says (a kind's
`versions_key` and `upgrade` facts). The object diff shows what the new output is; this says
what becomes of what runs and the new render keeps (an object it renames belongs to a new run:
mpigen.review.diff.restarts names the job and why): a warning where the move breaks an object,
at the line that sets the new version. Every key of `versions:` (DEFAULT_VERSIONS) is followed,
so that another operator's version plugs in by its key and a kind's `versions_key` fact.

Between two revisions (`upgrades`): a folder holds no overlays. An environment rendered
without an overlay takes its versions from mpigen.yaml. Against the cluster (`live_upgrades`):
the versions the cluster's objects and the render's were written for, and the cluster's
spec.suspend of each job.
"""

from __future__ import annotations

from dataclasses import dataclass

from mpigen.errors import InputError, Mark
from mpigen.formats.config import CONFIG_FILE
from mpigen.formats.versions import DEFAULT_VERSIONS
from mpigen.load.parser import parse
from mpigen.render.targets import kind_facts
from mpigen.review.diff.manifests import read_render, rendered_environments
from mpigen.review.diff.model import ObjectKey
from mpigen.review.diff.overridden import Tree


@dataclass(frozen=True)
class Upgraded:
    """What moving the clusters does to one object they run."""

    key: ObjectKey
    said: str
    warning: bool


@dataclass(frozen=True)
class Upgrade:
    """An environment whose clusters move from one version of an operator to another."""

    environment: str
    key: str   # of `versions:`
    old: str
    new: str
    mark: Mark  # where the new side sets the new version (the overlay file alone when no side sets one)
    objects: tuple[Upgraded, ...]

    def lines(self, arrow: str = "->") -> list[str]:
        """`prod: versions.trainer v2.3 -> v2.4 (overlays/prod/overlay.yaml:6:12)` (no `prod: ` for
        a render without overlays), then a line per object."""
        where = f"{self.environment}: " if self.environment else ""
        return [f"{where}versions.{self.key} {self.old} {arrow} {self.new} ({self.mark})",
                *(f"warning: {self.mark}: {o.key}: {o.said}" if o.warning else f"  {o.key}: {o.said}"
                  for o in self.objects)]


def upgrades(old_files: dict[str, str], new_files: dict[str, str], old: Tree, new: Tree) -> list[Upgrade]:
    """Each environment of the new render, and key of `versions:`, whose version differs
    between the sides."""
    keys = sorted(DEFAULT_VERSIONS)  # every key of `versions:`, the Trainer's and any other operator's
    overlays = rendered_environments(new_files)
    running = read_render(old_files, "", [])
    kept = read_render(new_files, "", []).keys()
    running = {key: manifest for key, manifest in running.items() if key in kept}  # a renamed run is a restart
    found = []
    for environment, path in sorted(overlays.items()):
        for key in keys:
            (old_version, _), (new_version, mark) = _version(old, path, key), _version(new, path, key)
            if old_version != new_version:
                objects = tuple(_upgraded(running, environment, key, old_version, new_version))
                found.append(Upgrade(environment, key, old_version, new_version, mark, objects))
    return found


def _upgraded(running: dict, environment: str, key: str, old: str, new: str):
    """What the move does to each object of the environment whose kind follows `key`."""
    for object_key, manifest in sorted(running.items()):
        facts = kind_facts(object_key.api_version, object_key.kind)
        if object_key.environment != environment or facts is None or facts.versions_key != key or not facts.upgrade:
            continue
        said = facts.upgrade(manifest.data, old, new)
        if said is not None:
            yield Upgraded(object_key, *said)


def _version(tree: Tree, overlay_path: str, key: str) -> tuple[str, Mark]:
    """The version `key` of the environment of that overlay on one side, and where it is set."""
    overlay = tree.overlay(overlay_path) if overlay_path else None
    owner = overlay.versions_owner(key) if overlay is not None else None
    loc = ("versions", key)
    if owner is not None:
        return getattr(owner.model.versions, key), tree.shown(owner.doc.value_mark(loc))
    text = tree.texts([CONFIG_FILE]).get(CONFIG_FILE)
    try:
        docs = parse(text, CONFIG_FILE) if text is not None else []
    except InputError:
        docs = []
    if docs and docs[0].get(loc) is not None:
        return str(docs[0].get(loc)), tree.shown(docs[0].value_mark(loc))
    return DEFAULT_VERSIONS[key], Mark(overlay_path or CONFIG_FILE)


def live_upgrades(live_files: dict[str, str], new_files: dict[str, str], suspended: dict[str, bool],
                  tree: Tree) -> list[Upgrade]:
    """Against the cluster (`diff --live`): each environment whose render was written for
    another version of an operator than the cluster's copies of its objects (a kind's
    `written_for` fact: the newest either side shows), and what the move does to each object
    the cluster runs, with the spec.suspend the cluster has (`suspended`, by path): a job Kueue
    holds suspended is named as such, one it admitted as running."""
    running, rendered = read_render(live_files, "", []), read_render(new_files, "", [])
    for manifest in running.values():
        if manifest.path in suspended and isinstance(manifest.data.get("spec"), dict):
            manifest.data["spec"]["suspend"] = suspended[manifest.path]
    found = []
    for environment, path in sorted(rendered_environments(new_files).items()):
        for key in sorted(DEFAULT_VERSIONS):
            old, new = _written_for(running, environment, key), _written_for(rendered, environment, key)
            if old is not None and new is not None and old != new:
                objects = tuple(_upgraded(running, environment, key, old, new))
                found.append(Upgrade(environment, key, old, new, _version(tree, path, key)[1], objects))
    return found


def _written_for(objects: dict, environment: str, key: str) -> str | None:
    """The newest version of `key` the environment's objects were rendered for (None: no kind says)."""
    versions = set()
    for object_key, manifest in objects.items():
        facts = kind_facts(object_key.api_version, object_key.kind)
        if object_key.environment == environment and facts and facts.versions_key == key and facts.written_for:
            versions.add(facts.written_for(manifest.data))
    return max(versions, key=_numbers) if versions else None


def _numbers(version: str) -> tuple[int, ...]:
    """`v2.10` -> (2, 10), so that versions sort as numbers."""
    return tuple(int(part) for part in version.lstrip("v").split(".") if part.isdigit())
