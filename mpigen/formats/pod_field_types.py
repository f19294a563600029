"""The JSON types of the core/v1 fields a podTemplatePatch writes (Kubernetes 1.30's OpenAPI; a
test compares the table with the schema): a value of another type is refused by the API server's
decoder ("json: cannot unmarshal string into Go struct field ...") before any validation, and
mpigen's own checks read these values as their types.

A type is one of object (any mapping), array, integer, boolean, string; the name of a
definition of this table (a mapping whose fields are typed in turn); or [T], a list of T."""

_PROBE = "Probe"
TYPES: dict[str, dict[str, str]] = {
    "PodSpec": {
        "activeDeadlineSeconds": "integer", "affinity": "object", "automountServiceAccountToken": "boolean",
        "containers": "[Container]", "dnsConfig": "object", "dnsPolicy": "string", "enableServiceLinks": "boolean",
        "ephemeralContainers": "[object]", "hostAliases": "[object]", "hostIPC": "boolean", "hostNetwork": "boolean",
        "hostPID": "boolean", "hostUsers": "boolean", "hostname": "string", "imagePullSecrets": "[object]",
        "initContainers": "[Container]", "nodeName": "string", "nodeSelector": "object", "os": "object",
        "overhead": "object", "preemptionPolicy": "string", "priority": "integer", "priorityClassName": "string",
        "readinessGates": "[object]", "resourceClaims": "[object]", "restartPolicy": "string",
        "runtimeClassName": "string", "schedulerName": "string", "schedulingGates": "[object]",
        "securityContext": "PodSecurityContext", "serviceAccount": "string", "serviceAccountName": "string",
        "setHostnameAsFQDN": "boolean", "shareProcessNamespace": "boolean", "subdomain": "string",
        "terminationGracePeriodSeconds": "integer", "tolerations": "[object]", "topologySpreadConstraints": "[object]",
        "volumes": "[object]",
    },
    "Container": {
        "args": "[string]", "command": "[string]", "env": "[EnvVar]", "envFrom": "[EnvFromSource]", "image": "string",
        "imagePullPolicy": "string", "lifecycle": "object", "livenessProbe": _PROBE, "name": "string",
        "ports": "[ContainerPort]", "readinessProbe": _PROBE, "resizePolicy": "[object]", "resources": "object",
        "restartPolicy": "string", "securityContext": "SecurityContext", "startupProbe": _PROBE, "stdin": "boolean",
        "stdinOnce": "boolean", "terminationMessagePath": "string", "terminationMessagePolicy": "string",
        "tty": "boolean", "volumeDevices": "[object]", "volumeMounts": "[object]", "workingDir": "string",
    },
    "PodSecurityContext": {
        "appArmorProfile": "object", "fsGroup": "integer", "fsGroupChangePolicy": "string", "runAsGroup": "integer",
        "runAsNonRoot": "boolean", "runAsUser": "integer", "seLinuxOptions": "object",
        "seccompProfile": "SeccompProfile", "supplementalGroups": "[integer]", "sysctls": "[object]",
        "windowsOptions": "object",
    },
    "SecurityContext": {
        "allowPrivilegeEscalation": "boolean", "appArmorProfile": "object", "capabilities": "Capabilities",
        "privileged": "boolean", "procMount": "string", "readOnlyRootFilesystem": "boolean", "runAsGroup": "integer",
        "runAsNonRoot": "boolean", "runAsUser": "integer", "seLinuxOptions": "object",
        "seccompProfile": "SeccompProfile", "windowsOptions": "object",
    },
    "Capabilities": {"add": "[string]", "drop": "[string]"},
    "SeccompProfile": {"localhostProfile": "string", "type": "string"},
    "ContainerPort": {"containerPort": "integer", "hostIP": "string", "hostPort": "integer", "name": "string",
                      "protocol": "string"},
    "EnvVar": {"name": "string", "value": "string", "valueFrom": "object"},
    "EnvFromSource": {"configMapRef": "object", "prefix": "string", "secretRef": "object"},
    "Probe": {"exec": "ExecAction", "failureThreshold": "integer", "grpc": "object", "httpGet": "object",
              "initialDelaySeconds": "integer", "periodSeconds": "integer", "successThreshold": "integer",
              "tcpSocket": "object", "terminationGracePeriodSeconds": "integer", "timeoutSeconds": "integer"},
    "ExecAction": {"command": "[string]"},
}
JSON_TYPES = ("object", "array", "integer", "boolean", "string")


def field_type(definition: str, key: str) -> str | None:
    """The type of a field of a definition (None: a field the table does not know)."""
    return TYPES[definition].get(key)
