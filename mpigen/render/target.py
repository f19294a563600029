"""What a target is: the interface every target package fills in, and what it is given.

A target turns the compiled MPIJob of one job into Kubernetes objects, and says what it
cannot render (its checks), which names it writes into the pods (its reserved names), how
it behaves under a GitOps profile, and where the health checks of its objects are. Adding
a target is a package under mpigen/render/ that defines one Target, and one line in the
table of mpigen.render.targets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from mpigen.compile.mpijob import V2BETA1, MPIJob
from mpigen.errors import Diagnostic
from mpigen.formats.blueprint import Blueprint
from mpigen.formats.trainer import Runtime
from mpigen.load.document import Document
from mpigen.render.kinds import Kind
from mpigen.validate.reserved import Reserved

DEFAULT_KUBE_VERSION = "1.30"  # of --kube-version: the MPIJob CRD's pod template schema
# of --kubectl-delivery-image: the static launcher's init container, as the operator's deployment has it
DEFAULT_KUBECTL_DELIVERY_IMAGE = "mpioperator/kubectl-delivery:latest"


@dataclass(frozen=True)
class Options:
    """How to render: the CLI's --target/--gitops and the operator's own flags."""

    target: str = "static"
    gitops: str = "none"
    kubectl_delivery_image: str = DEFAULT_KUBECTL_DELIVERY_IMAGE
    mpijob_api: str = V2BETA1  # target mpijob: kubeflow.org/v2beta1 or kubeflow.org/v1
    with_crd: bool = False  # target mpijob: add the MPIJob CustomResourceDefinition
    kube_version: str = DEFAULT_KUBE_VERSION
    training_runtime: Runtime | None = None  # target trainjob: mpigen.yaml's or the overlay's default runtime


@dataclass(frozen=True)
class Lifecycle:
    """What the blueprint says about the job's life in Git, beyond the MPIJob itself."""

    state: str = "running"
    run: str | None = None
    ttl_seconds_after_finished: int | None = None


@dataclass(frozen=True)
class Target:
    """One target. Its render function gets every job that is not archived (an archived job
    renders nothing, whatever the target) and does the GitOps profile's part too: run
    identity (mpigen.render.gitops), start order, and what `completed` releases."""

    name: str
    # The objects of one job, in the order the target creates them.
    render: Callable[[MPIJob, Options, Lifecycle], list[dict]]
    # What the target cannot render, for a blueprint valid as such: diagnostics in its file.
    checks: Callable[[Document, Blueprint, Options], list[Diagnostic]]
    # Volumes, mount paths, variables and label keys its objects write into the pods.
    reserved: Reserved
    # Under a GitOps profile, the launcher is applied only once the workers are ready:
    # Argo CD sync waves, and (flux) a Kustomization for the workers and one for the launcher.
    staged: bool
    # The health checks that judge its objects for Argo CD (Lua) and Flux (CEL), as shipped
    # (paths in the repository); none where the controllers know the kinds already.
    health_checks: tuple[str, ...] = ()
    # The kinds it writes beyond Kubernetes' own (mpigen.render.core_kinds), with what diff
    # and validate --server need to know of them (mpigen.render.kinds).
    kinds: tuple[Kind, ...] = ()
