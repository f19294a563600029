"""Target `trainjob`: per job, a Kubeflow Trainer v2 TrainJob (mpigen.render.trainjob.trainjob)
and, unless the cluster has the runtime it names, the runtime mpigen writes from the blueprint
(mpigen.render.trainjob.runtime), plus mpigen's additions. The Trainer makes the JobSet, the
SSH key and the hostfile. Under a GitOps profile each run is objects of its own, as on the
other targets (a TrainJob's trainer and runtimeRef are immutable); the runtime must exist
before its TrainJob (the Trainer's webhook refuses one whose runtime it cannot find): Argo CD
applies it in wave -1, Flux in a Kustomization the TrainJobs' depends on. `completed`
suspends the TrainJob, so a run still going stops and releases its pods."""

from __future__ import annotations

from types import ModuleType

from mpigen.compile.mpijob import MPIJob
from mpigen.decompile.port import Importer, References
from mpigen.formats.trainer import Runtime
from mpigen.formats.versions import DEFAULT_TRAINER_VERSION
from mpigen.kube.labels import ARGOCD_COMPARE_OPTIONS, ARGOCD_SYNC_OPTIONS, ARGOCD_SYNC_WAVE, MANAGED_BY
from mpigen.render.parts import gitops
from mpigen.render.parts.additions import Additions, addition_objects
from mpigen.render.parts.stamp import stamp
from mpigen.render.target import FluxSteps, Lifecycle, Options, Target
from mpigen.render.trainjob import checks, kinds
from mpigen.render.trainjob.names import (DEFAULT_EMITTED_KIND, DEFAULT_NAMED_KIND, NODE_CONTAINER, RUNTIME_KINDS,
                                          TRAINER_API, TRAINER_GROUP, first_rank_host)
from mpigen.render.trainjob.options import OPTIONS
from mpigen.render.trainjob.runtime import new_runtime
from mpigen.render.trainjob.trainjob import new_trainjob, with_crd_defaults
from mpigen.render.trainjob.watched import watched

WAVES = {"ConfigMap": "-1", "ServiceAccount": "-1", "TrainingRuntime": "-1", "ClusterTrainingRuntime": "-1",
         "TrainJob": "0"}
# Kueue adds a runtimePatches entry of its own and the Trainer's webhook stamps each entry's
# time: only a server-side apply and diff leave other managers' entries of the list-map alone.
SERVER_SIDE = {ARGOCD_SYNC_OPTIONS: "ServerSideApply=true", ARGOCD_COMPARE_OPTIONS: "ServerSideDiff=true"}
# The launcher runs as the identity; rank 0 is a pod of the Trainer's JobSet.
ADDITIONS = Additions(launcher_service_account=False, first_rank_host=first_rank_host)


def decompiler() -> ModuleType:
    """The TrainJob decompiler (mpigen.render.trainjob.decompiler), which `mpigen import` alone loads."""
    from mpigen.render.trainjob import decompiler
    return decompiler


# TrainJobs, each with the runtime it references when its file is given too.
IMPORTER = Importer(kind="TrainJob", group=TRAINER_GROUP, article="a", decompiler=decompiler,
                    references=References(TRAINER_API, RUNTIME_KINDS, "Trainer runtime"))


def runtime_choice(job: MPIJob, options: Options) -> Runtime:
    """The blueprint's spec.runtime, else the environment's default, else a TrainingRuntime of mpigen's."""
    return job.source.runtime or options.own.default_runtime or Runtime(emit=DEFAULT_EMITTED_KIND)


def trainjob_objects(job: MPIJob, choice: Runtime, ttl: int | None, version: str) -> list[dict]:
    """The runtime (unless named), then the TrainJob, then mpigen's additions, for that Trainer version."""
    objects = []
    if choice.named:
        kind, name = choice.kind or DEFAULT_NAMED_KIND, choice.name
    else:
        runtime = new_runtime(job, choice.emit, choice.name, version)
        if ttl is not None:
            runtime["spec"]["template"]["spec"]["ttlSecondsAfterFinished"] = ttl
        objects.append(runtime)
        kind, name = runtime["kind"], runtime["metadata"]["name"]
    objects.append(new_trainjob(job, kind, name, choice.named, version))
    return objects + addition_objects(job)


