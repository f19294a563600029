"""GitOps profiles (argocd, flux): the operator's objects, made to behave as batch jobs
under a controller that applies Git continuously (shared/reference/gitops.md, G and H).

- Run identity. A Job's pod template is immutable and a StatefulSet's template change
  restarts the workers, so every run gets objects of its own: the job is rendered as the
  MPIJob `<name>-<run>` would be, where <run> is a short hash of the objects that define
  the run (and of spec.run, which users change to run the same spec again). A new run is
  new objects; the controller prunes the previous run's. Labels and annotations are not
  part of a run: they stay off pod templates, so editing them changes objects in place.
- Start order (argocd). Configuration and RBAC in wave -1, workers in wave 0, the
  launcher in wave 1: Argo CD waits for each wave but the last to be healthy, so the
  launcher starts after the workers are Ready and a multi-day run does not hold the sync.
- Completion. With cleanPodPolicy Running or All (the operator's meaning: the workers go
  when the job is done), the launcher scales its own worker StatefulSet to 0 when mpirun
  succeeds, so the GPUs are released without a Git change; its Role may scale exactly
  that StatefulSet. Flux must not scale it back up: the StatefulSet is applied only if
  absent (ssa: IfNotPresent) while the job runs. Argo CD needs an ignoreDifferences on
  its replicas, which goes into the Application (not in the synced objects).
"""

from __future__ import annotations

import hashlib
import json

from mpigen.compile.mpijob import MPIJob
from mpigen.kube.labels import ARGOCD_SYNC_WAVE, FLUX_SSA
from mpigen.render.names import KUBECTL_MOUNT, worker_name

# Argo CD's sync waves for the operator's objects; the launcher last (see above).
WAVES = {"ServiceAccount": "-1", "ConfigMap": "-1", "Role": "-1", "RoleBinding": "-1", "PodGroup": "-1",
         "StatefulSet": "0", "Job": "1"}
RUN_HASH_LENGTH = 6


def without_template_metadata(job: MPIJob) -> MPIJob:
    """The job with the blueprint's labels and annotations taken off the pod templates
    (they stay on the objects): under a GitOps controller a label edit must not restart
    workers or be refused on the launcher Job."""
    replicas = {}
    for role, replica in job.spec.mpiReplicaSpecs.items():
        template = dict(replica.template)
        meta = {}
        for key, blueprint in (("labels", job.metadata.labels), ("annotations", job.metadata.annotations)):
            kept = {k: v for k, v in template.get("metadata", {}).get(key, {}).items() if k not in blueprint}
            if kept:  # what mpigen itself puts there (secondary networks, one pod per node)
                meta[key] = kept
        template.pop("metadata", None)
        if meta:
            template["metadata"] = meta
        replicas[role] = replica.model_copy(update={"template": template})
    return job.model_copy(update={"spec": job.spec.model_copy(update={"mpiReplicaSpecs": replicas})})


def run_id(objects: list[dict], run: str | None) -> str:
    """A short hash of everything in the objects but their metadata (so of every field
    Kubernetes might refuse to update), and of spec.run."""
    content = [{k: v for k, v in obj.items() if k != "metadata"} for obj in objects]
    canonical = json.dumps({"objects": content, "run": run}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:RUN_HASH_LENGTH]


def instance(job: MPIJob, run: str) -> MPIJob:
    return job.model_copy(update={"metadata": job.metadata.model_copy(update={"name": f"{job.metadata.name}-{run}"})})


def scale_down_on_success(job: MPIJob, objects: list[dict]) -> None:
    """The launcher scales its workers to 0 once mpirun succeeds (cleanPodPolicy Running or
    All); a failed attempt keeps them, so that the Job's retries find them."""
    if job.spec.cleanPodPolicy not in ("Running", "All"):
        return
    workers = worker_name(job)
    for obj in objects:
        if obj["kind"] == "Job":
            container = obj["spec"]["template"]["spec"]["containers"][0]
            command = container.get("command", []) + container.pop("args", [])
            # The program stays a list of arguments ("$@"), never text inside the script:
            # Kubernetes expands $(VAR) in each argument before the shell runs, and a
            # value with a quote in it must not change how the script is read.
            container["command"] = ["/bin/sh", "-c", _wrapper(workers, job.metadata.namespace), "mpigen-launcher",
                                    *command]
        elif obj["kind"] == "Role":
            obj["rules"].append({"verbs": ["get", "patch", "update"], "apiGroups": ["apps"],
                                 "resources": ["statefulsets", "statefulsets/scale"], "resourceNames": [workers]})


def _wrapper(workers: str, namespace: str) -> str:
    return "\n".join([
        '"$@"',
        "status=$?",
        'if [ "$status" -eq 0 ]; then',
        f"  {KUBECTL_MOUNT}/kubectl scale statefulset {workers} --namespace {namespace} --replicas=0"
        " || echo 'mpigen: could not scale the workers to 0' >&2",
        "fi",
        'exit "$status"',
    ])


def annotate(objects: list[dict], profile: str, running: bool) -> None:
    for obj in objects:
        if profile == "argocd" and obj["kind"] in WAVES:
            obj["metadata"].setdefault("annotations", {})[ARGOCD_SYNC_WAVE] = WAVES[obj["kind"]]
        if profile == "flux" and obj["kind"] == "StatefulSet" and running:
            obj["metadata"].setdefault("annotations", {})[FLUX_SSA] = "IfNotPresent"

