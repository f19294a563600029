"""What a target is: the interface every target package fills in, and what it is given.

A target turns the compiled MPIJob of one job into Kubernetes objects, and says what it
cannot render (its checks), which names it writes into the pods (its reserved names), how
it behaves under a GitOps profile, and where the health checks of its objects are. Adding
a target is a package under mpigen/render/ that defines one Target, and one line in the
table of mpigen.render.targets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable

from mpigen.compile.mpijob import MPIJob
from mpigen.errors import Diagnostic
from mpigen.formats.blueprint import Blueprint
from mpigen.load.document import Document
from mpigen.validate.reserved import Reserved

DEFAULT_KUBE_VERSION = "1.30"  # of --kube-version: the MPIJob CRD's pod template schema


@dataclass(frozen=True)
class Options:
    """How to render: the CLI's --target/--gitops/--kube-version, and the options of the
    environment's target, of the type its TargetOptions builds."""

    target: str = "static"
    gitops: str = "none"
    kube_version: str = DEFAULT_KUBE_VERSION  # the Kubernetes version the output is for
    own: Any = None  # the target's own options (None: its defaults, filled in by mpigen.render.targets)


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
    and what it refuses of the values given whatever the target of the run (raises InputError)."""

    help: str
    settings: tuple[Setting, ...] = ()
    build: Callable[[Mapping[str, Any]], Any] = no_options
    check: Callable[[Mapping[str, Any], Options], None] = no_check


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
    # Its options: its --target help, flags, mpigen.yaml and overlay keys, and typed options.
    options: TargetOptions = TargetOptions("")
