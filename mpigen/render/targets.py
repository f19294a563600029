"""Backends: MPIJob -> Kubernetes objects.

`static` (the default target) builds the objects the MPI Operator's v1alpha2 controller
creates for the MPIJob (shared/reference/mpi-operator.md, section 2), one module per
object: configmap, rbac, workers, launcher. Then every object gets the blueprint's labels
and annotations and mpigen's ownership labels (stamp).
"""

from __future__ import annotations

from dataclasses import dataclass

from mpigen.compile.mpijob import MPIJob, with_defaults
from mpigen.render.static.launcher import DEFAULT_KUBECTL_DELIVERY_IMAGE

TARGETS = ("static", "mpijob")
GITOPS_PROFILES = ("none", "argocd", "flux")
DEFAULT_KUBE_VERSION = "1.30"  # of --kube-version: the MPIJob CRD's pod template schema


@dataclass(frozen=True)
class Options:
    """How to render: the CLI's --target/--gitops and the operator's own flags."""

    target: str = "static"
    gitops: str = "none"
    kubectl_delivery_image: str = DEFAULT_KUBECTL_DELIVERY_IMAGE
    mpijob_api: str = "kubeflow.org/v2beta1"  # target mpijob: kubeflow.org/v2beta1 or kubeflow.org/v1
    with_crd: bool = False  # target mpijob: add the MPIJob CustomResourceDefinition
    kube_version: str = DEFAULT_KUBE_VERSION


@dataclass(frozen=True)
class Lifecycle:
    """What the blueprint says about the job's life in Git, beyond the MPIJob itself."""

    state: str = "running"
    run: str | None = None
    ttl_seconds_after_finished: int | None = None


def static_objects(job: MPIJob, options: Options, job_name: str | None = None, run: str | None = None,
                   template_labels: bool = True) -> list[dict]:
    """In the order of the controller's syncHandler: ConfigMap, ServiceAccount, Role,
    RoleBinding, PodGroup (with gang scheduling), worker StatefulSet (only with workers),
    launcher Job; then mpigen's additions (mpigen.render.additions)."""
    from mpigen.render.additions import addition_objects, with_additions
    from mpigen.render.static.configmap import new_config_map
    from mpigen.render.static.launcher import new_launcher
    from mpigen.render.static.rbac import new_launcher_role, new_launcher_role_binding, new_launcher_service_account
    from mpigen.render.stamp import stamp
    from mpigen.render.static.workers import new_worker

    from mpigen.kube.labels import KUEUE_QUEUE_LABEL

    job = with_defaults(with_additions(job))
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
    workloads.append(new_launcher(job, options.kubectl_delivery_image))
    if ext.gang is not None:
        from mpigen.render.static.podgroup import join_group, new_pod_group

        # Under a GitOps profile the launcher starts after the workers are ready.
        objects.append(new_pod_group(job, launcher_waits=options.gitops != "none"))
        for workload in workloads:
            join_group(job, workload["spec"]["template"])
    if ext.queue is not None:  # Kueue admits the workers (a pod group) and the launcher Job
        for workload in workloads:
            workload["metadata"]["labels"][KUEUE_QUEUE_LABEL] = ext.queue
    objects += workloads + addition_objects(job)
    return [stamp(obj, job, job_name, run, template_labels) for obj in objects]


def gitops_objects(job: MPIJob, options: Options, lifecycle: Lifecycle) -> list[dict]:
    """The objects of one run of the job (see mpigen.render.gitops)."""
    from mpigen.render import gitops

    base = gitops.without_template_metadata(job)

    def run_objects(instance: MPIJob, run: str | None) -> list[dict]:
        objects = static_objects(instance, options, job.metadata.name, run, template_labels=False)
        gitops.scale_down_on_success(with_defaults(instance), objects)
        return objects

    run = gitops.run_id(run_objects(base, None), lifecycle.run)
    objects = run_objects(gitops.instance(base, run), run)
    gitops.annotate(objects, options.gitops, running=lifecycle.state == "running")
    return objects


def mpijob_objects(job: MPIJob, options: Options, lifecycle: Lifecycle) -> list[dict]:
    """Target mpijob: the MPIJob resource (see mpigen.render.mpijob.resource). Under a GitOps profile
    it is named per run, as the static target's objects are; `completed` suspends it, so
    the operator deletes its pods and the GPUs are released."""
    from mpigen.render import gitops
    from mpigen.render.mpijob.resource import new_mpijob
    from mpigen.render.stamp import stamp

    from mpigen.render.additions import addition_objects, with_additions

    base = job if options.gitops == "none" else gitops.without_template_metadata(job)

    def run_objects(instance: MPIJob) -> list[dict]:
        instance = with_defaults(with_additions(instance, launcher_service_account=False))
        obj = new_mpijob(instance, options.mpijob_api, lifecycle.ttl_seconds_after_finished)
        if lifecycle.state == "completed":
            obj["spec"]["runPolicy"]["suspend"] = True
        return [obj, *addition_objects(instance)]

    run = None
    objects = run_objects(base)
    if options.gitops != "none":
        run = gitops.run_id(objects, lifecycle.run)
        objects = run_objects(gitops.instance(base, run))
    return [stamp(obj, base, job.metadata.name, run, templates=options.gitops == "none") for obj in objects]


def render_job(job: MPIJob, options: Options, lifecycle: Lifecycle = Lifecycle()) -> list[dict]:
    if options.target not in TARGETS:
        raise ValueError(f"unknown target {options.target!r}")
    if lifecycle.state == "archived":
        return []  # nothing in Git: the controller prunes the job's objects
    if options.target == "mpijob":
        return mpijob_objects(job, options, lifecycle)
    if options.gitops == "none":
        objects = static_objects(job, options)
    else:
        objects = gitops_objects(job, options, lifecycle)
    for obj in objects:
        if obj["kind"] == "StatefulSet" and lifecycle.state == "completed":
            obj["spec"]["replicas"] = 0  # the workers release their GPUs
        if obj["kind"] == "Job" and lifecycle.ttl_seconds_after_finished is not None:
            obj["spec"]["ttlSecondsAfterFinished"] = lifecycle.ttl_seconds_after_finished
    return objects
