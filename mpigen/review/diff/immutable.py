"""Changes the API server refuses to apply in place (ValidateJobUpdate,
ValidateStatefulSetUpdate, a custom resource's webhook and CEL rules, Kueue's webhook on the
labels of a job it manages, ...), as the table of kinds knows them
(mpigen.render.targets.kind_facts): Argo CD and Flux then fail to sync until someone deletes
the object by hand."""

from __future__ import annotations

from mpigen.errors import Mark
from mpigen.kube.kueue_immutable import ADMISSION_GATED_BY, refused_changes
from mpigen.kube.labels import KUEUE_PRIORITY_LABEL, KUEUE_QUEUE_LABEL
from mpigen.render.kueue import HELD_GATE
from mpigen.render.targets import kind_facts
from mpigen.review.diff.fields import key_path
from mpigen.review.diff.model import Finding, ObjectKey

RECREATE = "Argo CD and Flux will fail to sync it; delete and recreate the object (give the run a new name) instead"
# spec.state: held on a job that exists (mpigen.render.kueue): only a new job can be held.
HOLD_AGAIN = ("a job that exists cannot be held; keep spec.state: running, or set spec.state: completed to stop "
              "it (a queued job's objects are then deleted) and hold a new run (spec.run) later")
# The blueprint fields that write Kueue's labels; any other key is the blueprint's own metadata.
BLUEPRINT_FIELDS = {("labels", KUEUE_QUEUE_LABEL): ("spec", "scheduling", "queue"),
                    ("labels", KUEUE_PRIORITY_LABEL): ("spec", "scheduling", "priorityClass")}


def immutable_changes(key: ObjectKey, old: dict, new: dict, blueprint: str = "") -> list[Finding]:
    """One finding per immutable field that changes between old and new (`blueprint`: the
    file the object was rendered from, if known)."""
    facts = kind_facts(key.api_version, key.kind)
    if facts is None:
        return []
    paths = facts.immutable(old, new) if facts.immutable is not None else []
    findings = [Finding(key, path, f"Kubernetes refuses to change {path} of {key}: {RECREATE}") for path in paths]
    rules = facts.kueue(key.api_version) if facts.kueue is not None else ()
    for rule, reason in refused_changes(old, new, rules):
        path = key_path(f"metadata.{rule.where}", rule.key)
        loc = BLUEPRINT_FIELDS.get((rule.where, rule.key), ("metadata", rule.where, rule.key))
        when, fix = " once it has admitted the job", RECREATE
        if rule == ADMISSION_GATED_BY:  # refused in any state
            when = ""
            if new["metadata"].get("annotations", {}).get(rule.key) == HELD_GATE:  # spec.state: held
                loc, fix = ("spec", "state"), HOLD_AGAIN
        findings.append(Finding(key, path, f"Kueue refuses to change {path} of {key}{when}: {reason}; {fix}",
                                field=_field(loc), loc=loc, blueprint=Mark(blueprint) if blueprint else None))
    return findings


def _field(loc: tuple[str, ...]) -> str:
    path = ""
    for part in loc:
        path = key_path(path, part)
    return path
