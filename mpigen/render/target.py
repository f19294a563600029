"""What a target is: the interface every target package fills in, and what it is given.

A target turns the compiled MPIJob of one job into Kubernetes objects, and says what it
cannot render (its checks), which names it writes into the pods (its reserved names), how
it behaves under a GitOps profile, and where the health checks of its objects are. Adding
a target is a package under mpigen/render/ that defines one Target, and one line in the
table of mpigen.render.targets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

from mpigen.check.effective import EffectivePods
from mpigen.compile.mpijob import MPIJob
from mpigen.decompile.port import Importer
from mpigen.errors import Diagnostic, Mark
from mpigen.formats.blueprint import Blueprint
from mpigen.formats.monitoring import Monitoring
from mpigen.formats.versions import DEFAULT_KUEUE_VERSION, DEFAULT_TRAINER_VERSION
from mpigen.load.document import Document
from mpigen.render.kinds import Kind
from mpigen.render.watched import Watched
from mpigen.validate.reserved import Reserved

DEFAULT_KUBE_VERSION = "1.30"  # of --kube-version: the MPIJob CRD's pod template schema


@dataclass(frozen=True)
class Options:
    """How to render: the CLI's --target/--gitops/--kube-version, and the options of the
    environment's target, of the type its TargetOptions builds."""

    target: str  # a name in the table (mpigen.render.targets); its first is the default
    gitops: str = "none"
    kube_version: str = DEFAULT_KUBE_VERSION  # the Kubernetes version the output is for
    own: Any = None  # the target's own options (None: its defaults, filled in by mpigen.render.targets)
    pod_security: str | None = None  # the Pod Security level the namespaces enforce (None: no check)
    create_namespaces: bool = False  # write the Namespace objects of the environment's jobs (mpigen.render.namespaces)
    monitoring: Monitoring | None = None  # the environment's alerts (mpigen.monitoring.prometheus_rule; None: none)
    trainer_version: str = DEFAULT_TRAINER_VERSION  # the clusters' Kubeflow Trainer (mpigen.formats.versions)
    kueue_version: str = DEFAULT_KUEUE_VERSION  # the clusters' Kueue (mpigen.formats.versions)
    # The Target of that name, resolved once (mpigen.render.targets.resolved: the run's settings
    # carry resolved options); not part of the options' value (their repr is a cache key).
    definition: Target | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Flag:
    """A command-line flag a target adds to every command that renders (not given: None)."""

    name: str  # e.g. --with-crd
    help: str
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    switch: bool = False  # takes no value: True when given

    @property
    def dest(self) -> str:
        """The attribute argparse parses it into."""
        return self.name.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class Setting:
    """One of a target's options: the field of its typed options, and where a run reads it;
    the first given wins: the flag, the overlay's key (or its nearest base's), mpigen.yaml's key."""

    field: str
    flag: Flag | None = None
    config_key: str | None = None  # in mpigen.yaml (mpigen.formats.config)
    overlay_key: str | None = None  # in an overlay (mpigen.formats.overlay)


def no_options(given: Mapping[str, Any]) -> None:
    """The options of a target that has none of its own."""
    return None


def no_check(given: Mapping[str, Any], options: Options) -> None:
    """Nothing refused."""


@dataclass(frozen=True)
class TargetOptions:
    """What a target adds to a run's options: its line of --target's help, its settings, the
    typed options it builds from the values given (by field; a field not given is absent),
    what it refuses of the values given whatever the target of the run (raises InputError),
    and who runs its jobs in the cluster, a line for a user choosing a target (README.md's
    table of targets: tests/support/readme_targets.py)."""

    help: str
    settings: tuple[Setting, ...] = ()
    build: Callable[[Mapping[str, Any]], Any] = no_options
    check: Callable[[Mapping[str, Any], Options], None] = no_check
    who_runs: str = ""


@dataclass(frozen=True)
class Lifecycle:
    """What the blueprint says about the job's life in Git, beyond the MPIJob itself."""

    state: str = "running"
    run: str | None = None
    ttl_seconds_after_finished: int | None = None


