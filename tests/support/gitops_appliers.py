"""How each way of applying a render reaches the objects of a namespace
(tests.support.kueue_lifecycle.Namespace): which objects it creates, updates or deletes, and
what an update sends. Each from its source:

- Argo CD, as mpigen's Application asks (syncPolicy.automated with prune and selfHeal,
  syncOptions ServerSideApply for custom resources: mpigen.render.kueue): every object of
  Git is applied (self-heal re-applies it), a custom resource server-side; every object of the
  Application that Git no longer has is deleted (prune; argo-cd gitops-engine
  pkg/sync/sync_context.go, a resource live but not in Git is pruned when Prune is set);
- Flux (kustomize-controller v1.9.4): a forced server-side apply of every object, but one that
  exists whose object in Git carries kustomize.toolkit.fluxcd.io/ssa: IfNotPresent (fluxcd/pkg
  ssa/v0.76.1 ssa/manager_apply.go shouldSkipApply: the annotation of the desired object is
  read); the objects of the last inventory that the new render lacks are deleted when the
  Kustomization has `prune: true` (internal/controller/kustomization_controller.go prune);
- kubectl apply: creates or patches what it is given and deletes nothing.

A server-side apply of a manager sets the fields it sends (kueue_admission.server_side_applied)
and removes the labels and annotations (granular maps, one field each) it sent before and
sends no more: their ownership was its alone. A client-side apply is kubectl's three-way merge
(kueue_admission.merge_patch_applied, last-applied as the third side).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from tests.support.kueue_admission import merge_patch_applied, server_side_applied
from tests.support.kueue_lifecycle import Namespace, Refused

FLUX_SSA = "kustomize.toolkit.fluxcd.io/ssa"
SYNC_OPTIONS = "argocd.argoproj.io/sync-options"


def _key(obj: dict) -> tuple[str, str]:
    return obj["kind"], obj["metadata"]["name"]


def _server_side(live: dict, applied: dict, before: dict | None) -> dict:
    out = server_side_applied(copy.deepcopy(live), copy.deepcopy(applied))
    for where in ("labels", "annotations"):
        sent = set((applied["metadata"].get(where) or {}))
        for key in set(((before or {}).get("metadata", {}).get(where) or {})) - sent:
            out["metadata"].get(where, {}).pop(key, None)
    return out


@dataclass
class Applier:
    """One applier of one folder: `how` is argocd, flux or kubectl; `prune` as its object says."""

    how: str
    prune: bool = True
    applied: dict = field(default_factory=dict)  # what it last sent per object (managed fields, last-applied)
    refusals: list = field(default_factory=list)  # the API server's refusals of its updates

    def apply(self, namespace: Namespace, render: list[dict]) -> None:
        wanted = {_key(obj): obj for obj in render}
        for key, obj in wanted.items():
            live = namespace.objects.get(key)
            if live is None:
                namespace.create(obj)
            elif not (self.how == "flux" and obj["metadata"].get("annotations", {}).get(FLUX_SSA) == "IfNotPresent"):
                self._update(namespace, live, obj)
            self.applied[key] = copy.deepcopy(obj)
        if self.how != "kubectl" and self.prune:
            for key in [k for k in self.applied if k not in wanted]:
                namespace.delete(key)
                del self.applied[key]

    def _update(self, namespace: Namespace, live: dict, obj: dict) -> None:
        before = self.applied.get(_key(obj))
        server_side = self.how == "flux" or "ServerSideApply=true" in obj["metadata"].get(
            "annotations", {}).get(SYNC_OPTIONS, "")
        if server_side:
            new = _server_side(live, obj, before)
        else:
            new = merge_patch_applied(before or obj, obj, live)
        try:
            namespace.update(new)
        except Refused as refused:
            self.refusals.append(str(refused))
