"""Target `static` (the default): the objects the MPI Operator's v1alpha2 controller creates
for the MPIJob (shared/reference/mpi-operator.md, section 2), one module per object:
configmap, rbac, podgroup (mpigen.render.parts.podgroup), workers, launcher; then mpigen's additions, the blueprint's
labels and annotations and mpigen's ownership labels (mpigen.render.parts.stamp). Under a GitOps
profile, each run is objects of its own (mpigen.render.gitops) that start in order and
release their GPUs when done (mpigen.render.static.gitops)."""

from __future__ import annotations

from mpigen.compile.mpijob import MPIJob
from mpigen.kube.labels import KUEUE_PRIORITY_LABEL, KUEUE_QUEUE_LABEL
from mpigen.render import gitops
from mpigen.render.parts.additions import addition_objects
from mpigen.render.parts.stamp import stamp
from mpigen.render.static import checks
from mpigen.render.static.configmap import new_config_map
from mpigen.render.static.gitops import annotate, scale_down_on_success
from mpigen.render.static.launcher import new_launcher
from mpigen.render.static.options import OPTIONS
from mpigen.render.parts.podgroup import join_group, new_pod_group
from mpigen.render.parts.podgroup import KINDS as POD_GROUP_KINDS
from mpigen.render.static.rbac import new_launcher_role, new_launcher_role_binding, new_launcher_service_account
from mpigen.render.static.watched import watched
from mpigen.render.static.workers import new_worker
from mpigen.render.target import FluxSteps, Lifecycle, Options, Target


def static_objects(job: MPIJob, options: Options, job_name: str, run: str | None) -> list[dict]:
    """In the order of the controller's syncHandler: ConfigMap, ServiceAccount, Role,
    RoleBinding, PodGroup (with gang scheduling), worker StatefulSet (only with workers),
    launcher Job; then mpigen's additions (mpigen.render.parts.additions). Under a GitOps profile,
    the objects of one run (mpigen.render.gitops), which release their GPUs when done."""
    ext = job.extensions
    account = new_launcher_service_account(job)
    if ext.workerServiceAccountAnnotations:  # the launcher's downloads use the same cloud identity
        account["metadata"]["annotations"] = dict(ext.workerServiceAccountAnnotations)
    objects = [new_config_map(job), account, new_launcher_role(job), new_launcher_role_binding(job)]
    workloads = []
    if job.workers > 0:
        worker = new_worker(job)
        if worker is not None:
            workloads.append(worker)
    workloads.append(new_launcher(job, options.own.kubectl_delivery_image))
    if ext.gang is not None:
        # Under a GitOps profile the launcher starts after the workers are ready.
        objects.append(new_pod_group(job, launcher_waits=options.gitops != "none"))
        for workload in workloads:
            join_group(job, workload["spec"]["template"])
    if ext.queue is not None:  # Kueue admits the workers (a pod group) and the launcher Job
        for workload in workloads:
            workload["metadata"]["labels"][KUEUE_QUEUE_LABEL] = ext.queue
            if ext.priorityClass is not None:
                workload["metadata"]["labels"][KUEUE_PRIORITY_LABEL] = ext.priorityClass
    objects = [stamp(obj, job, job_name, run, templates=options.gitops == "none")
               for obj in objects + workloads + addition_objects(job)]
    if options.gitops != "none":
        scale_down_on_success(job, objects)
    return objects


def render(job: MPIJob, options: Options, lifecycle: Lifecycle) -> list[dict]:
    """`completed` scales the workers to 0 (they release their GPUs); the launcher Job
    gets the blueprint's TTL."""
    objects, _ = gitops.run_objects(job, lifecycle, options.gitops, lambda instance, run: static_objects(
        instance, options, job.metadata.name, run))
    if options.gitops != "none":
        annotate(objects, options.gitops, running=lifecycle.state == "running")
    for obj in objects:
        if obj["kind"] == "StatefulSet" and lifecycle.state == "completed":
            obj["spec"]["replicas"] = 0  # the workers release their GPUs
        if obj["kind"] == "Job" and lifecycle.ttl_seconds_after_finished is not None:
            obj["spec"]["ttlSecondsAfterFinished"] = lifecycle.ttl_seconds_after_finished
    return objects


def _flux_step(obj: dict) -> str:
    """The launcher's Job applies once the rest of the job (its workers) is healthy."""
    return "launcher" if obj["kind"] == "Job" else "workers"


def _scales_itself(obj: dict) -> bool:
    """The workers while the job runs: the launcher scales them to 0 once mpirun succeeds
    (mpigen.render.static.gitops)."""
    return obj["kind"] == "StatefulSet" and obj["spec"].get("replicas", 1) > 0


# Argo CD and Flux know Jobs and StatefulSets: no health check of mpigen's.
STATIC = Target(name="static", render=render, checks=checks.checks, reserved=checks.RESERVED,
                flux=FluxSteps(("workers", "launcher"), per_job=True, step_of=_flux_step),
                scales_itself=_scales_itself, options=OPTIONS, kinds=POD_GROUP_KINDS, watched=watched)
