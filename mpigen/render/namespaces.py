"""The Namespace objects of an environment's jobs (`createNamespaces: true` in mpigen.yaml or
an overlay): one per namespace its rendered objects use, so that the first sync on a new
cluster finds them. Off by default: most clusters' namespaces belong to the platform team.

- Pod Security: with `podSecurity`, the label pod-security.kubernetes.io/enforce at that level
  and enforce-version at --kube-version, the level and version mpigen checked every pod
  against (mpigen.kube.pod_security), so that the namespace enforces what the render checked.
- Never pruned: a Namespace deleted takes everything in it (the job's data claims, objects of
  other tools), so when a namespace leaves the render the controller keeps it: Argo CD's
  `Prune=false,Delete=false` sync options (argo-cd docs/user-guide/sync-options.md), Flux's
  `kustomize.toolkit.fluxcd.io/prune: disabled` (kustomize-controller's deleteObjects skips it).
- Applied first: Helm's install order puts Namespace before every kind mpigen writes
  (mpigen.emit.install_order), kubectl and Flux apply Namespaces before the rest of a
  Kustomization, and under Argo CD it is in sync wave -2, before the -1 of the jobs'
  configuration (a wave's objects in kind order: gitops-engine pkg/sync/sync_tasks.go).
  Where Flux applies a job in steps, the Kustomization of the namespaces (STEP) comes first
  (mpigen.emit.companions).

Argo CD's `CreateNamespace=true` is no substitute: it creates only the Application's
`spec.destination.namespace` (gitops-engine pkg/sync/sync_context.go autoCreateNamespace, run
only when that namespace is set), which mpigen's Applications leave empty, as an
environment's jobs may use several namespaces.
"""

from __future__ import annotations

from mpigen.kube.labels import ARGOCD_SYNC_OPTIONS, ARGOCD_SYNC_WAVE, FLUX_PRUNE, MANAGED_BY
from mpigen.render.target import Options

STEP = "namespaces"  # under flux, the folder (and Kustomization) of an environment's Namespaces
ENFORCE = "pod-security.kubernetes.io/enforce"
ENFORCE_VERSION = "pod-security.kubernetes.io/enforce-version"
WAVE = "-2"
# The same in every environment: environments on one cluster share its Namespaces (the folder of
# the cluster's objects, mpigen.pipeline.assembly), which must be the same bytes in each.
COMMENT = "Source: mpigen createNamespaces, a namespace the jobs use (docs/gitops.md)"


def namespace_objects(namespaces: list[str], options: Options) -> list[tuple[dict, str]]:
    """A Namespace, and its `# Source:` comment, per namespace of `namespaces`, in their order."""
    labels = {MANAGED_BY: "mpigen"}
    if options.pod_security is not None:
        labels.update({ENFORCE: options.pod_security, ENFORCE_VERSION: f"v{options.kube_version}"})
    annotations = {}
    if options.gitops == "argocd":
        annotations = {ARGOCD_SYNC_WAVE: WAVE, ARGOCD_SYNC_OPTIONS: "Prune=false,Delete=false"}
    elif options.gitops == "flux":
        annotations = {FLUX_PRUNE: "disabled"}
    out = []
    for name in namespaces:
        meta = {"name": name, "labels": dict(labels)}
        if annotations:
            meta["annotations"] = dict(annotations)
        out.append(({"apiVersion": "v1", "kind": "Namespace", "metadata": meta}, COMMENT))
    return out
