"""Least privilege in everything mpigen commits (issue 7, point 5), read from the golden
output of every target and profile:

- every permission a Role grants is on an allowlist, with the reason the job needs it, and
  names its objects (resourceNames) wherever Kubernetes can check them;
- nothing cluster-scoped, except the MPIJob CRD that --with-crd asks for by name;
- no Secret objects, no Secret values: Secrets are referenced by name only;
- every container mpigen writes has allowPrivilegeEscalation false and drops ALL
  capabilities, adding back only those on an allowlist (asked for by the blueprint, or
  needed by the target's sshd); the operator's kubectl-delivery stays as it builds it;
- the pod templates meet the Kubernetes Pod Security Standards "baseline" level, checked
  from the published standard (kubernetes.io/docs/concepts/security/pod-security-standards),
  except exactly where a blueprint asks for what baseline forbids (host network, a hostPath
  dataset, an added capability), in so many words.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
import yaml

from tests.support.golden import MPIJOB_REFUSED
from tests.support.paths import ROOT

GOLDEN = ROOT / "golden"
STREAMS = sorted(GOLDEN.glob("*.yaml"))


@functools.cache
def _read() -> tuple:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return tuple((stream.name, obj) for stream in STREAMS
                 for obj in yaml.load_all(stream.read_text(), Loader=loader) if obj)


def objects():
    return iter(_read())


# (apiGroup, resource, verbs, whether resourceNames are required): why the job needs it.
ALLOWED_RULES = {
    # kubectl-delivery waits for the workers to be Ready: a watch of the pod list, which
    # Kubernetes cannot restrict by name (the operator's own rule, reference 2.4).
    ("", "pods", ("get", "list", "watch"), False),
    # kubexec.sh: kubectl exec into exactly the job's worker pods.
    ("", "pods/exec", ("create",), True),
    # GitOps profiles: the launcher scales exactly its own StatefulSet to 0 when mpirun succeeds.
    ("apps", "statefulsets", ("get", "patch", "update"), True),
    ("apps", "statefulsets/scale", ("get", "patch", "update"), True),
    # Target jobset, default key strategy: the key generator creates the run's Secret, which
    # Kubernetes cannot restrict by name (the name of an object to be created is not known
    # when the request is authorized), and replaces exactly that Secret on a restart.
    ("", "secrets", ("create",), False),
    ("", "secrets", ("get", "delete"), True),
}


def test_every_permission_is_on_the_allowlist_and_named_where_kubernetes_allows():
    seen = set()
    for stream, obj in objects():
        if obj["kind"] != "Role":
            continue
        job = obj["metadata"]["name"].removesuffix("-launcher").removesuffix("-ssh-keygen")
        for rule in obj["rules"]:
            for group in rule["apiGroups"]:
                for resource in rule["resources"]:
                    key = (group, resource, tuple(rule["verbs"]), "resourceNames" in rule)
                    assert key in ALLOWED_RULES, (stream, obj["metadata"]["name"], rule)
                    seen.add(key)
                    for name in rule.get("resourceNames", []):
                        # the job's own objects only: its workers, or its run's key
                        assert name.startswith(job + "-worker") or name == job + "-ssh", (stream, name)
    assert seen == ALLOWED_RULES  # every allowed rule is in use (no stale entries)


def test_nothing_cluster_scoped_but_the_crd_asked_for():
    for stream, obj in objects():
        if obj["kind"] in ("ClusterRole", "ClusterRoleBinding", "Namespace", "PriorityClass", "StorageClass",
                           "PersistentVolume", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"):
            pytest.fail(f"{stream}: {obj['kind']} {obj['metadata']['name']}")
        if obj["kind"] == "CustomResourceDefinition":
            assert stream.startswith("crd-") and obj["metadata"]["name"] == "mpijobs.kubeflow.org"
        else:
            assert obj["metadata"].get("namespace"), (stream, obj["kind"], obj["metadata"]["name"])


def test_no_secret_objects_and_secrets_only_by_name():
    names = {"Secret"}
    for stream, obj in objects():
        assert obj["kind"] not in names, stream
        for pod in pod_specs(obj):
            for volume in pod.get("volumes", []):
                if "secret" in volume:
                    assert set(volume["secret"]) <= {"secretName", "items", "defaultMode", "optional"}
            for container in pod.get("containers", []) + pod.get("initContainers", []):
                for env in container.get("env", []):
                    # a value is never taken from a Secret's content into the manifest
                    assert "secretKeyRef" not in env.get("valueFrom", {}) or "value" not in env


def roles(obj: dict):
    """((apiVersion, kind or replica type), pod spec) of each pod template of an object: a
    workload's template, an MPIJob's replicas', or a JobSet's replicated jobs'."""
    spec = obj.get("spec") or {}
    if isinstance(spec.get("template"), dict):
        yield (obj["apiVersion"], obj["kind"]), spec["template"].get("spec", {})
    for role, replica in (spec.get("mpiReplicaSpecs") or {}).items():
        yield (obj["apiVersion"], role), replica.get("template", {}).get("spec", {})
    for replicated in spec.get("replicatedJobs") or []:
        yield (obj["apiVersion"], replicated["name"]), replicated["template"]["spec"]["template"].get("spec", {})


