"""mpigen.yaml read from the folder a run works in, checked against the targets and GitOps profiles mpigen has.

The run works in the folder that holds it (mpigen.project.repository finds it from a
sub-folder, refuses another user's, and moves there), so every path in it is relative to
that folder. Its format is mpigen.formats.config.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mpigen.errors import Diagnostic, InputError, Mark, error, not_one_of
from mpigen.formats.config import CONFIG_FILE, CONFIG_KIND, ConfigModel
from mpigen.formats.types import GITOPS_PROFILES
from mpigen.load.document import Document
from mpigen.load.files import WORKING_FOLDER, display_path, input_exists
from mpigen.load.parser import load_file
from mpigen.load.model import validate_model
from mpigen.overlay.selection import selector_problems
from mpigen.pipeline.targeting import RULES_KEY
from mpigen.project.target_rules import unknown_targets
from mpigen.render import targets


@dataclass(frozen=True)
class Config:
    path: str
    model: ConfigModel
    doc: Document


def load_config(folder: Path = Path(".")) -> Config | None:
    """mpigen.yaml of the folder, or None when there is none; raises InputError when it is
    invalid or cannot be read (never ignored: without it, a run would render something else)."""
    path = folder / CONFIG_FILE
    shown = display_path(path)
    if not input_exists(path, shown, WORKING_FOLDER):
        return None
    docs = load_file(path, WORKING_FOLDER)
    if len(docs) != 1 or not isinstance(docs[0].data, dict) or docs[0].data.get("kind") != CONFIG_KIND:
        where = docs[0].start if docs else Mark(shown)
        raise InputError([error(where, f"{CONFIG_FILE} holds one document with apiVersion: mpigen.dev/v1alpha1 "
                                       f"and kind: {CONFIG_KIND}")])
    doc = docs[0]
    model, diagnostics, _ = validate_model(doc, ConfigModel)
    problems: list[Diagnostic] = doc.problems + diagnostics
    if model is None:
        raise InputError(problems)
    # targets' attributes are read here, not imported: the table is the one in force now.
    for key, allowed in (("target", targets.TARGETS), ("gitops", GITOPS_PROFILES)):
        value = getattr(model, key)
        if value is not None and value not in allowed:
            problems.append(error(doc.value_mark((key,)), not_one_of(f"{key}: {value!r}", value, allowed)))
    problems += unknown_targets(doc, model.targets) + selector_problems(doc, RULES_KEY, ("jobs", "labelSelector"))
    problems += _companion_folder_problems(model, doc, folder)
    if problems:
        raise InputError(problems)
    return Config(shown, model, doc)


def _companion_folder_problems(model: ConfigModel, doc: Document, folder: Path) -> list[Diagnostic]:
    """The Argo CD Applications and the Flux Kustomizations each need a folder of their own."""
    if model.argocd is None or model.flux is None:
        return []
    applications, kustomizations = model.argocd.applications, model.flux.kustomizations
    one, other = (folder / applications).resolve(), (folder / kustomizations).resolve()
    if one == other or one in other.parents or other in one.parents:
        return [error(doc.value_mark(("flux", "kustomizations")),
                      f"flux.kustomizations: {kustomizations!r} overlaps argocd.applications "
                      f"{applications!r}; each writes its own kustomization.yaml and index into its "
                      "folder, so give them folders of their own")]
    return []