def run_version(job: MPIJob, choice: Runtime, ttl: int | None, version: str) -> str:
    """The Trainer version a run is hashed at (mpigen.render.parts.gitops.run_id): the default one
    when the version changes only the runtime mpigen writes, not the TrainJob, so that moving
    the clusters to another Trainer keeps every run's name, and a running TrainJob its objects.

    The runtime is then changed in place, which the Trainer allows and which a TrainJob that
    has started no longer reads: from v2.3 (KEP-2599) its first reconcile, suspended or not,
    copies the runtime into the ConfigMap `<trainjob>-runtime-snapshot` and every later one
    builds from that copy (v2.3.0 pkg/runtime/core/trainingruntime.go NewObjects,
    snapshot.go; pkg/controller/trainjob_controller.go Reconcile calls reconcileObjects for
    any TrainJob not finished), the runtime webhook refuses no update
    (pkg/webhooks/trainingruntime_webhook.go ValidateUpdate), and the JobSet of a TrainJob
    that runs is never rebuilt (plugins/jobset/jobset.go Build). Where the TrainJob itself
    changes (a runtime of the cluster's, whose OpenMPI TrainJob carries the PRRTE hostfile
    below v2.4; a ClusterTrainingRuntime named by its content, which the TrainJob's immutable
    runtimeRef names), the version is part of the run: a new run, which `mpigen diff` names."""
    if version == DEFAULT_TRAINER_VERSION:
        return version
    at_default, at_version = (next(o for o in trainjob_objects(job, choice, ttl, v) if o["kind"] == "TrainJob")
                              for v in (DEFAULT_TRAINER_VERSION, version))
    return DEFAULT_TRAINER_VERSION if at_default == at_version else version


def render(job: MPIJob, options: Options, lifecycle: Lifecycle) -> list[dict]:
    choice, ttl, version = runtime_choice(job, options), lifecycle.ttl_seconds_after_finished, options.trainer_version
    def build(instance: MPIJob, run: str | None) -> list[dict]:
        hashing = run is None and options.gitops != "none"  # run_objects hashes the run with run None
        return trainjob_objects(instance, choice, ttl, run_version(instance, choice, ttl, version) if hashing
                                else version)

    objects, run = gitops.run_objects(job, lifecycle, options.gitops, build, ADDITIONS,
                                       flux_if_absent=False)
    for obj in objects:
        if obj["kind"] == "ClusterTrainingRuntime":  # shared by jobs: nothing of any one of them
            obj["metadata"]["labels"][MANAGED_BY] = "mpigen"
        else:
            stamp(obj, job, job.metadata.name, run, templates=options.gitops == "none")
        if obj["kind"] == "TrainJob":
            with_crd_defaults(obj, job, lifecycle.state == "completed")
        if options.gitops == "argocd" and obj["kind"] in WAVES:
            annotations = obj["metadata"].setdefault("annotations", {})
            annotations[ARGOCD_SYNC_WAVE] = WAVES[obj["kind"]]
            if obj["kind"] == "TrainJob":
                annotations.update(SERVER_SIDE)
    return objects


def _flux_step(obj: dict) -> str:
    """The TrainJobs apply once the runtimes (and the jobs' configuration) are there."""
    return "trainjobs" if obj["kind"] == "TrainJob" else "runtimes"


TRAINJOB = Target(name="trainjob", render=render, checks=checks.checks, reserved=checks.RESERVED,
                  main_container=NODE_CONTAINER,
                  expects=checks.cluster_runtime, names=checks.runtime_named,
                  # Flux: a shared ClusterTrainingRuntime belongs to no one job, so the steps are the environment's.
                  flux=FluxSteps(("runtimes", "trainjobs"), per_job=False, step_of=_flux_step),
                  applied_first=("ClusterTrainingRuntime", "TrainingRuntime"),
                  health_checks=("docs/argocd/trainjob-health.yaml", "docs/flux/trainjob-health.yaml"), options=OPTIONS,
                  importer=IMPORTER, kinds=kinds.KINDS, watched=watched)
