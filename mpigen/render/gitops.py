"""GitOps run identity, for every target: under a controller that applies Git continuously
(shared/reference/gitops.md, G and H), the objects of a job behave as a batch job's.

A Job's pod template is immutable and a StatefulSet's template change restarts the
workers, so every run gets objects of its own: the job is rendered as the MPIJob
`<name>-<run>` would be, where <run> is a short hash of the objects that define the run
(and of spec.run, which users change to run the same spec again). A new run is new
objects; the controller prunes the previous run's. Labels and annotations are not part of
a run (they stay off pod templates, so editing them changes objects in place), except those
Kueue's webhook refuses to change on a running job (the queue, the priority class, ...): a
new value of one is a new run, as a spec edit is.

Every target renders through run_objects with its own builder; how each target starts and
completes a run is the target's own (mpigen.render.static.gitops for the static target). How
much a run lengthens the names, which the checks size names by, is mpigen.check.run_names.
"""

from __future__ import annotations

import hashlib
import json
from typing import Callable

from mpigen.check.run_names import RUN_HASH_LENGTH
from mpigen.compile.mpijob import MPIJob, with_defaults
from mpigen.kube.kueue_immutable import kept_metadata
from mpigen.render.parts.additions import Additions, with_additions
from mpigen.render.target import Lifecycle

def without_template_metadata(job: MPIJob) -> MPIJob:
    """The job with the blueprint's labels and annotations taken off the pod templates
    (they stay on the objects): under a GitOps controller a label edit must not restart
    workers or be refused on the launcher Job."""
    replicas = {}
    for role, replica in job.spec.mpiReplicaSpecs.items():
        template = dict(replica.template)
        meta = {}
        for key, blueprint in (("labels", job.metadata.labels), ("annotations", job.metadata.annotations)):
            kept = {k: v for k, v in template.get("metadata", {}).get(key, {}).items() if k not in blueprint}
            if kept:  # what mpigen itself puts there (secondary networks, one pod per node)
                meta[key] = kept
        template.pop("metadata", None)
        if meta:
            template["metadata"] = meta
        replicas[role] = replica.model_copy(update={"template": template})
    return job.model_copy(update={"spec": job.spec.model_copy(update={"mpiReplicaSpecs": replicas})})


def run_content(obj: dict) -> dict:
    """What of an object defines the run: everything but its metadata (so every field
    Kubernetes might refuse to update), and of the metadata the labels and annotations Kueue's
    webhook may refuse to change on a running or finished job (mpigen.kube.kueue_immutable:
    the queue, the priority class, ...). An object without such keys hashes as it did before
    they counted, so only a job that has them got a new run from that change."""
    content = {k: v for k, v in obj.items() if k != "metadata"}
    kept = kept_metadata(obj)
    if kept:
        content["metadata"] = kept
    return content


def run_id(objects: list[dict], run: str | None, held: bool = False) -> str:
    """A short hash of what defines the run in each object (run_content), and of spec.run;
    `held` counts only where it is true (a run that is not held hashes as before it counted)."""
    content = [run_content(obj) for obj in objects]
    named = {"objects": content, "run": run, **({"held": True} if held else {})}
    canonical = json.dumps(named, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:RUN_HASH_LENGTH]


def held_is_a_run(lifecycle: Lifecycle, gitops: str, if_absent: bool) -> bool:
    """Whether `held` is a run of its own: under Flux, for a job Flux applies only if absent
    (`if_absent`: the kinds Kueue admits into, mpigen.render.kueue). Argo CD applies the released job
    (its admission gate gone) to the held object, the same run. Flux applies a running queued
    job only if absent (kustomize.toolkit.fluxcd.io/ssa: IfNotPresent, mpigen.render.kueue),
    and it skips an object that exists by the annotation of the object in Git (fluxcd/pkg
    ssa/v0.76.1, the version kustomize-controller v1.9.4 uses: ssa/manager_apply.go
    shouldSkipApply): it would never remove the gate from the held object. So under Flux the
    release is a new run: the held object, never admitted, is pruned, and the new one queued.
    A TrainJob, which Flux applies whole every time, is released in place."""
    return gitops == "flux" and lifecycle.state == "held" and if_absent


def instance(job: MPIJob, run: str) -> MPIJob:
    return job.model_copy(update={"metadata": job.metadata.model_copy(update={"name": f"{job.metadata.name}-{run}"})})


def run_objects(job: MPIJob, lifecycle: Lifecycle, gitops: str, build: Callable[[MPIJob, str | None], list[dict]],
                additions: Additions = Additions(), flux_if_absent: bool = True) -> tuple[list[dict], str | None]:
    """A target's objects of the job, and its run (None without a GitOps profile). `build`
    gets the job with mpigen's additions (`additions`: how the target's pods take them) and
    the operator's defaults, and the run it renders (None while the run is being hashed);
    `flux_if_absent`: whether Flux applies the job's object only if absent (held_is_a_run).

    Under a profile the objects are built twice: the run is the hash of the objects of the
    job as named in Git, and its objects are then those of the job renamed <name>-<run>,
    whose names run through every object (hosts, references, selectors)."""
    def built(named: MPIJob, run: str | None) -> list[dict]:
        return build(with_defaults(with_additions(named, additions)), run)

    if gitops == "none":
        return built(job, None), None
    base = without_template_metadata(job)
    run = run_id(built(base, None), lifecycle.run, held_is_a_run(lifecycle, gitops, flux_if_absent))
    return built(instance(base, run), run), run
