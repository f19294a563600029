"""A job's object on the cluster once Kueue has admitted it, and what becomes of it when a
GitOps controller applies the render again: each step modelled from its upstream source.

- admitted: Kueue's admission (kubernetes-sigs/kueue v0.19.2, pkg/podset/podset.go: Merge and
  PodSetInfo.Merge, called by every integration's RunWithPodSetsInfo, which also unsuspends);
- evicted: Kueue stopping an admitted job (preemption, eviction; v0.19.2
  pkg/controller/jobframework/reconciler.go stopJob): it suspends the job and puts back the
  five fields of each pod template as its workload's pod sets have them, the templates the
  job had when Kueue created the workload (GetPodSetsInfoFromWorkload, podset.FromPodSet,
  podset.RestorePodSpec; JobSet's RestorePodSetsInfo in pkg/controller/jobs/jobset);
- merge_patch_applied: a client-side apply of a custom resource, kubectl's three-way JSON merge
  patch (k8s.io/apimachinery pkg/util/jsonmergepatch/patch.go CreateThreeWayJSONMergePatch:
  the additions and changes from the live object to the render, the deletions from the last
  applied to the render), with RFC 7386 from the json-merge-patch package;
- server_side_applied: a forced server-side apply (Argo CD and Flux both force conflicts:
  argo-cd gitops-engine/pkg/utils/kube/resource_ops.go, fluxcd/pkg/ssa), merged field by field
  as the lists and maps of the schema say (LIST_MAP_KEYS, ATOMIC_MAPS). What a manager applied
  before and no longer applies would be removed; the tests re-apply what was applied before;
- argocd_normalized, argocd_respected: Argo CD's ignoreDifferences (jq `del` of each
  jqPathExpression, with the jq package) and RespectIgnoreDifferences, which copies the live
  values of the ignored fields into what it applies (argo-cd v3.5 controller/sync.go
  normalizeTargetResources);
- jobset_update_errors: the JobSet webhook's update rule (kubernetes-sigs/jobset v0.12.0,
  pkg/webhooks/jobset_webhook.go ValidateUpdate, lines 371-399).
"""

from __future__ import annotations

import copy
from pathlib import Path

import jq
import json_merge_patch
import yaml

from tests.support.command_line import run_mpigen

# The flavour Kueue admits the tests' jobs to: a ResourceFlavor's nodeLabels and tolerations.
FLAVOUR_NODE_LABELS = {"example.com/gpu-pool": "a100-spot"}
FLAVOUR_TOLERATIONS = [{"key": "example.com/spot", "operator": "Exists", "effect": "NoSchedule"}]

# How a server-side apply merges the lists and maps of a pod template and of a JobSet
# (the JobSet CRD, v0.12.0 config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml:
# replicatedJobs 223/9479, containers 1666/3260, schedulingGates 6885; the same markers as
# Kubernetes' own PodSpec, from which the CRD's and the MPIJob CRD's pod schema come).
# Lists not named are atomic (tolerations: CRD line 7211), maps not named are granular.
LIST_MAP_KEYS = {"replicatedJobs": ("name",), "containers": ("name",), "initContainers": ("name",),
                 "schedulingGates": ("name",), "volumes": ("name",), "env": ("name",), "volumeMounts": ("mountPath",)}
ATOMIC_MAPS = {"nodeSelector"}  # CRD line 6606: x-kubernetes-map-type: atomic

# The pod template fields the JobSet webhook lets change while the JobSet is or is being
# suspended ("Pod values which must be mutable for Kueue").
KUEUE_MUTABLE = (("metadata", "annotations"), ("metadata", "labels"), ("spec", "nodeSelector"),
                 ("spec", "tolerations"), ("spec", "schedulingGates"))


def template_paths(obj: dict, templates: str) -> list[list]:
    """The concrete paths of the pod templates a jq path expression names in the object."""
    return jq.compile(f"[path({templates})]").input_value(obj).first()


def _at(obj: dict, path: list):
    for key in path:
        obj = obj[key]
    return obj


