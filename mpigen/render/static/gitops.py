"""The static target under a GitOps profile (argocd, flux): start order and completion
(shared/reference/gitops.md, G and H).

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

from mpigen.compile.mpijob import MPIJob
from mpigen.kube.labels import ARGOCD_SYNC_WAVE, FLUX_SSA
from mpigen.compile.names import KUBECTL_MOUNT, worker_name

# Argo CD's sync waves for the operator's objects; the launcher last (see above).
WAVES = {"ServiceAccount": "-1", "ConfigMap": "-1", "Role": "-1", "RoleBinding": "-1", "PodGroup": "-1",
         "StatefulSet": "0", "Job": "1"}


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
