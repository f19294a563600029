"""podTemplatePatch: the escape hatch to pod and container fields the blueprint has no field for."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from mpigen.formats.base import Model


# core/v1 PodSpec and Container fields (Kubernetes 1.30; a test compares them with the
# schema) that a blueprint may set through podTemplatePatch: all but those the blueprint
# has fields for, and those mpigen or the operator write.
POD_OWNED = {"containers": "the MPI container is the blueprint's (patch it under `container`)",
             "volumes": "volumes come from spec.datasets", "nodeSelector": "use spec.placement",
             "tolerations": "use spec.placement", "restartPolicy": "the operator sets it",
             "hostname": "the operator sets it", "subdomain": "the operator sets it"}
POD_FIELDS = (
    "activeDeadlineSeconds", "affinity", "automountServiceAccountToken", "containers", "dnsConfig", "dnsPolicy",
    "enableServiceLinks", "ephemeralContainers", "hostAliases", "hostIPC", "hostNetwork", "hostPID", "hostUsers",
    "hostname", "imagePullSecrets", "initContainers", "nodeName", "nodeSelector", "os", "overhead",
    "preemptionPolicy", "priority", "priorityClassName", "readinessGates", "resourceClaims", "restartPolicy",
    "runtimeClassName", "schedulerName", "schedulingGates", "securityContext", "serviceAccount",
    "serviceAccountName", "setHostnameAsFQDN", "shareProcessNamespace", "subdomain",
    "terminationGracePeriodSeconds", "tolerations", "topologySpreadConstraints", "volumes",
)
CONTAINER_OWNED = {"name": "use spec.mainContainer", "image": "use spec.image",
                   "command": "use spec.command or spec.launcherCommand", "args": "use spec.command",
                   "env": "use spec.env", "resources": "use spec.resources and spec.gpusPerWorker",
                   "volumeMounts": "mounts come from spec.datasets"}
CONTAINER_FIELDS = (
    "args", "command", "env", "envFrom", "image", "imagePullPolicy", "lifecycle", "livenessProbe", "name", "ports",
    "readinessProbe", "resizePolicy", "resources", "restartPolicy", "securityContext", "startupProbe", "stdin",
    "stdinOnce", "terminationMessagePath", "terminationMessagePolicy", "tty", "volumeDevices", "volumeMounts",
    "workingDir",
)


class RolePatch(Model):
    pod: dict[str, Any] = Field(default_factory=dict,
                                description="JSON merge patch on the pod spec (fields the blueprint has no field for).",
                                examples=[{"securityContext": {"runAsUser": 1000}}])
    container: dict[str, Any] = Field(default_factory=dict,
                                      description="JSON merge patch on the MPI container.",
                                      examples=[{"securityContext": {"capabilities": {"add": ["IPC_LOCK"]}}}])


class PodTemplatePatch(Model):
    launcher: RolePatch = Field(default_factory=RolePatch)
    worker: RolePatch = Field(default_factory=RolePatch)
