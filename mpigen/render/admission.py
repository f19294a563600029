"""What Kueue writes into a job's objects once they are created, and how each GitOps profile
re-applies those objects without undoing it.

Kueue admits a workload by merging the flavour it chose into the pod templates of the job's
object and unsuspending it, and puts the templates back when it stops the job
(kubernetes-sigs/kueue v0.19.2: pkg/podset/podset.go Merge and RestorePodSpec, called by each
integration's RunWithPodSetsInfo and RestorePodSetsInfo). Merge writes exactly five fields of
each template: its labels and annotations, nodeSelector, tolerations and schedulingGates
(ADMITTED_FIELDS). Once the job runs, the object's own rules keep them as Kueue wrote them: a
JobSet refuses any change to spec.replicatedJobs unless it is suspended or being suspended
(kubernetes-sigs/jobset v0.12.0, pkg/webhooks/jobset_webhook.go ValidateUpdate), a started
Job any change to its template (Kubernetes' Job validation), and an MPIJob takes the change,
after which Kueue no longer finds the job equal to its workload and stops it.

A GitOps controller re-applying the render as Git has it would write the templates back:
- a client-side apply of a custom resource is a JSON merge patch (no strategic merge for
  custom resources), whose lists go whole: `spec.replicatedJobs` with the templates of Git;
- a server-side apply (Argo CD and Flux both force conflicts) puts back an atomic map or list
  whole: a nodeSelector or tolerations of the blueprint's own, without the flavour's.

So, for every object Kueue admits (the kind's `admission` fact, mpigen.render.kinds):
- argocd: its Application ignores the admitted fields (ignoreDifferences with `ignored_paths`,
  RespectIgnoreDifferences=true: Argo CD neither diffs them nor applies them, it copies their
  live values into what it applies: argo-cd v3.5, controller/sync.go normalizeTargetResources),
  and a custom resource is applied server-side, so that an apply sends the fields Git has and
  not a list whose unchanged entries the API server must compare whole;
- flux: Flux has no ignore rule, so a running object carries `ssa: IfNotPresent` (Flux creates
  it and then leaves it: fluxcd/kustomize-controller's "resources later mutated by other
  controllers"); a suspended one (`completed`) carries none, so that Git's suspend applies: a
  JobSet being suspended may change its templates, and Kueue restores its own fields as it
  stops the job.
"""

from __future__ import annotations

from mpigen.kube.labels import ARGOCD_SYNC_OPTIONS, FLUX_SSA
from mpigen.kube.values import get
from mpigen.render.kinds import Admission

# pkg/podset/podset.go (kueue v0.19.2) Merge: the fields of a pod template it writes.
ADMITTED_FIELDS = ("metadata.labels", "metadata.annotations", "spec.nodeSelector", "spec.tolerations",
                   "spec.schedulingGates")
SERVER_SIDE_APPLY = "ServerSideApply=true"


def ignored_paths(admission: Admission) -> tuple[str, ...]:
    """The jq paths of every field Kueue writes into the object (Argo CD's jqPathExpressions)."""
    return tuple(f"{template}.{field}" for template in admission.templates for field in ADMITTED_FIELDS)


def suspended(obj: dict, admission: Admission) -> bool:
    """Whether the object, as written, is suspended (Kueue's IsSuspended)."""
    return get(obj, *admission.suspend) is True


def reapplied_safely(obj: dict, admission: Admission, gitops: str) -> None:
    """The annotations that keep the profile's controller from undoing Kueue's admission."""
    annotations = obj["metadata"].setdefault("annotations", {})
    if gitops == "argocd" and admission.merge_patch:
        options = [o for o in annotations.get(ARGOCD_SYNC_OPTIONS, "").split(",") if o]
        if SERVER_SIDE_APPLY not in options:
            annotations[ARGOCD_SYNC_OPTIONS] = ",".join([*options, SERVER_SIDE_APPLY])
    elif gitops == "flux" and not suspended(obj, admission):
        annotations[FLUX_SSA] = "IfNotPresent"
    if not annotations:
        del obj["metadata"]["annotations"]
