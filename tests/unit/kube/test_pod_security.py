"""The Pod Security controls against Kubernetes' own fixtures: the pass and fail pods of
k8s.io/pod-security-admission test/fixtures_*.go at tag v0.36.2, ported one for one (each
fixture names its file), run as upstream's test/run.go runs them: for each level and each
Kubernetes version mpigen renders for, every check of the level at that version gets the
fixture registered for it (a baseline fixture serves the restricted level too) at the newest
version not after it, built on test/fixtures.go's minimal valid pod of the level; a pass pod
must be allowed, a fail pod refused by that check."""

from __future__ import annotations

import copy
from typing import Any, Callable

import pytest

from mpigen.kube.pod_security import (BASELINE, BASELINE_CAPABILITIES, RESTRICTED, controls, parse_version,
                                      violations)

VERSIONS = [f"1.{minor}" for minor in range(25, 38)]
Pod = dict[str, Any]


def _minimal(level: str) -> Pod:
    """test/fixtures.go: the minimal valid pods (restricted: from 1.22 on, OS-neutral)."""
    pod: Pod = {"spec": {"initContainers": [{"name": "initcontainer1", "image": "registry.k8s.io/pause"}],
                         "containers": [{"name": "container1", "image": "registry.k8s.io/pause"}]}}
    if level == RESTRICTED:
        pod["spec"]["securityContext"] = {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}
        for c in (pod["spec"]["initContainers"][0], pod["spec"]["containers"][0]):
            c["securityContext"] = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
    return pod


def _set(pod: Pod, path: str, value: Any) -> None:
    """Sets a dotted path ("spec.containers.0.securityContext.privileged"); None removes it, as
    a nil pointer in Go leaves the field unset."""
    *parents, last = path.split(".")
    node = pod
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
    if value is None:
        node.pop(last, None)
    else:
        node[last] = value


def tweak(pod: Pod, **paths: Any) -> Pod:
    """A copy of the pod with each path (dots as __, c0 for containers.0, i0 for initContainers.0) set."""
    out = copy.deepcopy(pod)
    for key, value in paths.items():
        path = key.replace("__", ".").replace("c0", "spec.containers.0").replace("i0", "spec.initContainers.0")
        _set(out, path, value)
    return out


def ensure_security_context(pod: Pod) -> Pod:
    pod = copy.deepcopy(pod)
    pod["spec"].setdefault("securityContext", {})
    for c in pod["spec"]["initContainers"] + pod["spec"]["containers"]:
        c.setdefault("securityContext", {})
    return pod


def ensure(pod: Pod, field: str) -> Pod:
    """ensureCapabilities, ensureSELinuxOptions (test/helpers.go): the field set to {} where unset."""
    pod = ensure_security_context(pod)
    if field == "seLinuxOptions":
        pod["spec"]["securityContext"].setdefault(field, {})
    for c in pod["spec"]["initContainers"] + pod["spec"]["containers"]:
        c["securityContext"].setdefault(field, {})
    return pod


def _drops_all(pod: Pod) -> bool:
    return "ALL" in pod["spec"]["containers"][0].get("securityContext", {}).get("capabilities", {}).get("drop", [])


SC, PSC = "securityContext", "spec__securityContext"
UNCONFINED, DEFAULT = {"type": "Unconfined"}, {"type": "RuntimeDefault"}
HOST_PATH = {"path": "/a"}
Fixture = tuple[Callable[[Pod, str], list[Pod]], Callable[[Pod], list[Pod]]]


def _apparmor(name: str, value: str) -> dict:
    return {"metadata__annotations": {f"container.apparmor.security.beta.kubernetes.io/{name}": value}}


def _sysctls(*names: str) -> list[dict]:
    return [{"name": name, "value": "0"} for name in names]


SAFE_1_0 = ("kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies",
            "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start")
SAFE_1_29 = SAFE_1_0 + ("net.ipv4.ip_local_reserved_ports", "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
                        "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes")


def _sysctl_fixture(names: tuple[str, ...]) -> Fixture:
    return (lambda p, _: [tweak(p, spec__securityContext__sysctls=None),
                          tweak(p, spec__securityContext__sysctls=_sysctls(*names))],
            lambda p: [tweak(p, spec__securityContext__sysctls=_sysctls("othersysctl"))])


