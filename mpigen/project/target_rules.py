"""The target rules of mpigen.yaml and of overlays (`targets`, mpigen.formats.overlay.TargetRule)
read into the pipeline's rules (mpigen.pipeline.targeting), and a rule's target that mpigen does
not have, at its line."""

from __future__ import annotations

from mpigen.errors import Diagnostic, error, not_one_of
from mpigen.formats.overlay import TargetRule
from mpigen.load.document import Document
from mpigen.overlay.resolve import Overlay
from mpigen.pipeline.targeting import RULES_KEY, Rule
from mpigen.render import targets


def target_rules(doc: Document, models: list[TargetRule], reported: bool = True) -> list[Rule]:
    """The rules of one file, in order, each at its item of `targets` (`reported`: whether a rule
    that selects no job is warned of)."""
    return [Rule(model.jobs, model.target, doc.path, index, doc.key_mark((RULES_KEY, index)), reported)
            for index, model in enumerate(models)]


def unknown_targets(doc: Document, models: list[TargetRule]) -> list[Diagnostic]:
    """A rule whose target is not one of mpigen's, at its value."""
    return [error(doc.value_mark((RULES_KEY, index, "target")),
                  not_one_of(f"{RULES_KEY}[{index}].target: {model.target!r}", model.target, targets.TARGETS))
            for index, model in enumerate(models) if model.target not in targets.TARGETS]


def overlay_rule_problems(overlays: list[Overlay]) -> list[Diagnostic]:
    """The unknown targets of the rules of these overlays and of their bases, each overlay once."""
    seen, out = set(), []
    for overlay in overlays:
        for item in overlay.chain():
            if item.doc.path not in seen:
                seen.add(item.doc.path)
                out += unknown_targets(item.doc, item.model.targets)
    return out
