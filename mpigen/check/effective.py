"""The pods as they will run: each role's pod template after podTemplatePatch and overlays,
read from the compiled MPIJob, with the facts the targets' checks judge (user, groups, host
network, ports) and, for each, the blueprint line that set it.

A check that reads a blueprint field (spec.security.runAsUser) misses the same value set
through spec.podTemplatePatch, and a check that reads the patch misses the field: compile
writes both into one pod template, so the checks read that. Where a value came from is
found by the order compile writes in (mpigen.compile.blueprint): the blueprint's field
first, the role's pod patch over it, and the container's securityContext over the pod's at
run time (Kubernetes: a container's setting wins). The document is the one after overlays,
so a value an overlay wrote is marked in the overlay's file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from mpigen.compile.mpijob import LAUNCHER, WORKER, MPIJob
from mpigen.errors import Mark
from mpigen.kube.labels import EXCLUSIVE_LABEL
from mpigen.load.document import Document, Loc, field_path

ROLE_PATHS = {LAUNCHER: "launcher", WORKER: "worker"}  # a role as the blueprint's fields name it
PODS_OF_ROLE = {"launcher": "the launcher", "worker": "the workers"}  # a role's pods as a message names them
HOST_NETWORK_DNS = "ClusterFirstWithHostNet"  # the only policy under which a host-network pod resolves cluster names


@dataclass(frozen=True)
class Stated:
    """A value of the pod as it will run, and the blueprint location that set it (None: no
    one did, and the value is Kubernetes' or the image's default)."""

    value: Any
    origin: Loc | None = None

    @property
    def where(self) -> str:
        """The location as a message names it."""
        return field_path(self.origin) if self.origin else ""


@dataclass(frozen=True)
class Port:
    """A port of the main container that the blueprint declares (through its patch)."""

    name: str | None
    number: Any
    protocol: str
    origin: Loc
    host: Any = None  # hostPort (None or 0: none)


@dataclass(frozen=True)
class EffectivePod:
    """One role's pod as it will run (before the target's own additions)."""

    role: str  # as the blueprint names it: launcher, worker
    rank: bool  # it runs MPI ranks: the workers, and the launcher with spec.launcher.runAsWorker
    spec: dict  # the compiled pod spec (read only)
    user: Stated  # runAsUser (None: the image's user)
    group: Stated  # runAsGroup
    fs_group: Stated  # the pod's fsGroup
    run_as_non_root: Stated  # runAsNonRoot
    host_network: Stated  # bool
    dns_policy: Stated  # None: Kubernetes' default, ClusterFirst
    one_per_node: bool  # compile keeps the role's rank pods one per node (spec.placement.worker.onePodPerNode)
    ports: tuple[Port, ...]

    @property
    def non_root(self) -> bool:
        """Whether the main container runs as a user other than root: a non-zero runAsUser, or
        runAsNonRoot, which makes the kubelet refuse an image whose user is root."""
        return self.user.value not in (None, 0) or (self.user.value is None and self.run_as_non_root.value is True)

    @property
    def identity(self) -> Stated:
        """What decides the user, for a message: runAsUser where stated, else runAsNonRoot."""
        return self.user if self.user.value is not None else self.run_as_non_root

    def mark(self, doc: Document, stated: Stated, fallback: Loc) -> Mark:
        """Where a problem with a stated value is reported: its own line, else the field that
        would set it."""
        return doc.value_mark(stated.origin or fallback)


@dataclass(frozen=True)
class EffectivePods:
    """The launcher's and the workers' pods of one job, as they will run."""

    launcher: EffectivePod
    worker: EffectivePod

    def __iter__(self) -> Iterator[EffectivePod]:
        return iter((self.launcher, self.worker))


def effective_pods(doc: Document, job: MPIJob) -> EffectivePods:
    """Both roles' pods of a compiled job, each value with the line of `doc` that set it."""
    runs_ranks = job.extensions.runLauncherAsWorker
    return EffectivePods(launcher=_pod(doc, job, LAUNCHER, runs_ranks), worker=_pod(doc, job, WORKER, True))