ALL_CAPABILITIES = ["SYS_TIME", "SYS_MODULE", "SYS_RAWIO", "SYS_PACCT", "SYS_ADMIN", "SYS_NICE", "SYS_RESOURCE",
                    "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD", "AUDIT_WRITE", "AUDIT_CONTROL", "MAC_OVERRIDE", "MAC_ADMIN",
                    "NET_ADMIN", "SYSLOG", "CHOWN", "NET_RAW", "DAC_OVERRIDE", "FOWNER", "DAC_READ_SEARCH", "FSETID",
                    "KILL", "SETGID", "SETUID", "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "IPC_LOCK",
                    "IPC_OWNER", "SYS_CHROOT", "SYS_PTRACE", "SYS_BOOT", "LEASE", "SETFCAP", "WAKE_ALARM",
                    "BLOCK_SUSPEND"]
BASELINE_ADD = ["AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE",
                "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"]
CAPS = f"{SC}__capabilities"
RESTRICTED_SOURCES = [
    {"gcePersistentDisk": {"pdName": "test"}}, {"awsElasticBlockStore": {"volumeID": "test"}},
    {"gitRepo": {"repository": "github.com/kubernetes/kubernetes"}}, {"nfs": {"server": "test", "path": "/test"}},
    {"iscsi": {"targetPortal": "test", "iqn": "iqn.2001-04.com.example:storage.kube.sys1.xyz", "lun": 0}},
    {"glusterfs": {"path": "test", "endpoints": "test"}}, {"rbd": {"monitors": ["test"], "image": "test"}},
    {"flexVolume": {"driver": "test"}}, {"cinder": {"volumeID": "test"}}, {"cephfs": {"monitors": ["test"]}},
    {"flocker": {"datasetName": "test"}}, {"fc": {"wwids": ["test"]}},
    {"azureFile": {"secretName": "test", "shareName": "test"}}, {"vsphereVolume": {"volumePath": "test"}},
    {"quobyte": {"registry": "localhost:1234", "volume": "test"}},
    {"azureDisk": {"diskName": "test", "diskURI": "https://test.blob.core.windows.net/test/test.vhd"}},
    {"portworxVolume": {"volumeID": "test", "fsType": "ext4"}},
    {"scaleIO": {"volumeName": "test", "gateway": "localhost", "system": "test"}},
    {"storageos": {"volumeName": "test"}}, {"hostPath": {"path": "/dev/null"}}]
ALLOWED_VOLUMES = [{"name": "volume0"}, {"name": "volume1", "emptyDir": {}},
                   {"name": "volume2", "secret": {"secretName": "test"}},
                   {"name": "volume3", "persistentVolumeClaim": {"claimName": "test"}},
                   {"name": "volume4", "downwardAPI": {"items": [{"path": "labels",
                                                                  "fieldRef": {"fieldPath": "metadata.labels"}}]}},
                   {"name": "volume5", "configMap": {"name": "test"}}, {"name": "volume6", "projected": {"sources": []}}]


def _proc_mount(value: str, host_users: bool, init: bool = False) -> dict:
    where = "i0" if init else "c0"
    return {f"{where}__{SC}__procMount": value, "spec__hostUsers": host_users}


def _probe(where: str, action: str, host: str | None) -> dict:
    handler = {"port": 8080, **({"host": host} if host else {})}
    return {where: {action: handler}}


