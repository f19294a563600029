"""Changes the API server refuses to apply in place (ValidateJobUpdate,
ValidateStatefulSetUpdate, a custom resource's webhook and CEL rules, ...), as the table of
kinds knows them (mpigen.render.targets.kind_facts): Argo CD and Flux then fail to sync until
someone deletes the object by hand."""

from __future__ import annotations

from mpigen.render.targets import kind_facts
from mpigen.review.diff.model import Finding, ObjectKey


def immutable_changes(key: ObjectKey, old: dict, new: dict) -> list[Finding]:
    """One finding per immutable field that changes between old and new."""
    facts = kind_facts(key.api_version, key.kind)
    paths = facts.immutable(old, new) if facts is not None and facts.immutable is not None else []
    return [Finding(key, path, f"Kubernetes refuses to change {path} of {key}: Argo CD and Flux will fail to sync "
                               "it; delete and recreate the object (give the run a new name) instead")
            for path in paths]
