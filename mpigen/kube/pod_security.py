"""The Kubernetes Pod Security Standards: the controls of a level (privileged, baseline,
restricted) at a Kubernetes version that a pod template violates, each with the field of the
template and what the level allows there.

Each control is the check of the same ID in Kubernetes' Pod Security Admission,
k8s.io/pod-security-admission policy/check_*.go at tag v0.36.2 (the staging repository of
Kubernetes 1.36), as its version for the Kubernetes version asked: a level at a version is
every control of that level and the levels below it whose check exists at that version, less
the baseline checks a restricted check overrides (policy/registry.go). Versions before 1.25,
which mpigen renders for none of, are not covered. A pod template is a mapping with `spec` (and
optionally `metadata`), as the API server stores it after defaulting: a volume without a
source is an emptyDir."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

PRIVILEGED, BASELINE, RESTRICTED = LEVELS = ("privileged", "baseline", "restricted")

Version = tuple[int, int]
Found = list[tuple[str, str]]  # (field path in the pod template, the value found there)


@dataclass(frozen=True)
class Violation:
    """One field of a pod template that a control of the level refuses."""

    control: str  # the upstream check's ID, e.g. "capabilities_baseline"
    level: str  # the level the control belongs to
    path: str  # e.g. "spec.containers[0].securityContext.capabilities.add"
    value: str  # what the field holds (or "unset")
    allowed: str  # what the level allows there


@dataclass(frozen=True)
class _Control:
    id: str
    level: str
    since: Version
    find: Callable[[dict, dict, Version], Found]  # (metadata, spec, version) -> what it refuses
    allowed: str
    overrides: str | None = None  # the baseline check it replaces at the restricted level


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _containers(spec: dict) -> Iterator[tuple[str, dict]]:
    """(path, container) of every init, regular and ephemeral container (policy/visitor.go)."""
    for field in ("initContainers", "containers", "ephemeralContainers"):
        for i, container in enumerate(_list(spec.get(field))):
            yield f"spec.{field}[{i}]", _dict(container)


def _contexts(spec: dict) -> Iterator[tuple[str, dict]]:
    """(path, securityContext) of the pod, then of every container."""
    yield "spec.securityContext", _dict(spec.get("securityContext"))
    for path, container in _containers(spec):
        yield f"{path}.securityContext", _dict(container.get("securityContext"))


def _windows(spec: dict) -> bool:
    return _dict(spec.get("os")).get("name") == "windows"


def _user_namespace(spec: dict, version: Version) -> bool:
    """From 1.35, a pod in a user namespace (hostUsers: false) is relaxed (policy/helpers.go)."""
    return version >= (1, 35) and spec.get("hostUsers") is False


def _host_namespaces(meta: dict, spec: dict, version: Version) -> Found:
    return [(f"spec.{f}", "true") for f in ("hostNetwork", "hostPID", "hostIPC") if spec.get(f) is True]


def _privileged(meta: dict, spec: dict, version: Version) -> Found:
    return [(f"{p}.securityContext.privileged", "true") for p, c in _containers(spec)
            if _dict(c.get("securityContext")).get("privileged") is True]


BASELINE_CAPABILITIES = ("AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
                         "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT")


def _added(container: dict) -> list:
    return _list(_dict(_dict(container.get("securityContext")).get("capabilities")).get("add"))


def _capabilities_baseline(meta: dict, spec: dict, version: Version) -> Found:
    out = []
    for path, container in _containers(spec):
        bad = [c for c in _added(container) if c not in BASELINE_CAPABILITIES]
        if bad:
            out.append((f"{path}.securityContext.capabilities.add", ", ".join(map(str, bad))))
    return out


def _capabilities_restricted(meta: dict, spec: dict, version: Version) -> Found:
    if _windows(spec):
        return []
    out = []
    for path, container in _containers(spec):
        capabilities = _dict(_dict(container.get("securityContext")).get("capabilities"))
        if "ALL" not in _list(capabilities.get("drop")):
            out.append((f"{path}.securityContext.capabilities.drop", str(capabilities.get("drop", "unset"))))
        bad = [c for c in _added(container) if c != "NET_BIND_SERVICE"]
        if bad:
            out.append((f"{path}.securityContext.capabilities.add", ", ".join(map(str, bad))))
    return out


def _host_path_volumes(meta: dict, spec: dict, version: Version) -> Found:
    return [(f"spec.volumes[{i}].hostPath", str(_dict(v).get("name"))) for i, v in enumerate(_list(spec.get("volumes")))
            if _dict(v).get("hostPath") is not None]


RESTRICTED_VOLUME_SOURCES = ("configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "image",
                             "persistentVolumeClaim", "projected", "secret")


def _restricted_volumes(meta: dict, spec: dict, version: Version) -> Found:
    out = []
    for i, volume in enumerate(_list(spec.get("volumes"))):
        sources = [k for k, v in _dict(volume).items() if k != "name" and v is not None]
        if sources and not any(s in RESTRICTED_VOLUME_SOURCES for s in sources):  # none: an emptyDir
            out.append((f"spec.volumes[{i}].{sources[0]}", str(_dict(volume).get("name"))))
    return out


def _host_ports(meta: dict, spec: dict, version: Version) -> Found:
    return [(f"{path}.ports[{j}].hostPort", str(port["hostPort"])) for path, c in _containers(spec)
            for j, port in enumerate(_list(c.get("ports"))) if _dict(port).get("hostPort") not in (None, 0)]


def _host_probes(meta: dict, spec: dict, version: Version) -> Found:
    out = []
    for path, container in _containers(spec):
        handlers = [(k, _dict(container.get(k))) for k in ("livenessProbe", "readinessProbe", "startupProbe")]
        lifecycle = _dict(container.get("lifecycle"))
        handlers += [(f"lifecycle.{k}", _dict(lifecycle.get(k))) for k in ("postStart", "preStop")]
        for name, handler in handlers:
            for action in ("httpGet", "tcpSocket"):
                host = _dict(handler.get(action)).get("host")
                if host:
                    out.append((f"{path}.{name}.{action}.host", str(host)))
    return out


APPARMOR_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/"


def _app_armor(meta: dict, spec: dict, version: Version) -> Found:
    out = [(f"{path}.appArmorProfile.type", str(kind)) for path, context in _contexts(spec)
           for kind in [_dict(context.get("appArmorProfile")).get("type")]
           if "appArmorProfile" in context and kind not in ("RuntimeDefault", "Localhost")]
    for key, value in sorted(_dict(meta.get("annotations")).items()):
        if key.startswith(APPARMOR_ANNOTATION) and value and value != "runtime/default" \
                and not str(value).startswith("localhost/"):
            out.append((f"metadata.annotations[{key}]", str(value)))
    return out


def _se_linux(meta: dict, spec: dict, version: Version) -> Found:
    types = {"", "container_t", "container_init_t", "container_kvm_t"}
    if version >= (1, 31):
        types.add("container_engine_t")
    out = []
    for path, context in _contexts(spec):
        options = _dict(context.get("seLinuxOptions"))
        if options.get("type", "") not in types:
            out.append((f"{path}.seLinuxOptions.type", str(options["type"])))
        out += [(f"{path}.seLinuxOptions.{k}", str(options[k])) for k in ("user", "role") if options.get(k)]
    return out


def _proc_mount(meta: dict, spec: dict, version: Version) -> Found:
    return [(f"{p}.securityContext.procMount", str(mount)) for p, c in _containers(spec)
            for mount in [_dict(c.get("securityContext")).get("procMount")] if mount not in (None, "Default")]


def _proc_mount_baseline(meta: dict, spec: dict, version: Version) -> Found:
    return [] if _user_namespace(spec, version) else _proc_mount(meta, spec, version)


SECCOMP_TYPES = ("RuntimeDefault", "Localhost")


def _seccomp_baseline(meta: dict, spec: dict, version: Version) -> Found:
    return [(f"{path}.seccompProfile.type", str(kind)) for path, context in _contexts(spec)
            for kind in [_dict(context.get("seccompProfile")).get("type")]
            if "seccompProfile" in context and kind not in SECCOMP_TYPES]


def _seccomp_restricted(meta: dict, spec: dict, version: Version) -> Found:
    if _windows(spec):
        return []
    out = _seccomp_baseline(meta, spec, version)
    pod_set = _dict(_dict(spec.get("securityContext")).get("seccompProfile")).get("type") in SECCOMP_TYPES
    unset = [p for p, c in _containers(spec) if "seccompProfile" not in _dict(c.get("securityContext"))]
    if unset and not pod_set and not out:
        out.append(("spec.securityContext.seccompProfile", "unset"))
    return out


SYSCTLS = {(1, 0): ("kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies",
                    "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start"),
           (1, 27): ("net.ipv4.ip_local_reserved_ports",),
           (1, 29): ("net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
                     "net.ipv4.tcp_keepalive_probes"),
           (1, 32): ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem")}


def safe_sysctls(version: Version) -> list[str]:
    """The sysctls the baseline level allows at `version`."""
    return [name for since, names in SYSCTLS.items() if since <= version for name in names]


def _sysctls(meta: dict, spec: dict, version: Version) -> Found:
    allowed = safe_sysctls(version)
    return [(f"spec.securityContext.sysctls[{i}].name", str(_dict(s).get("name")))
            for i, s in enumerate(_list(_dict(spec.get("securityContext")).get("sysctls")))
            if _dict(s).get("name") not in allowed]


def _windows_host_process(meta: dict, spec: dict, version: Version) -> Found:
    return [(f"{path}.windowsOptions.hostProcess", "true") for path, context in _contexts(spec)
            if _dict(context.get("windowsOptions")).get("hostProcess") is True]


def _allow_privilege_escalation(meta: dict, spec: dict, version: Version) -> Found:
    if _windows(spec):
        return []
    return [(f"{p}.securityContext.allowPrivilegeEscalation", str(value).lower()) for p, c in _containers(spec)
            for value in [_dict(c.get("securityContext")).get("allowPrivilegeEscalation", "unset")]
            if value is not False]


def _run_as_non_root(meta: dict, spec: dict, version: Version) -> Found:
    if _user_namespace(spec, version):
        return []
    pod = _dict(spec.get("securityContext")).get("runAsNonRoot")
    out = [("spec.securityContext.runAsNonRoot", "false")] if pod is False else []
    out += [(f"{p}.securityContext.runAsNonRoot", "false") for p, c in _containers(spec)
            if _dict(c.get("securityContext")).get("runAsNonRoot") is False]
    unset = [p for p, c in _containers(spec) if _dict(c.get("securityContext")).get("runAsNonRoot") is None]
    if not out and unset and pod is not True:
        out.append(("spec.securityContext.runAsNonRoot", "unset"))
    return out


def _run_as_user(meta: dict, spec: dict, version: Version) -> Found:
    if _user_namespace(spec, version):
        return []
    return [(f"{path}.runAsUser", "0") for path, context in _contexts(spec) if context.get("runAsUser") == 0]


CONTROLS = (
    _Control("appArmorProfile", BASELINE, (1, 0), _app_armor,
             'type RuntimeDefault or Localhost (annotations "runtime/default" or "localhost/*"), or unset'),
    _Control("capabilities_baseline", BASELINE, (1, 0), _capabilities_baseline,
             "only " + ", ".join(BASELINE_CAPABILITIES)),
    _Control("hostNamespaces", BASELINE, (1, 0), _host_namespaces, "false or unset"),
    _Control("hostPathVolumes", BASELINE, (1, 0), _host_path_volumes, "no hostPath volume"),
    _Control("hostPorts", BASELINE, (1, 0), _host_ports, "0 or unset"),
    _Control("hostProbesAndHostLifecycle", BASELINE, (1, 34), _host_probes, '"" or unset'),
    _Control("privileged", BASELINE, (1, 0), _privileged, "false or unset"),
    _Control("procMount", BASELINE, (1, 0), _proc_mount_baseline, 'Default or unset (any with hostUsers: false)'),
    _Control("seccompProfile_baseline", BASELINE, (1, 19), _seccomp_baseline, "RuntimeDefault, Localhost or unset"),
    _Control("seLinuxOptions", BASELINE, (1, 0), _se_linux,
             "type container_t, container_init_t, container_kvm_t (or container_engine_t from 1.31) or unset; "
             "no user or role"),
    _Control("sysctls", BASELINE, (1, 0), _sysctls, "only the safe sysctls"),
    _Control("windowsHostProcess", BASELINE, (1, 0), _windows_host_process, "false or unset"),
    _Control("allowPrivilegeEscalation", RESTRICTED, (1, 8), _allow_privilege_escalation, "false"),
    _Control("capabilities_restricted", RESTRICTED, (1, 22), _capabilities_restricted,
             'drop includes "ALL"; add only NET_BIND_SERVICE', "capabilities_baseline"),
    _Control("procMount_restricted", RESTRICTED, (1, 35), _proc_mount, "Default or unset", "procMount"),
    _Control("restrictedVolumes", RESTRICTED, (1, 0), _restricted_volumes,
             "only " + ", ".join(RESTRICTED_VOLUME_SOURCES) + " volumes", "hostPathVolumes"),
    _Control("runAsNonRoot", RESTRICTED, (1, 0), _run_as_non_root,
             "true on the pod (or on every container); any with hostUsers: false from 1.35"),
    _Control("runAsUser", RESTRICTED, (1, 23), _run_as_user, "non-zero or unset"),
    _Control("seccompProfile_restricted", RESTRICTED, (1, 19), _seccomp_restricted,
             "RuntimeDefault or Localhost, on the pod or on every container", "seccompProfile_baseline"),
)
OLDEST = (1, 25)


def parse_version(version: str) -> Version:
    """"1.30" -> (1, 30)."""
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def controls(level: str, version: Version) -> list[_Control]:
    """The controls a level enforces at a Kubernetes version (policy/registry.go)."""
    if version < OLDEST:
        raise ValueError(f"Kubernetes {version[0]}.{version[1]} is older than this module covers")
    chosen = [c for c in CONTROLS if LEVELS.index(c.level) <= LEVELS.index(level) and c.since <= version]
    overridden = {c.overrides for c in chosen}
    return [c for c in chosen if c.id not in overridden]


def violations(template: dict, level: str, version: str) -> list[Violation]:
    """The fields of a pod template (`spec`, `metadata`) the level refuses at Kubernetes
    `version` ("1.30"), by control in upstream's order, then by field; none at `privileged`."""
    if level not in LEVELS:
        raise ValueError(f"{level!r} is not a Pod Security level")
    meta, spec = _dict(template.get("metadata")), _dict(template.get("spec"))
    at = parse_version(version)
    return [Violation(c.id, c.level, path, value, c.allowed)
            for c in controls(level, at) for path, value in c.find(meta, spec, at)]