# (check, fixture version) -> (pass pods from the level's minimal pod, fail pods from it).
FIXTURES: dict[tuple[str, tuple[int, int]], Fixture] = {
    # test/fixtures_allowPrivilegeEscalation.go
    ("allowPrivilegeEscalation", (1, 8)): (
        lambda p, _: [],
        lambda p: [tweak(p, c0__securityContext__allowPrivilegeEscalation=True),
                   tweak(p, i0__securityContext__allowPrivilegeEscalation=True),
                   tweak(p, c0__securityContext__allowPrivilegeEscalation=None),
                   tweak(p, c0__securityContext=None)]),
    # test/fixtures_appArmorProfile.go
    ("appArmorProfile", (1, 0)): (
        lambda p, _: [tweak(p, metadata__annotations={
            "container.apparmor.security.beta.kubernetes.io/container1": "localhost/foo"})],
        lambda p: [tweak(p, **_apparmor("container1", "unconfined")),
                   tweak(p, **_apparmor("initcontainer1", "unconfined"))]),
    # test/fixtures_capabilities_baseline.go
    ("capabilities_baseline", (1, 0)): (
        lambda p, _: [] if _drops_all(p) else [
            tweak(ensure(p, "capabilities"), c0__securityContext__capabilities__add=BASELINE_ADD,
                  i0__securityContext__capabilities__add=BASELINE_ADD)],
        lambda p: [tweak(ensure(p, "capabilities"), c0__securityContext__capabilities__add=["NET_RAW"]),
                   tweak(ensure(p, "capabilities"), i0__securityContext__capabilities__add=["NET_RAW"]),
                   tweak(ensure(p, "capabilities"), c0__securityContext__capabilities__add=["chown"]),
                   tweak(ensure(p, "capabilities"), c0__securityContext__capabilities__add=["CAP_CHOWN"])]),
    # test/fixtures_capabilities_restricted.go
    ("capabilities_restricted", (1, 22)): (
        lambda p, _: [tweak(ensure(p, "capabilities"), c0__securityContext__capabilities__drop=["ALL"],
                            i0__securityContext__capabilities__drop=["ALL"],
                            c0__securityContext__capabilities__add=["NET_BIND_SERVICE"],
                            i0__securityContext__capabilities__add=["NET_BIND_SERVICE"])],
        lambda p: [tweak(ensure(p, "capabilities"), c0__securityContext__capabilities__drop=[]),
                   tweak(ensure(p, "capabilities"), i0__securityContext__capabilities__drop=[]),
                   tweak(ensure(p, "capabilities"), c0__securityContext__capabilities__drop=ALL_CAPABILITIES,
                         i0__securityContext__capabilities__drop=ALL_CAPABILITIES),
                   tweak(ensure(p, "capabilities"), c0__securityContext__capabilities__drop=["ALL"],
                         i0__securityContext__capabilities__drop=["ALL"],
                         c0__securityContext__capabilities__add=BASELINE_ADD,
                         i0__securityContext__capabilities__add=BASELINE_ADD)]),
    # test/fixtures_hostNamespaces.go
    ("hostNamespaces", (1, 0)): (
        lambda p, _: [],
        lambda p: [tweak(p, spec__hostIPC=True), tweak(p, spec__hostNetwork=True), tweak(p, spec__hostPID=True)]),
    # test/fixtures_hostPathVolumes.go
    ("hostPathVolumes", (1, 0)): (
        lambda p, _: [],
        lambda p: [tweak(p, spec__volumes=[{"name": "volume-emptydir", "emptyDir": {}},
                                           {"name": "volume-hostpath", "hostPath": HOST_PATH}]),
                   tweak(p, spec__volumes=[{"name": "volume-hostpath-a", "hostPath": HOST_PATH},
                                           {"name": "volume-hostpath-b", "hostPath": {"path": "/b"}}])]),
    # test/fixtures_hostPorts.go
    ("hostPorts", (1, 0)): (
        lambda p, _: [tweak(p, c0__ports=[{"containerPort": 12345}], i0__ports=[{"containerPort": 12346}])],
        lambda p: [tweak(p, c0__ports=[{"containerPort": 12345, "hostPort": 12345}]),
                   tweak(p, i0__ports=[{"containerPort": 12346, "hostPort": 12346}]),
                   tweak(p, c0__ports=[{"containerPort": 12345, "hostPort": 12345}, {"containerPort": 12347}],
                         i0__ports=[{"containerPort": 12346, "hostPort": 12346}, {"containerPort": 12348}])]),
    # test/fixtures_hostProbesAndHostLifecycle.go
    ("hostProbesAndHostLifecycle", (1, 34)): (
        lambda p, _: [p, tweak(p, **_probe("c0__livenessProbe", "httpGet", None)),
                      tweak(p, **_probe("c0__readinessProbe", "tcpSocket", None))],
        lambda p: [tweak(p, **_probe("c0__livenessProbe", "httpGet", "bad.host")),
                   tweak(p, i0__restartPolicy="Always", **_probe("i0__readinessProbe", "tcpSocket", "8.8.8.8")),
                   tweak(p, **_probe("c0__lifecycle__postStart", "httpGet", "bad.host")),
                   tweak(p, **_probe("c0__livenessProbe", "httpGet", "127.0.0.1")),
                   tweak(p, **_probe("c0__readinessProbe", "tcpSocket", "::1"))]),
    # test/fixtures_privileged.go
    ("privileged", (1, 0)): (
        lambda p, _: [tweak(ensure_security_context(p), c0__securityContext__privileged=False,
                            i0__securityContext__privileged=False)],
        lambda p: [tweak(ensure_security_context(p), c0__securityContext__privileged=True,
                         c0__securityContext__allowPrivilegeEscalation=None),
                   tweak(ensure_security_context(p), i0__securityContext__privileged=True,
                         i0__securityContext__allowPrivilegeEscalation=None)]),
    # test/fixtures_procMount.go
    ("procMount", (1, 0)): (
        lambda p, _: [tweak(ensure_security_context(p), i0__securityContext__procMount="Default",
                            **_proc_mount("Default", False))],
        lambda p: [tweak(ensure_security_context(p), **_proc_mount("Unmasked", False)),
                   tweak(ensure_security_context(p), **_proc_mount("Unmasked", False, init=True))]),
    ("procMount", (1, 35)): (
        lambda p, level: [tweak(ensure_security_context(p), i0__securityContext__procMount="Default",
                                **_proc_mount("Default", False))] + ([] if level == RESTRICTED else [
            tweak(ensure_security_context(p), i0__securityContext__procMount="Unmasked",
                  **_proc_mount("Unmasked", False))]),
        lambda p: [tweak(ensure_security_context(p), **_proc_mount("Unmasked", True)),
                   tweak(ensure_security_context(p), **_proc_mount("Unmasked", True, init=True))]),
    ("procMount_restricted", (1, 35)): (
        lambda p, _: [tweak(ensure_security_context(p), i0__securityContext__procMount="Default",
                            **_proc_mount("Default", False))],
        lambda p: [tweak(ensure_security_context(p), **_proc_mount("Unmasked", False)),
                   tweak(ensure_security_context(p), **_proc_mount("Unmasked", False, init=True))]),
    # test/fixtures_restrictedVolumes.go
    ("restrictedVolumes", (1, 0)): (
        lambda p, _: [tweak(p, spec__volumes=ALLOWED_VOLUMES)],
        lambda p: [tweak(p, spec__volumes=[{"name": "volume1", **source}]) for source in RESTRICTED_SOURCES]),
    # test/fixtures_runAsNonRoot.go
    ("runAsNonRoot", (1, 0)): (
        lambda p, _: [tweak(ensure_security_context(p), spec__securityContext__runAsNonRoot=True,
                            c0__securityContext__runAsNonRoot=None, i0__securityContext__runAsNonRoot=None),
                      tweak(ensure_security_context(p), spec__securityContext__runAsNonRoot=None,
                            c0__securityContext__runAsNonRoot=True, i0__securityContext__runAsNonRoot=True)],
        lambda p: [tweak(ensure_security_context(p), spec__securityContext__runAsNonRoot=None,
                         c0__securityContext__runAsNonRoot=None, i0__securityContext__runAsNonRoot=None),
                   tweak(ensure_security_context(p), spec__securityContext__runAsNonRoot=False),
                   tweak(ensure_security_context(p), c0__securityContext__runAsNonRoot=False),
                   tweak(ensure_security_context(p), i0__securityContext__runAsNonRoot=False)]),
    # test/fixtures_runAsUser.go
    ("runAsUser", (1, 23)): (
        lambda p, _: [tweak(ensure_security_context(p), spec__securityContext__runAsUser=1000,
                            c0__securityContext__runAsUser=1000, i0__securityContext__runAsUser=1000)],
        lambda p: [tweak(ensure_security_context(p), spec__securityContext__runAsUser=0),
                   tweak(ensure_security_context(p), c0__securityContext__runAsUser=0),
                   tweak(ensure_security_context(p), i0__securityContext__runAsUser=0)]),
    # test/fixtures_seLinuxOptions.go
    ("seLinuxOptions", (1, 0)): (
        lambda p, _: [tweak(ensure(p, "seLinuxOptions"), spec__securityContext__seLinuxOptions=None,
                            c0__securityContext__seLinuxOptions=None, i0__securityContext__seLinuxOptions={}),
                      tweak(ensure(p, "seLinuxOptions"), spec__securityContext__seLinuxOptions__type="container_t",
                            c0__securityContext__seLinuxOptions__type="container_init_t",
                            i0__securityContext__seLinuxOptions__type="container_kvm_t",
                            spec__securityContext__seLinuxOptions__level="",
                            c0__securityContext__seLinuxOptions__level="somevalue")],
        lambda p: [tweak(ensure(p, "seLinuxOptions"), spec__securityContext__seLinuxOptions__type="somevalue"),
                   tweak(ensure(p, "seLinuxOptions"), c0__securityContext__seLinuxOptions__type="somevalue"),
                   tweak(ensure(p, "seLinuxOptions"), i0__securityContext__seLinuxOptions__type="somevalue"),
                   tweak(ensure(p, "seLinuxOptions"), spec__securityContext__seLinuxOptions__user="somevalue"),
                   tweak(ensure(p, "seLinuxOptions"), spec__securityContext__seLinuxOptions__role="somevalue")]),
    # test/fixtures_seccompProfile_baseline.go (the 1.19 fixture: versions from 1.25 use the fields)
    ("seccompProfile_baseline", (1, 19)): (
        lambda p, _: [] if p["spec"].get(SC, {}).get("seccompProfile") == DEFAULT else [
            tweak(ensure_security_context(p), spec__securityContext__seccompProfile=DEFAULT,
                  c0__securityContext__seccompProfile=DEFAULT)],
        lambda p: [tweak(ensure_security_context(p), spec__securityContext__seccompProfile=UNCONFINED),
                   tweak(ensure_security_context(p), c0__securityContext__seccompProfile=UNCONFINED),
                   tweak(ensure_security_context(p), i0__securityContext__seccompProfile=UNCONFINED)]),
    # test/fixtures_seccompProfile_restricted.go
    ("seccompProfile_restricted", (1, 19)): (
        lambda p, _: [tweak(ensure_security_context(p), spec__securityContext__seccompProfile=DEFAULT),
                      tweak(ensure_security_context(p), spec__securityContext__seccompProfile={
                          "type": "Localhost", "localhostProfile": "testing"}),
                      tweak(ensure_security_context(p), spec__securityContext__seccompProfile=None,
                            c0__securityContext__seccompProfile=DEFAULT,
                            i0__securityContext__seccompProfile={"type": "Localhost", "localhostProfile": "testing"})],
        lambda p: [tweak(ensure_security_context(p), spec__securityContext__seccompProfile=None),
                   tweak(ensure_security_context(p), spec__securityContext__seccompProfile=UNCONFINED),
                   tweak(ensure_security_context(p), spec__securityContext__seccompProfile=None,
                         c0__securityContext__seccompProfile=DEFAULT),
                   tweak(ensure_security_context(p), spec__securityContext__seccompProfile=None,
                         i0__securityContext__seccompProfile=DEFAULT),
                   tweak(ensure_security_context(p), spec__securityContext__seccompProfile=None,
                         c0__securityContext__seccompProfile=DEFAULT,
                         i0__securityContext__seccompProfile=UNCONFINED)]),
    # test/fixtures_sysctls.go
    ("sysctls", (1, 0)): _sysctl_fixture(SAFE_1_0),
    ("sysctls", (1, 27)): _sysctl_fixture(SAFE_1_0 + ("net.ipv4.ip_local_reserved_ports",)),
    ("sysctls", (1, 29)): _sysctl_fixture(SAFE_1_29),
    ("sysctls", (1, 32)): _sysctl_fixture(("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem")),
    # test/fixtures_windowsHostProcess.go
    ("windowsHostProcess", (1, 0)): (
        lambda p, _: [],
        lambda p: [tweak(ensure_security_context(p), spec__hostNetwork=True,
                         spec__securityContext__windowsOptions={"hostProcess": True}),
                   tweak(ensure_security_context(p), spec__hostNetwork=True,
                         c0__securityContext__windowsOptions={"hostProcess": True},
                         i0__securityContext__windowsOptions={"hostProcess": True})]),
}