def _pod(doc: Document, job: MPIJob, role: str, rank: bool) -> EffectivePod:
    template = job.spec.mpiReplicaSpecs[role].template
    pod = template.get("spec", {})
    name = ROLE_PATHS[role]
    patch: Loc = ("spec", "podTemplatePatch", name)
    container = pod["containers"][0]
    # Most roles have no patch: then no value of the pod is the patch's, and none is looked up there.
    stated = partial(_stated, doc) if doc.get(patch) is not None else partial(_stated, doc, patched_role=False)

    def security(key: str, field: Loc | None) -> Stated:
        own = container.get("securityContext", {})
        if own.get(key) is not None:  # only the container's patch writes identity into the container
            return Stated(own[key], patch + ("container", "securityContext", key))
        return stated(pod.get("securityContext", {}).get(key), patch + ("pod", "securityContext", key), field)

    host = ("spec", "network", "hostNetwork")
    ports = tuple(Port(p.get("name"), p.get("containerPort"), p.get("protocol", "TCP"), patch + ("container", "ports", i),
                       p.get("hostPort")) for i, p in enumerate(container.get("ports", [])) if isinstance(p, dict))
    return EffectivePod(
        role=name, rank=rank, spec=pod,
        user=security("runAsUser", ("spec", "security", "runAsUser")),
        group=security("runAsGroup", ("spec", "security", "runAsGroup")),
        fs_group=stated(pod.get("securityContext", {}).get("fsGroup"), patch + ("pod", "securityContext", "fsGroup"),
                        ("spec", "security", "fsGroup")),
        run_as_non_root=security("runAsNonRoot", ("spec", "security", "runAsNonRoot")),
        host_network=stated(pod.get("hostNetwork", False), patch + ("pod", "hostNetwork"), host),
        dns_policy=stated(pod.get("dnsPolicy"), patch + ("pod", "dnsPolicy"), host),
        one_per_node=template.get("metadata", {}).get("labels", {}).get(EXCLUSIVE_LABEL) == "true",
        ports=ports)


def written_at(doc: Document, patched: Loc, field: Loc) -> Loc:
    """Where a value of a role's pod is written: the role's podTemplatePatch when it writes
    it, else the blueprint's own field."""
    return patched if doc.get(patched) is not None else field


def _stated(doc: Document, value: Any, patched: Loc, field: Loc | None, patched_role: bool = True) -> Stated:
    """A pod value with its origin: the patch when it writes the value, else the blueprint's
    field when it states one (None: the value is a default). `patched_role`: False when the
    role has no patch at all."""
    if patched_role and doc.get(patched) is not None:
        return Stated(value, patched)
    stated = doc.get(field) if field is not None else None
    if stated is not None and stated is not False:  # 0 is stated
        return Stated(value, field)
    return Stated(value)


def set_by(stated: Stated) -> str:
    """For a message about a blueprint field, the patch that set the value instead, if one did
    (" (set by spec.podTemplatePatch.worker.pod.hostNetwork)"); nothing when the field did."""
    if stated.origin and stated.origin[:2] == ("spec", "podTemplatePatch"):
        return f" (set by {stated.where})"
    return ""


def sharing(pods: Iterable[EffectivePod], stated: Callable[[EffectivePod], Stated]) -> list[tuple[EffectivePod, str]]:
    """The pods grouped by the line that set the value `stated` picks of each (both roles'
    pods often share the blueprint's line): the first pod of each group, and the group as a
    message names it ("the launcher", "the workers", "the launcher and the workers")."""
    groups: dict[Loc | None, list[EffectivePod]] = {}
    for pod in pods:
        groups.setdefault(stated(pod).origin, []).append(pod)
    return [(group[0], " and ".join(PODS_OF_ROLE[pod.role] for pod in group)) for group in groups.values()]
