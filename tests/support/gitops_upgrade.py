"""A cluster under Argo CD or Flux across an upgrade: what each controller does when Git's render
changes, and what Kubeflow Trainer does with the TrainJobs it already runs, each step ported
from its source.

- synced: one sync (Argo CD) or reconcile (Flux) of a render over the objects a cluster holds.
  Both create what the cluster lacks, change in place what differs, and delete what they
  applied before and the render no longer has: Argo CD prunes a resource whose target is nil
  (argoproj/gitops-engine 5baed56 pkg/sync/sync_task.go isPrune: `t.targetObj == nil`;
  sync_context.go pruneObject: DeleteResource, with `automated.prune: true`, which mpigen's
  Applications set: mpigen/emit/companions.py); Flux deletes the stale objects of the last
  inventory (fluxcd/kustomize-controller v1.9.4 internal/controller/kustomization_controller.go
  L493 `inventory.Diff(oldInventory, newInventory)`, then prune -> DeleteAll, with
  `prune: true`). An object the cluster keeps keeps its uid; a deleted TrainJob takes its
  JobSet and pods along (the JobSet's controller ownerReference, tests/support/e2e/trainer/
  jobset.py build_jobset).
- reconciled: one reconcile of a TrainJob by Trainer `version` (v2.3.0 pkg/controller/
  trainjob_controller.go Reconcile: reconcileObjects for every TrainJob not finished, suspended
  or not): the runtime read from its snapshot when there is one, else from the cluster and
  copied into the snapshot (pkg/runtime/core/trainingruntime.go NewObjects, snapshot.go,
  KEP-2599), then the JobSet built (tests/support/e2e/trainer/expand.py) and applied, unless
  it exists and neither it nor the TrainJob is suspended (plugins/jobset/jobset.go Build
  L338-342). An update of the JobSet goes through the JobSet webhook's rule
  (tests/support/kueue_admission.py jobset_update_errors, jobset v0.12.0 ValidateUpdate): what
  it refuses, the Trainer cannot apply, and the JobSet stays as it was.
"""

from __future__ import annotations

import copy
import uuid
from dataclasses import dataclass, field

from tests.support.e2e.trainer.expand import expand
from tests.support.kueue_admission import jobset_update_errors, server_side_applied

Key = tuple[str, str, str]  # kind, namespace, name


def key_of(obj: dict) -> Key:
    return obj["kind"], obj["metadata"].get("namespace", ""), obj["metadata"]["name"]


QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


@dataclass
class Cluster:
    """The objects a cluster holds (the GitOps controller's, Kueue's and the Trainer's writes
    included), by key, what the GitOps controller last applied of each, and the runtime
    snapshot of each TrainJob (by its uid)."""

    objects: dict[Key, dict] = field(default_factory=dict)
    applied: dict[Key, dict] = field(default_factory=dict)
    snapshots: dict[str, dict] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)  # the Trainer's updates a webhook refused

    def synced(self, render: list[dict]) -> tuple[set[Key], set[Key], set[Key]]:
        """A sync of `render` (Argo CD's, or Flux's reconcile: the same set semantics): (created,
        changed, pruned) keys. A change is applied server-side (both force it), so that what
        Kueue and the Trainer own stays (tests/support/kueue_admission.py server_side_applied)."""
        wanted = {key_of(obj): obj for obj in render}
        created, changed = set(), set()
        for key, obj in wanted.items():
            if key not in self.objects:
                self.objects[key] = _created(copy.deepcopy(obj))
                created.add(key)
            elif self.applied.get(key) != obj:
                self.objects[key] = server_side_applied(self.objects[key], copy.deepcopy(obj))
                changed.add(key)
        pruned = {key for key in self.applied if key not in wanted and key in self.objects}
        for key in pruned:
            self._delete(key)
        self.applied = copy.deepcopy(wanted)
        return created, changed, pruned

    def admitted(self, key: Key) -> None:
        """Kueue admits the TrainJob's workload: it unsuspends it (reconciler.go startJob)."""
        self.objects[key]["spec"]["suspend"] = False

    def _delete(self, key: Key) -> None:
        """The object, and what names it as its controller (garbage collection)."""
        gone = self.objects.pop(key)
        uid = gone["metadata"]["uid"]
        self.snapshots.pop(uid, None)
        for other, obj in list(self.objects.items()):
            if any(ref.get("uid") == uid for ref in obj["metadata"].get("ownerReferences", [])):
                self._delete(other)

    def reconciled(self, trainjob_key: Key, version: str) -> None:
        """Trainer `version` reconciles the TrainJob: snapshot, then Build."""
        trainjob = self.objects[trainjob_key]
        uid = trainjob["metadata"]["uid"]
        if uid not in self.snapshots:
            self.snapshots[uid] = copy.deepcopy(self._runtime_of(trainjob))
        _, namespace, name = trainjob_key
        old = self.objects.get(("JobSet", namespace, name))
        if old is not None and not trainjob["spec"].get("suspend") and not old["spec"].get("suspend"):
            return  # jobset.go Build: a JobSet that runs is not rebuilt
        made = expand(copy.deepcopy(trainjob), copy.deepcopy(self.snapshots[uid]), secret_exists=old is not None,
                      version=version)
        for obj in made:
            if obj["kind"] == "JobSet" and old is not None:
                errors = jobset_update_errors(old, obj)
                if errors:
                    self.refused += [f"JobSet {namespace}/{name}: {e}" for e in errors]
                    continue
                obj["metadata"]["uid"] = old["metadata"]["uid"]
            self.objects[key_of(obj)] = obj if "uid" in obj["metadata"] else _with_uid(obj)

    def _runtime_of(self, trainjob: dict) -> dict:
        ref = trainjob["spec"]["runtimeRef"]
        kind = ref.get("kind", "ClusterTrainingRuntime")
        namespace = "" if kind == "ClusterTrainingRuntime" else trainjob["metadata"]["namespace"]
        runtime = copy.deepcopy(self.objects[(kind, namespace, ref["name"])])
        runtime["metadata"].pop("uid", None)
        return runtime

    def trainjobs(self) -> dict[Key, dict]:
        return {key: obj for key, obj in self.objects.items() if key[0] == "TrainJob"}


def _with_uid(obj: dict) -> dict:
    obj["metadata"]["uid"] = str(uuid.uuid4())
    return obj


def _created(obj: dict) -> dict:
    """The object as the API server stores it: a uid, and for a TrainJob with a queue, suspended
    by Kueue's webhook (v0.19.2 pkg/controller/jobs/trainjob/trainjob_webhook.go Default:
    WorkloadShouldBeSuspended)."""
    if obj["kind"] == "TrainJob" and QUEUE_LABEL in obj["metadata"].get("labels", {}):
        obj["spec"]["suspend"] = True
    return _with_uid(obj)