def _fixture(check: str, version: tuple[int, int]) -> Fixture:
    """test/fixtures.go getFixtures: the fixture of the check at the newest version not after `version`."""
    known = [v for c, v in FIXTURES if c == check and v <= version]
    assert known, f"no fixture ported for {check} at {version}"
    return FIXTURES[check, max(known)]


CASES = [(level, version, control.id) for level in (BASELINE, RESTRICTED) for version in VERSIONS
         for control in controls(level, parse_version(version))]


@pytest.mark.parametrize("level,version,check", CASES)
def test_upstream_fixtures(level: str, version: str, check: str):
    passing, failing = _fixture(check, parse_version(version))
    for pod in passing(_minimal(level), level):
        assert violations(pod, level, version) == [], pod
    for pod in failing(_minimal(level)):
        assert check in {v.control for v in violations(pod, level, version)}, pod


@pytest.mark.parametrize("level", [BASELINE, RESTRICTED])
@pytest.mark.parametrize("version", VERSIONS)
def test_the_minimal_valid_pod_passes(level: str, version: str):
    assert violations(_minimal(level), level, version) == []


@pytest.mark.parametrize("version", VERSIONS)
def test_the_minimal_valid_windows_pod_passes_restricted(version: str):
    """test/fixtures.go: from 1.25, "none of the restricted requirements added between 1.0 and
    1.25 apply to the pods that are explicitly Windows": restricted_1_0 (runAsNonRoot) with os windows."""
    windows = {"spec": {**_minimal(BASELINE)["spec"], "os": {"name": "windows"},
                        "securityContext": {"runAsNonRoot": True}}}
    assert violations(windows, RESTRICTED, version) == []
    linux = {"spec": {**windows["spec"], "os": {"name": "linux"}}}
    assert {v.control for v in violations(linux, RESTRICTED, version)} == {
        "allowPrivilegeEscalation", "capabilities_restricted", "seccompProfile_restricted"}