@dataclass(frozen=True)
class FluxSteps:
    """Under the flux profile, the folders a target's objects are applied from, in order:
    each is a kustomize root applied by a Flux Kustomization of its own, which depends on the
    one before it; every step but the last is waited on (its objects healthy before the next
    applies), the last is not (a training run outlasts any timeout). The steps are a job's
    (<namespace>/<job>/<step>/, the object's file alone) or the environment's (<step>/, the
    object's path kept), for what the jobs share."""

    steps: tuple[str, ...]
    per_job: bool
    step_of: Callable[[dict], str]  # the step an object of the target's is applied in


def _none(options: Options) -> list[tuple[dict, str]]:
    return []


def _nothing_expected(doc: Document, blueprint: Blueprint, options: Options) -> list[tuple[dict, Mark]]:
    return []


def _nothing_named(doc: Document, blueprint: Blueprint, options: Options) -> list[tuple[dict, str, Mark]]:
    return []


def _no_libraries(options: Options) -> tuple[str, ...]:
    return ()


def _never(obj: dict) -> bool:
    return False


def _unwatched(objects: list[dict]) -> Watched | None:
    return None


@dataclass(frozen=True)
class Target:
    """One target. Its render function gets every job that is not archived (an archived job
    renders nothing, whatever the target) and does the GitOps profile's part too: run
    identity (mpigen.render.parts.gitops), start order, and what `completed` releases."""

    name: str
    # The objects of one job, in the order the target creates them.
    render: Callable[[MPIJob, Options, Lifecycle], list[dict]]
    # What the target cannot render, for a blueprint valid as such: diagnostics in its file;
    # what it judges of the pods, it judges on the pods as they will run (mpigen.check.effective).
    checks: Callable[[Document, Blueprint, Options, EffectivePods], list[Diagnostic]]
    # Volumes, mount paths, variables and label keys its objects write into the pods.
    reserved: Reserved
    # Under the flux profile, the steps its objects are applied in (None: one folder, applied as it is).
    flux: FluxSteps | None = None
    # Objects rendered once per environment, whatever its jobs, each with its `# Source:` comment.
    environment_objects: Callable[[Options], list[tuple[dict, str]]] = _none
    # The installed distributions whose data its objects hold under these options (cache keys hold their versions).
    libraries: Callable[[Options], tuple[str, ...]] = _no_libraries
    # An object the running job scales itself (the static workers, scaled to 0 by the launcher
    # once mpirun succeeds): Argo CD must leave its replicas alone (ignoreDifferences).
    scales_itself: Callable[[dict], bool] = _never
    # Its custom resources that other objects need first (a Trainer runtime before its
    # TrainJobs), applied before other custom resources, in this order.
    applied_first: tuple[str, ...] = ()
    # The health checks that judge its objects for Argo CD (Lua) and Flux (CEL), as shipped
    # (paths in the repository); none where the controllers know the kinds already.
    health_checks: tuple[str, ...] = ()
    # Its options: its --target help, flags, mpigen.yaml and overlay keys, and typed options.
    options: TargetOptions = TargetOptions("")
    # The manifests `mpigen import` turns into blueprints for it, and the decompiler that reads them.
    importer: Importer | None = None
    # The objects its output references that the cluster must have already (the runtime a
    # TrainJob names), each as its kind and metadata, with the blueprint's position that names it.
    expects: Callable[[Document, Blueprint, Options], list[tuple[dict, Mark]]] = _nothing_expected
    # The objects it writes whose name a blueprint field other than metadata.name gives (the
    # runtime spec.runtime.name names), each as its kind and metadata, with that field and its
    # position: two jobs that write one are told to change that field, there.
    names: Callable[[Document, Blueprint, Options], list[tuple[dict, str, Mark]]] = _nothing_named
    # The kinds it writes beyond Kubernetes' own (mpigen.render.kinds), with what diff
    # and validate --server need to know of them (mpigen.render.kinds).
    kinds: tuple[Kind, ...] = ()
    # The name it gives the MPI container, where it renames it (None: the compiled name, its
    # mainContainer or podTemplatePatch's containerName, else mpi-launcher and mpi-worker).
    main_container: str | None = None
    # What the alerts of a job watch, from the objects it rendered for it (mpigen.render.watched):
    # the batch Jobs and pods its objects make the cluster run (None: no alerts for its jobs).
    watched: Callable[[list[dict]], Watched | None] = _unwatched