def admitted(obj: dict, templates: str, suspend: tuple[str, ...], node_labels: dict = FLAVOUR_NODE_LABELS) -> dict:
    """The object after Kueue admits it to the flavour: its nodeLabels merged into each pod
    template's nodeSelector (a key the template already has with another value is a conflict:
    Kueue refuses the admission), its tolerations appended unless present, unsuspended."""
    live = copy.deepcopy(obj)
    for path in template_paths(live, templates):
        spec = _at(live, path).setdefault("spec", {})
        selector = spec.setdefault("nodeSelector", {})
        clashes = {k for k, v in node_labels.items() if selector.get(k, v) != v}
        if clashes:
            raise ValueError(f"Kueue cannot admit: nodeSelector conflict on {sorted(clashes)}")
        selector.update(node_labels)
        tolerations = spec.setdefault("tolerations", [])
        tolerations += [t for t in FLAVOUR_TOLERATIONS if t not in tolerations]
    _at(live, list(suspend[:-1]))[suspend[-1]] = False
    return live


def evicted(live: dict, created: dict, templates: str, suspend: tuple[str, ...]) -> dict:
    """The admitted object `live` once Kueue has stopped it: suspended, and each pod template's
    five fields as they were in `created`, the object Kueue made the workload from."""
    out = copy.deepcopy(live)
    for path in template_paths(out, templates):
        template, original = _at(out, path), _at(created, path)
        for part, field in KUEUE_MUTABLE:
            template.setdefault(part, {}).pop(field, None)
            if original.get(part, {}).get(field):
                template[part][field] = copy.deepcopy(original[part][field])
    _at(out, list(suspend[:-1]))[suspend[-1]] = True
    return out


def _kept(patch, nulls: bool):
    """keepOrDeleteNullInJsonPatch: only the deletions of a merge patch, or only the rest."""
    if not isinstance(patch, dict):
        return patch
    out = {}
    for key, value in patch.items():
        if value is None:
            if nulls:
                out[key] = None
        elif isinstance(value, dict):
            inner = _kept(value, nulls)
            if inner or not nulls:
                out[key] = inner
        elif not nulls:
            out[key] = value
    return out


def merge_patch(last_applied: dict, render: dict, live: dict) -> dict:
    """kubectl apply's three-way JSON merge patch of a custom resource."""
    changes = _kept(json_merge_patch.create_patch(live, render), nulls=False)
    deletions = _kept(json_merge_patch.create_patch(last_applied, render), nulls=True)
    return json_merge_patch.merge(deletions, changes)


def merge_patch_applied(last_applied: dict, render: dict, live: dict) -> dict:
    return json_merge_patch.merge(copy.deepcopy(live), merge_patch(last_applied, render, live))


def server_side_applied(live, applied, field: str = ""):
    """The live object with a forced server-side apply of `applied` merged in."""
    if isinstance(applied, dict) and isinstance(live, dict) and field not in ATOMIC_MAPS:
        out = dict(live)
        for key, value in applied.items():
            out[key] = server_side_applied(live.get(key), value, key)
        return out
    if isinstance(applied, list) and isinstance(live, list) and field in LIST_MAP_KEYS:
        def key(item: dict) -> tuple:
            return tuple(item.get(k) for k in LIST_MAP_KEYS[field])
        by_key = {key(item): item for item in applied}
        out = [server_side_applied(item, by_key.pop(key(item)), "") if key(item) in by_key else item
               for item in live]
        return out + list(by_key.values())
    return copy.deepcopy(applied)


def argocd_normalized(obj: dict, expressions: list[str]) -> dict:
    """The object as Argo CD compares it: each ignored field deleted."""
    program = " | ".join(f"del({expression})" for expression in expressions)
    return jq.compile(program).input_value(obj).first()


def argocd_respected(target: dict, live: dict, expressions: list[str]) -> dict:
    """What Argo CD applies with RespectIgnoreDifferences: the target without its ignored
    fields, with the values the live object has of them."""
    out = argocd_normalized(target, expressions)
    for expression in expressions:
        for path in jq.compile(f"[path({expression})]").input_value(live).first():
            value = jq.compile("getpath($p)", args={"p": path}).input_value(live).first()
            if value is not None:
                _set(out, path, value)
    return out


def _set(obj: dict, path: list, value) -> None:
    for key in path[:-1]:
        obj = obj[key] if isinstance(key, int) else obj.setdefault(key, {})
    obj[path[-1]] = copy.deepcopy(value)