def pod_specs(obj: dict):
    for _, pod in roles(obj):
        yield pod


# --- Pod Security Standards, baseline level (the published policy, Kubernetes v1.30) --------

# Capabilities baseline allows to add (the "Capabilities" control).
BASELINE_CAPABILITIES = {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
                         "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}
SAFE_SYSCTLS = {"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start",
                "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports",
                "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
                "net.ipv4.tcp_keepalive_probes"}


def baseline_violations(pod: dict) -> list[str]:
    """Each baseline control the pod spec breaks, named as the standard names it."""
    out = []
    containers = pod.get("containers", []) + pod.get("initContainers", []) + pod.get("ephemeralContainers", [])
    contexts = [c.get("securityContext") or {} for c in containers]
    pod_context = pod.get("securityContext") or {}
    if any((ctx.get("windowsOptions") or {}).get("hostProcess") for ctx in contexts + [pod_context]):
        out.append("HostProcess")
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(key):
            out.append(f"Host Namespaces ({key})")
    if any(ctx.get("privileged") for ctx in contexts):
        out.append("Privileged Containers")
    for ctx in contexts:
        added = set((ctx.get("capabilities") or {}).get("add") or []) - BASELINE_CAPABILITIES
        out += [f"Capabilities ({name})" for name in sorted(added)]
    if any("hostPath" in volume for volume in pod.get("volumes", [])):
        out.append("HostPath Volumes")
    if any(port.get("hostPort") for c in containers for port in c.get("ports", [])):
        out.append("Host Ports")
    for ctx in contexts + [pod_context]:
        if (ctx.get("appArmorProfile") or {}).get("type") == "Unconfined":
            out.append("AppArmor")
        se_type = (ctx.get("seLinuxOptions") or {}).get("type")
        if se_type not in (None, "", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"):
            out.append("SELinux")
        if ctx.get("procMount") not in (None, "Default"):
            out.append("/proc Mount Type")
        if (ctx.get("seccompProfile") or {}).get("type") == "Unconfined":
            out.append("Seccomp")
    if any(s.get("name") not in SAFE_SYSCTLS for s in pod_context.get("sysctls", [])):
        out.append("Sysctls")
    return out


def test_the_baseline_check_knows_the_standard():
    assert baseline_violations({"containers": [{"name": "a"}]}) == []
    assert baseline_violations({
        "hostNetwork": True, "volumes": [{"name": "v", "hostPath": {"path": "/x"}}],
        "containers": [{"name": "a", "securityContext": {"privileged": True,
                                                         "capabilities": {"add": ["IPC_LOCK", "CHOWN"]}},
                        "ports": [{"containerPort": 1, "hostPort": 1}]}],
        "securityContext": {"sysctls": [{"name": "kernel.msgmax", "value": "1"}]},
    }) == ["Host Namespaces (hostNetwork)", "Privileged Containers", "Capabilities (IPC_LOCK)", "HostPath Volumes",
           "Host Ports", "Sysctls"]


def asked_capabilities(blueprint: dict) -> set[str]:
    spec = blueprint["spec"]
    capabilities = set((spec.get("security") or {}).get("capabilities", []))
    rdma = (spec.get("network") or {}).get("rdma")
    if rdma and rdma.get("ipcLock", True):
        capabilities.add("IPC_LOCK")
    return capabilities


def asked_for(blueprint: dict) -> set[str]:
    """The baseline controls a blueprint sets aside in so many words."""
    spec = blueprint["spec"]
    asked = set()
    if (spec.get("network") or {}).get("hostNetwork"):
        asked.add("Host Namespaces (hostNetwork)")
    if any("hostPath" in d for d in spec.get("datasets", [])):
        asked.add("HostPath Volumes")
    asked |= {f"Capabilities ({c})" for c in asked_capabilities(blueprint) - BASELINE_CAPABILITIES}
    if (spec.get("security") or {}).get("privileged"):
        asked.add("Privileged Containers")
    return asked


def blueprints_by_job() -> dict[str, dict]:
    out = {}
    for path in sorted((ROOT / "blueprints").glob("*.yaml")):
        blueprint = yaml.safe_load(path.read_text())
        out[blueprint["metadata"]["name"]] = blueprint
    return out


def test_default_output_meets_the_baseline_and_exceptions_are_asked_for():
    """Every pod template of every golden stream: baseline, but for what its blueprint asks."""
    jobs = blueprints_by_job()
    checked = exceptions = 0
    for stream, obj in objects():
        source = obj["metadata"].get("labels", {}).get("mpigen.dev/job")
        if source not in jobs:
            continue
        for pod in pod_specs(obj):
            violations = set(baseline_violations(pod))
            assert violations <= asked_for(jobs[source]), (stream, obj["kind"], obj["metadata"]["name"], violations)
            checked += 1
            exceptions += bool(violations)
    assert checked > 50 and exceptions  # the examples include jobs that ask (RDMA, host network, hostPath)


@pytest.mark.parametrize("name", [n for n, b in blueprints_by_job().items() if not asked_for(b)])
def test_examples_that_ask_for_nothing_meet_the_baseline_exactly(name):
    for stream, obj in objects():
        if obj["metadata"].get("labels", {}).get("mpigen.dev/job") == name:
            for pod in pod_specs(obj):
                assert baseline_violations(pod) == [], (stream, obj["kind"])


def test_the_folder_outputs_hold_the_same_objects_as_the_streams():
    """The checks above read the --stdout streams; the committed folders hold the same objects."""
    for stream in STREAMS:
        folder = GOLDEN / stream.stem
        in_folder = sorted(Path(p).read_text() for p in folder.rglob("*.yaml") if p.name != "kustomization.yaml")
        assert len(in_folder) == sum(1 for name, _ in objects() if name == stream.name), stream.name


# --- Capabilities and privilege escalation, container by container ---------------------------

# Capabilities a container may hold beyond what its blueprint asks for, and why.
TARGET_CAPABILITIES = {
    # The kubeflow.org/v2beta1 workers' sshd, when it runs as root: privilege separation
    # (SYS_CHROOT), becoming the user (SETUID, SETGID), port 22 (NET_BIND_SERVICE), the
    # audit record sshd built with Linux audit insists on (AUDIT_WRITE), and ending its
    # unprivileged pre-authentication child after a refused login (KILL).
    ("kubeflow.org/v2beta1", "Worker"): {"AUDIT_WRITE", "KILL", "NET_BIND_SERVICE", "SETGID", "SETUID",
                                         "SYS_CHROOT"},
    # The JobSet workers' sshd as root: the same, on port 2222 (no NET_BIND_SERVICE).
    ("jobset.x-k8s.io/v1alpha2", "worker"): {"AUDIT_WRITE", "KILL", "SETGID", "SETUID", "SYS_CHROOT"},
}
# The init container the operator adds, which the contract keeps field for field.
OPERATOR_CONTAINERS = {"kubectl-delivery"}


def test_every_container_drops_every_capability_it_was_not_asked_for():
    """Each container mpigen writes: allowPrivilegeEscalation false, capabilities drop ALL, and
    an add list within what its blueprint asks for (or its target needs, TARGET_CAPABILITIES);
    privileged only where the blueprint says privileged."""
    jobs = blueprints_by_job()
    seen: dict[str, set] = {}
    checked = 0
    for stream, obj in objects():
        source = obj["metadata"].get("labels", {}).get("mpigen.dev/job")
        if source not in jobs:
            continue
        security = jobs[source]["spec"].get("security") or {}
        for key, pod in roles(obj):
            for container in pod.get("containers", []) + pod.get("initContainers", []):
                where = (stream, obj["kind"], obj["metadata"]["name"], container["name"])
                if container["name"] in OPERATOR_CONTAINERS:
                    assert "securityContext" not in container, where
                    continue
                context = container["securityContext"]
                added = set(context.get("capabilities", {}).get("add", []))
                if context.get("privileged"):
                    assert security.get("privileged") is True, where
                else:
                    assert context["allowPrivilegeEscalation"] is False, where
                    assert context["capabilities"]["drop"] == ["ALL"], where
                    assert added <= asked_capabilities(jobs[source]) | TARGET_CAPABILITIES.get(key, set()), where
                for name in added:
                    seen.setdefault(name, set()).add(source)
                checked += 1
    assert checked > 50
    # Every capability in the golden output, with the jobs that hold it: a new one fails here.
    # A non-root sshd needs none; the examples all run as root (the static target's workers
    # must), and tests/acceptance/production/test_effective_pods.py renders non-root ones.
    as_root = {name for name, b in jobs.items() if not (b["spec"].get("security") or {}).get("runAsUser")}
    # the v2beta1 workers' own (NET_BIND_SERVICE), on the jobs the mpijob target renders
    mpijob_only = TARGET_CAPABILITIES[("kubeflow.org/v2beta1", "Worker")] - \
        TARGET_CAPABILITIES[("jobset.x-k8s.io/v1alpha2", "worker")]
    refused = {yaml.safe_load((ROOT / path).read_text())["metadata"]["name"] for path in MPIJOB_REFUSED}
    assert seen == {
        "IPC_LOCK": {"bert-large-ib"},
        **{name: as_root for capabilities in TARGET_CAPABILITIES.values() for name in capabilities},
        **{name: as_root - refused for name in mpijob_only},
    }, seen


# Pod templates whose containers call the Kubernetes API, by (apiVersion, kind or replica
# type), and why (shared/reference/mpi-operator.md 2.6, 3.6): they keep their token.
CALLS_API = {
    ("batch/v1", "Job"): "the static launcher: kubectl-delivery watches the worker pods, kubexec.sh "
                         "runs kubectl exec, through the Role of <job>-launcher",
    ("kubeflow.org/v1", "Launcher"): "the v1 MPIJob's launcher: the same, through the training-operator's Role",
}
TOKEN = "automountServiceAccountToken"


def every_pod(obj: dict):
    """(key, pod spec) of each pod template, a runtime's replicated jobs' included."""
    for key, pod in roles(obj):
        if "containers" in pod:
            yield key, pod
    if obj["kind"] in ("TrainingRuntime", "ClusterTrainingRuntime"):
        for replicated in obj["spec"]["template"]["spec"]["replicatedJobs"]:
            yield (obj["apiVersion"], replicated["name"]), replicated["template"]["spec"]["template"]["spec"]


def test_no_pod_gets_an_api_token_it_does_not_need():
    """Every pod template mpigen commits says automountServiceAccountToken: false, so that the
    job's image never sees a credential (docs/ssh.md), except a pod that calls the API
    (CALLS_API), one that runs as an account the blueprint names (the cluster's default),
    and one whose podTemplatePatch says otherwise (the blueprint's value)."""
    jobs = blueprints_by_job()
    seen = {"off": 0, "calls the API": 0}
    for stream, obj in objects():
        source = obj["metadata"].get("labels", {}).get("mpigen.dev/job")
        if source not in jobs:
            continue
        patches = jobs[source]["spec"].get("podTemplatePatch") or {}
        for key, pod in every_pod(obj):
            where = (stream, obj["kind"], obj["metadata"]["name"], key[1])
            role = "launcher" if key[1] in ("Job", "Launcher", "launcher") else "worker"
            patched = (patches.get(role) or {}).get("pod") or {}
            if TOKEN in patched:
                assert pod[TOKEN] == patched[TOKEN], where
            elif key in CALLS_API:
                assert TOKEN not in pod, where
                seen["calls the API"] += 1
            elif pod.get("serviceAccountName") and key[1] != "keygen":
                assert TOKEN not in pod, where
            else:
                assert pod[TOKEN] is False, where
                seen["off"] += 1
    assert seen["off"] > 100 and seen["calls the API"] > 10, seen
