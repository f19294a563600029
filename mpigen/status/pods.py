"""What a job's pods say, as the kubelet and the API server write a pod's status: its phase,
its conditions Ready (the kubelet's status manager, kubernetes/kubernetes
pkg/kubelet/status/generate.go `GeneratePodReadyCondition`) and PodScheduled (True once the
pod is bound: pkg/registry/core/pod/storage/storage.go `assignPod`; False with reason
Unschedulable from the scheduler, pkg/scheduler/schedule_one.go `handleSchedulingFailure`),
its containers' restartCount (the kubelet's, pkg/kubelet/kubelet_pods.go
`convertToAPIContainerStatuses`), and the accelerators its containers hold while it runs."""

from __future__ import annotations

import re

from mpigen.kube.accelerators import is_accelerator
from mpigen.kube.quantity import parse

TERMINAL = ("Succeeded", "Failed")


def condition(obj: dict, kind: str) -> dict | None:
    """The status condition of this type, if written."""
    return next((c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == kind), None)


def is_true(obj: dict, kind: str) -> bool:
    found = condition(obj, kind)
    return found is not None and found.get("status") == "True"


def phase(pod: dict) -> str:
    return (pod.get("status") or {}).get("phase", "Pending")


def ready(pod: dict) -> bool:
    return phase(pod) == "Running" and is_true(pod, "Ready") and not pod["metadata"].get("deletionTimestamp")


def scheduled(pod: dict) -> bool:
    return is_true(pod, "PodScheduled")


def named(pods: list[dict], pattern: str) -> list[dict]:
    """The pods whose names the pattern matches whole (mpigen.render.watched's patterns)."""
    compiled = re.compile(pattern)
    return [pod for pod in pods if compiled.fullmatch(pod["metadata"]["name"])]


def restarts(pods: list[dict]) -> int:
    """Restarts of the pods' containers in place."""
    return sum(status.get("restartCount", 0) for pod in pods
               for status in (pod.get("status") or {}).get("containerStatuses") or [])


def accelerators(pods: list[dict]) -> int:
    """The accelerators the pods that hold them (not yet terminal, bound) are limited to."""
    count = 0
    for pod in pods:
        if phase(pod) in TERMINAL or not scheduled(pod):
            continue
        for container in pod.get("spec", {}).get("containers", []):
            for resource, value in (container.get("resources") or {}).get("limits", {}).items():
                if is_accelerator(resource):
                    count += int(parse(str(value)))
    return count


def last_failed(pods: list[dict]) -> dict | None:
    """The pod that failed last (by creationTimestamp), as the MPI Operator picks it for its
    Failed condition (kubeflow/mpi-operator caa3c47 pkg/controller/mpi_job_controller.go
    `updateMPIJobFailedStatus`)."""
    failed = [pod for pod in pods if phase(pod) == "Failed"]
    return max(failed, key=lambda pod: pod["metadata"].get("creationTimestamp", ""), default=None)


def failure_of(pod: dict) -> str:
    """Why a pod failed: its status reason (Evicted, DeadlineExceeded) or its containers' exit."""
    status = pod.get("status") or {}
    if status.get("reason"):
        return f"{status['reason']}: {status.get('message', '').strip()}".rstrip(": ")
    for container in status.get("containerStatuses") or []:
        ended = (container.get("state") or {}).get("terminated")
        if ended and ended.get("exitCode"):
            return f"container {container['name']} exited {ended['exitCode']} ({ended.get('reason', 'Error')})"
    return "Failed"