def test_the_checks_of_each_level_are_upstreams():
    """policy/check_*.go at v0.36.2: 12 baseline checks (hostProbesAndHostLifecycle from 1.34);
    restricted adds 7 (procMount_restricted from 1.35), 4 of which override a baseline check."""
    ids = {level: [c.id for c in controls(level, (1, 36))] for level in (BASELINE, RESTRICTED)}
    assert len(ids[BASELINE]) == 12 and "hostProbesAndHostLifecycle" not in [c.id for c in controls(BASELINE, (1, 33))]
    assert len(ids[RESTRICTED]) == 12 - 4 + 7
    assert set(ids[BASELINE]) - set(ids[RESTRICTED]) == {"capabilities_baseline", "hostPathVolumes", "procMount",
                                                         "seccompProfile_baseline"}
    assert controls("privileged", (1, 30)) == []


def test_a_root_sshds_capabilities_are_within_baseline():
    """The five a root sshd needs (mpigen.render.parts.sshd) are in baseline's default set; restricted
    allows only NET_BIND_SERVICE."""
    sshd = ["AUDIT_WRITE", "KILL", "SETGID", "SETUID", "SYS_CHROOT"]
    assert set(sshd) <= set(BASELINE_CAPABILITIES)
    pod = tweak(_minimal(RESTRICTED), c0__securityContext__capabilities__add=sshd)
    assert violations(pod, BASELINE, "1.30") == []
    found = violations(pod, RESTRICTED, "1.30")
    assert [(v.control, v.path) for v in found] == [
        ("capabilities_restricted", "spec.containers[0].securityContext.capabilities.add")]
