"""Target `mpijob`: the MPIJob resource (mpigen.render.mpijob.resource), for clusters that
run an operator. Under a GitOps profile it is named per run, as the static target's
objects are (mpigen.render.gitops); `completed` suspends it, so the operator deletes its
pods and the GPUs are released. The operator creates the pods, so Flux applies it in one step."""

from __future__ import annotations

from mpigen.compile.mpijob import MPIJob, with_defaults
from mpigen.render import gitops
from mpigen.render.additions import addition_objects, with_additions
from mpigen.render.importer import Importer
from mpigen.render.mpijob import checks
from mpigen.render.mpijob import kinds
from mpigen.render.mpijob.crd import SCHEMAS_LIBRARY, environment_crd, with_crd
from mpigen.render.mpijob.options import OPTIONS
from mpigen.render.mpijob.resource import new_mpijob
from mpigen.render.stamp import stamp
from mpigen.render.target import Lifecycle, Options, Target

# MPIJob manifests of the operator's three generations (v1alpha2 ones render under the default target).
IMPORTER = Importer(kind="MPIJob", group="kubeflow.org", article="an", module="mpigen.importer.manifest")


def render(job: MPIJob, options: Options, lifecycle: Lifecycle) -> list[dict]:
    base = job if options.gitops == "none" else gitops.without_template_metadata(job)

    def run_objects(instance: MPIJob) -> list[dict]:
        instance = with_defaults(with_additions(instance, launcher_service_account=False))
        obj = new_mpijob(instance, options.own.api, lifecycle.ttl_seconds_after_finished)
        if lifecycle.state == "completed":
            obj["spec"]["runPolicy"]["suspend"] = True
        return [obj, *addition_objects(instance)]

    run = None
    objects = run_objects(base)
    if options.gitops != "none":
        run = gitops.run_id(objects, lifecycle.run)
        objects = run_objects(gitops.instance(base, run))
    return [stamp(obj, base, job.metadata.name, run, templates=options.gitops == "none") for obj in objects]


def environment_objects(options: Options) -> list[tuple[dict, str]]:
    """With --with-crd, the MPIJob CRD, once per environment (mpigen.render.mpijob.crd)."""
    return [environment_crd(options)] if with_crd(options) else []


def libraries(options: Options) -> tuple[str, ...]:
    """The CRD's pod template schema is kubernetes-validate's data."""
    return (SCHEMAS_LIBRARY,) if with_crd(options) else ()


MPIJOB = Target(name="mpijob", render=render, checks=checks.checks, reserved=checks.RESERVED,
                environment_objects=environment_objects, libraries=libraries, options=OPTIONS,
                health_checks=("docs/argocd/mpijob-health.yaml", "docs/flux/mpijob-health.yaml"),
                importer=IMPORTER, kinds=kinds.KINDS)
