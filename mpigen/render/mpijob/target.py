"""Target `mpijob`: the MPIJob resource (mpigen.render.mpijob.resource), for clusters that
run an operator. Under a GitOps profile it is named per run, as the static target's
objects are (mpigen.render.parts.gitops); `completed` suspends it, so the operator deletes its
pods and the GPUs are released. The operator creates the pods, so Flux applies it in one step."""

from __future__ import annotations

import importlib
from types import ModuleType

from mpigen.compile.mpijob import MPIJob
from mpigen.decompile.port import Importer
from mpigen.render.parts import gitops
from mpigen.render.mpijob import checks, kinds
from mpigen.render.mpijob.options import OPTIONS, with_crd
from mpigen.render.mpijob.resource import new_mpijob
from mpigen.render.mpijob.watched import watched
from mpigen.render.parts.additions import Additions, addition_objects
from mpigen.render.parts.stamp import stamp
from mpigen.render.target import Lifecycle, Options, Target

OWN_ACCOUNTS = Additions(launcher_service_account=False)  # the operator's launcher has none of mpigen's


def decompiler() -> ModuleType:
    """The MPIJob decompiler, which `mpigen import` alone loads (rendering loads no decompiler)."""
    from mpigen.decompile import mpijob
    return mpijob


# MPIJob manifests of the operator's three generations (v1alpha2 ones render under the default target).
IMPORTER = Importer(kind="MPIJob", group="kubeflow.org", article="an", decompiler=decompiler)


def render(job: MPIJob, options: Options, lifecycle: Lifecycle) -> list[dict]:
    def mpijob_objects(instance: MPIJob, run: str | None) -> list[dict]:
        return [new_mpijob(instance, options.own.api, lifecycle.ttl_seconds_after_finished),
                *addition_objects(instance)]

    objects, run = gitops.run_objects(job, lifecycle, options.gitops, mpijob_objects, OWN_ACCOUNTS)
    for obj in objects:
        if obj["kind"] == "MPIJob" and lifecycle.state == "completed":  # not part of the run: the same MPIJob
            obj["spec"]["runPolicy"]["suspend"] = True
    return [stamp(obj, job, job.metadata.name, run, templates=options.gitops == "none") for obj in objects]


def environment_objects(options: Options) -> list[tuple[dict, str]]:
    """With --with-crd, the MPIJob CRD, once per environment (mpigen.render.mpijob.crd)."""
    return [importlib.import_module(kinds.CRD).environment_crd(options)] if with_crd(options) else []


def libraries(options: Options) -> tuple[str, ...]:
    """The CRD's pod template schema is kubernetes-validate's data."""
    return (importlib.import_module(kinds.CRD).SCHEMAS_LIBRARY,) if with_crd(options) else ()


MPIJOB = Target(name="mpijob", render=render, checks=checks.checks, reserved=checks.RESERVED,
                environment_objects=environment_objects, libraries=libraries, options=OPTIONS,
                health_checks=("docs/argocd/mpijob-health.yaml", "docs/flux/mpijob-health.yaml"),
                importer=IMPORTER, kinds=kinds.KINDS, watched=watched)
