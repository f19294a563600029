"""The labels and annotations every rendered object and pod template gets on top of the
operator's: the blueprint's own metadata, and mpigen's ownership labels.

Selectors are never touched (a StatefulSet selector is immutable, and Argo CD may rewrite
app.kubernetes.io/instance, so mpigen does not use that key).
"""

from __future__ import annotations

from mpigen.compile.mpijob import MPIJob
from mpigen.kube.labels import JOB_LABEL, MANAGED_BY, RUN_LABEL


def own_labels(job: MPIJob, job_name: str | None = None, run: str | None = None) -> dict[str, str]:
    labels = {MANAGED_BY: "mpigen", JOB_LABEL: job_name or job.metadata.name}
    if run is not None:
        labels[RUN_LABEL] = run
    return labels


def stamp(obj: dict, job: MPIJob, job_name: str | None = None, run: str | None = None,
          templates: bool = True) -> dict:
    """The blueprint's labels and annotations and mpigen's labels on the object; on its pod
    templates too (a workload's, a JobSet's replicated jobs'), or (templates=False, the
    GitOps profiles) only mpigen's labels there."""
    own = own_labels(job, job_name, run)
    _merge(obj["metadata"], {**job.metadata.labels, **own}, job.metadata.annotations)
    for template in _pod_templates(obj):
        if templates:
            _merge(template.setdefault("metadata", {}), {**job.metadata.labels, **own}, job.metadata.annotations)
        else:
            _merge(template.setdefault("metadata", {}), own, {})
    return obj


def _pod_templates(obj: dict) -> list[dict]:
    """A workload's pod template, or those of a JobSet's replicated jobs, or of the JobSet
    template of a Kubeflow Trainer runtime."""
    spec = obj.get("spec", {})
    template = spec.get("template")
    if isinstance(template, dict) and "replicatedJobs" in template.get("spec", {}):
        spec = template["spec"]
    elif isinstance(template, dict):
        return [template]
    return [replicated["template"]["spec"]["template"] for replicated in spec.get("replicatedJobs", [])]


def _merge(meta: dict, labels: dict[str, str], annotations: dict[str, str]) -> None:
    # The operator's keys win, as the controller writes its labels over the template's.
    meta["labels"] = {**labels, **meta.get("labels", {})}
    if annotations:
        meta["annotations"] = {**annotations, **meta.get("annotations", {})}
