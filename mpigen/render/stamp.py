"""The labels and annotations every rendered object and pod template gets on top of the
operator's: the blueprint's own metadata, and mpigen's ownership labels.

Selectors are never touched (a StatefulSet selector is immutable, and Argo CD may rewrite
app.kubernetes.io/instance, so mpigen does not use that key).
"""

from __future__ import annotations

from mpigen.mpijob import MPIJob

MANAGED_BY = "app.kubernetes.io/managed-by"
MPIGEN_PREFIX = "mpigen.dev/"  # label and annotation keys reserved for mpigen
JOB_LABEL = MPIGEN_PREFIX + "job"


def own_labels(job: MPIJob) -> dict[str, str]:
    return {MANAGED_BY: "mpigen", JOB_LABEL: job.metadata.name}


def stamp(obj: dict, job: MPIJob) -> dict:
    extra_labels = {**job.metadata.labels, **own_labels(job)}
    _merge(obj["metadata"], extra_labels, job.metadata.annotations)
    template = obj.get("spec", {}).get("template")
    if isinstance(template, dict):
        _merge(template.setdefault("metadata", {}), extra_labels, job.metadata.annotations)
    return obj


def _merge(meta: dict, labels: dict[str, str], annotations: dict[str, str]) -> None:
    # The operator's keys win, as the controller writes its labels over the template's.
    meta["labels"] = {**labels, **meta.get("labels", {})}
    if annotations:
        meta["annotations"] = {**annotations, **meta.get("annotations", {})}
