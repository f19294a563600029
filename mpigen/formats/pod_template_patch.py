"""podTemplatePatch: the escape hatch to pod and container fields the blueprint has no field for."""

from typing import Any, Optional

from pydantic import Field

from mpigen.formats.base import Model
from mpigen.formats.patterns import DNS1123_LABEL
from mpigen.formats.types import LabelKey, LabelValue


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
CONTAINER_OWNED = {"name": "use spec.podTemplatePatch.<role>.containerName (or spec.mainContainer for both)",
                   "image": "use spec.image",
                   "command": "use spec.command or spec.launcherCommand", "args": "use spec.command",
                   "env": "use spec.env", "resources": "use spec.resources and spec.gpusPerWorker",
                   "volumeMounts": "mounts come from spec.datasets"}
CONTAINER_FIELDS = (
    "args", "command", "env", "envFrom", "image", "imagePullPolicy", "lifecycle", "livenessProbe", "name", "ports",
    "readinessProbe", "resizePolicy", "resources", "restartPolicy", "securityContext", "startupProbe", "stdin",
    "stdinOnce", "terminationMessagePath", "terminationMessagePolicy", "tty", "volumeDevices", "volumeMounts",
    "workingDir",
)


class RoleMetadata(Model):
    """Labels and annotations of one role's pod template, over metadata's."""

    labels: dict[LabelKey, LabelValue] = Field(
        default_factory=dict,
        description="Labels of this role's pods only, after metadata.labels (a key in both takes this value on "
                    "this role's pods); never on the other role's pods, other objects or selectors.",
        examples=[{"sidecar.istio.io/inject": "false"}])
    annotations: dict[LabelKey, str] = Field(
        default_factory=dict,
        description="Annotations of this role's pods only, after metadata.annotations (a key in both takes this "
                    "value on this role's pods).",
        examples=[{"prometheus.io/scrape": "true"}])


class RolePatch(Model):
    containerName: Optional[str] = Field(
        None, pattern=DNS1123_LABEL, max_length=63,
        description="Name of this role's MPI container (default mpi-launcher, mpi-worker); not with "
                    "spec.mainContainer, which names both (and is the container kubexec.sh execs into).",
        examples=["worker"])
    metadata: RoleMetadata = Field(default_factory=RoleMetadata,
                                   description="Labels and annotations of this role's pod template.",
                                   examples=[{"labels": {"role": "worker"}}])
    pod: dict[str, Any] = Field(default_factory=dict,
                                description="JSON merge patch on the pod spec (fields the blueprint has no field for).",
                                examples=[{"securityContext": {"runAsUser": 1000}}])
    container: dict[str, Any] = Field(default_factory=dict,
                                      description="JSON merge patch on the MPI container.",
                                      examples=[{"securityContext": {"capabilities": {"add": ["IPC_LOCK"]}}}])


class PodTemplatePatch(Model):
    launcher: RolePatch = Field(default_factory=RolePatch)
    worker: RolePatch = Field(default_factory=RolePatch)
