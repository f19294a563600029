"""What a diff is made of: the key that identifies an object on a cluster, one object of a
render (Manifest), one field that differs, one object that changed, one change the API
server refuses (Finding), and everything that changes for one job (JobDiff)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mpigen.errors import Mark
from mpigen.kube.values import ABSENT


@dataclass(frozen=True, order=True)
class ObjectKey:
    """What identifies an object on a cluster; the field order is the report's sort order."""

    environment: str
    namespace: str
    kind: str
    name: str
    api_version: str

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}" if self.namespace else f"{self.kind} {self.name}"


@dataclass
class Manifest:
    """One object of a render, with the file and position it was read from."""

    key: ObjectKey
    data: dict
    path: str  # relative to the output folder
    mark: Mark


@dataclass
class FieldChange:
    """One leaf that differs; old or new is ABSENT when the field is added or removed."""

    path: str
    old: Any
    new: Any
    op: str = ""  # add, remove, change or reorder

    def __post_init__(self):
        if not self.op:
            self.op = "add" if self.old is ABSENT else "remove" if self.new is ABSENT else "change"


@dataclass
class ObjectChange:
    """An object both renders have, with the fields that differ."""

    key: ObjectKey
    path: str
    fields: list[FieldChange]


@dataclass
class Finding:
    """A change Kubernetes refuses to apply in place; for one a blueprint field makes (a label
    Kueue keeps), that field and where it is written."""

    key: ObjectKey
    path: str
    message: str
    field: str = ""              # the blueprint field, as the diff writes paths: spec.scheduling.queue
    loc: tuple[str, ...] = ()    # its keys in the blueprint document
    blueprint: Mark | None = None  # the blueprint file the object was rendered from, or the field's line in it

    def said(self) -> str:
        """The message, after the blueprint field that makes the change and where it is
        (`PATH:LINE:COLUMN: FIELD: ...`, as a diagnostic names a position)."""
        if not self.field:
            return self.message
        return f"{self.blueprint}: {self.field}: {self.message}" if self.blueprint is not None \
            else f"{self.field}: {self.message}"


@dataclass
class JobDiff:
    """What changes for one job (environment, namespace, job label): reviewers think in runs."""

    environment: str
    namespace: str
    job: str
    added: list[Manifest] = field(default_factory=list)
    removed: list[Manifest] = field(default_factory=list)
    changed: list[ObjectChange] = field(default_factory=list)
    immutable: list[Finding] = field(default_factory=list)
    gpus: tuple[int, int] = (0, 0)
    slots: tuple[int, int] = (0, 0)
    workers: tuple[int, int] = (0, 0)
    new_run: bool = False
    ends_run: bool = False
    restarts_workers: bool = False

    def title(self) -> str:
        where = "/".join(part for part in (self.namespace, self.job) if part)
        title = f"job {where}" if self.job else "other objects" + (f" in {self.namespace}" if self.namespace else "")
        return title + (f" (env {self.environment})" if self.environment else "")

    def slots_per_worker_change(self) -> bool:
        """Whether the slots changed other than by the number of workers (a worker's slots
        changed, as gpusPerWorker or slotsPerWorker change them, or a side has no workers)."""
        (old_slots, new_slots), (old_workers, new_workers) = self.slots, self.workers
        if old_slots == new_slots:
            return False
        return not old_workers or not new_workers or old_slots * new_workers != new_slots * old_workers
