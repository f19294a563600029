"""Backends: MPIJob -> Kubernetes objects.

`static` (the default target) builds the objects the MPI Operator's v1alpha2 controller
creates for the MPIJob (shared/reference/mpi-operator.md, section 2), one module per
object: configmap, rbac, workers, launcher. Then every object gets the blueprint's labels
and annotations and mpigen's ownership labels (stamp).
"""

from __future__ import annotations

from dataclasses import dataclass

from mpigen.mpijob import MPIJob, with_defaults

TARGETS = ("static",)
GITOPS_PROFILES = ("none",)


@dataclass(frozen=True)
class Options:
    """How to render: the CLI's --target/--gitops and the operator's own flags."""

    target: str = "static"
    gitops: str = "none"
    kubectl_delivery_image: str = "mpioperator/kubectl-delivery:latest"


def static_objects(job: MPIJob, options: Options) -> list[dict]:
    """In the order of the controller's syncHandler: ConfigMap, ServiceAccount, Role,
    RoleBinding, worker StatefulSet (only with workers), launcher Job."""
    from mpigen.render.configmap import new_config_map
    from mpigen.render.launcher import new_launcher
    from mpigen.render.rbac import new_launcher_role, new_launcher_role_binding, new_launcher_service_account
    from mpigen.render.stamp import stamp
    from mpigen.render.workers import new_worker

    job = with_defaults(job)
    objects = [new_config_map(job), new_launcher_service_account(job), new_launcher_role(job),
               new_launcher_role_binding(job)]
    if job.workers > 0:
        worker = new_worker(job)
        if worker is not None:
            objects.append(worker)
    objects.append(new_launcher(job, options.kubectl_delivery_image))
    return [stamp(obj, job) for obj in objects]


def render_job(job: MPIJob, options: Options) -> list[dict]:
    if options.target != "static":
        raise ValueError(f"unknown target {options.target!r}")
    return static_objects(job, options)
