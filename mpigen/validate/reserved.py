"""What a blueprint may not name because a later stage writes it into the pods: volumes,
mount paths, launcher variables and label keys. The names come from the stages that write
them (mpigen.compile.reserved, mpigen.check.shared_rules and each target's checks, gathered in
mpigen.render.targets.RESERVED); the rules that refuse them are here and in
mpigen.validate.datasets.
"""

from __future__ import annotations

from dataclasses import dataclass

from mpigen.errors import Diagnostic, error
from mpigen.kube.labels import mpigens_own
from mpigen.load.document import field_path


@dataclass(frozen=True)
class Reserved:
    """Names a stage writes into the rendered pods and objects."""

    volumes: tuple[str, ...] = ()
    mounts: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()  # label keys, beside mpigen's own (mpigen.kube.labels)

    def __add__(self, other: Reserved) -> Reserved:
        """Both sets of names, in order, each once."""
        return Reserved(*(tuple(dict.fromkeys(getattr(self, key) + getattr(other, key)))
                          for key in ("volumes", "mounts", "env", "labels")))


def check_reserved_metadata(f, out: list[Diagnostic]) -> None:
    """The labels and annotations of every object (metadata) and of one role's pods
    (spec.podTemplatePatch.<role>.metadata) that mpigen or the operator write."""
    for base in (("metadata",), *(("spec", "podTemplatePatch", role, "metadata") for role in ("launcher", "worker"))):
        for where in ("labels", "annotations"):
            loc = base + (where,)
            if not f.ok(loc):
                continue
            for key in f.get(loc, {}) or {}:
                if mpigens_own(key) or (where == "labels" and key in f.reserved.labels):
                    out.append(error(f.doc.key_mark(loc + (key,)),
                                     f"{field_path(loc)}: key {key!r} is written by the MPI Operator or mpigen on the "
                                     "rendered objects; choose another key"))


def check_env(f, out: list[Diagnostic]) -> None:
    loc = ("spec", "env")
    if not f.ok(loc):
        return
    for name in f.get(loc, {}):
        if name in f.reserved.env:
            out.append(error(f.doc.key_mark(loc + (name,)),
                             f"spec.env: {name} is set by the MPI Operator on the launcher and would be "
                             "overridden; remove it"))