def _pruned(value):
    """Go's semantic equality: an empty map or list equals a missing one."""
    if isinstance(value, dict):
        out = {k: _pruned(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in ({}, [], None)}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value


def jobset_update_errors(old: dict, new: dict) -> list[str]:
    """What the JobSet webhook refuses in an update of `old` to `new`."""
    munged = copy.deepcopy(new["spec"].get("replicatedJobs", []))
    if old["spec"].get("suspend") or new["spec"].get("suspend"):
        old_jobs = {job["name"]: job for job in old["spec"].get("replicatedJobs", [])}
        for job in munged:
            if job["name"] not in old_jobs:
                continue
            template, old_template = job["template"]["spec"]["template"], old_jobs[job["name"]]["template"]["spec"]["template"]
            for part, field in KUEUE_MUTABLE:
                value = old_template.get(part, {}).get(field)
                template.setdefault(part, {}).pop(field, None)
                if value is not None:
                    template[part][field] = copy.deepcopy(value)
    errors = []
    if _pruned(munged) != _pruned(old["spec"].get("replicatedJobs", [])):
        errors.append("spec.replicatedJobs: Invalid value: field is immutable")
    if new["spec"].get("managedBy") != old["spec"].get("managedBy"):
        errors.append("spec.managedBy: Invalid value: field is immutable")
    return errors


# A job under a Kueue queue with its own placement (a node selector per role, the workers'
# toleration): what Kueue's admission writes into, and a GitOps controller must not undo.
KUEUE_JOB = """apiVersion: mpigen.dev/v1alpha1
kind: MPIJobBlueprint
metadata:
  name: vit
  namespace: team-a
spec:
  image: ghcr.io/example/vit:1.4
  workers: 2
  gpusPerWorker: 8
  command: [python, /app/train.py]
  scheduling:
    queue: team-a-gpus
  placement:
    worker:
      nodeSelector: {node.kubernetes.io/instance-type: p4d.24xlarge}
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
    launcher:
      nodeSelector: {node-role.example.com/cpu: "true"}
  runPolicy:
    cleanPodPolicy: Running
"""


# Where Kueue writes into each kind it admits (its RunWithPodSetsInfo, kueue v0.19.2), as
# (kind, pod templates as a jq path, the suspend field, templates of the blueprint's job).
ADMITTED = {"jobset": ("JobSet", ".spec.replicatedJobs[].template.spec.template", ("spec", "suspend"), 3),
            "mpijob": ("MPIJob", ".spec.mpiReplicaSpecs[].template", ("spec", "runPolicy", "suspend"), 2),
            "static": ("Job", ".spec.template", ("spec", "suspend"), 1)}
# An Argo CD render of the job into rendered/, its Applications into apps/.
ARGOCD_CONFIG = """apiVersion: mpigen.dev/v1alpha1
kind: Config
output: rendered
target: {target}
gitops: argocd
argocd:
  repoURL: https://git.example.com/ml/training.git
  targetRevision: main
  applications: apps
"""


def argocd_rendered(root: Path, target: str, blueprint: str) -> tuple[dict, dict, dict]:
    """The object Kueue admits of `blueprint` rendered for `target` under Argo CD (ARGOCD_CONFIG,
    in `root`), the Application's ignoreDifferences entry for its kind, and the Application."""
    (root / "blueprints").mkdir(parents=True, exist_ok=True)
    (root / "mpigen.yaml").write_text(ARGOCD_CONFIG.format(target=target), encoding="utf-8")
    (root / "blueprints" / "vit.yaml").write_text(blueprint, encoding="utf-8")
    done = run_mpigen("render", cwd=root)
    assert done.returncode == 0, done.stderr
    kind = ADMITTED[target][0]
    obj, = [o for p in sorted((root / "rendered").rglob("*.yaml")) for o in yaml.safe_load_all(p.read_text())
            if o and o["kind"] == kind]
    application, = [o for o in yaml.safe_load_all((root / "apps" / "application-mpigen.yaml").read_text()) if o]
    entry, = [e for e in application["spec"]["ignoreDifferences"] if e["kind"] == kind]
    return obj, entry, application
