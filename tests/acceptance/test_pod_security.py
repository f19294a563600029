"""Pod Security Standards at render time (issue 31, item 4): mpigen.yaml or an overlay states
the level the namespaces enforce (podSecurity), and every pod the cluster will run, the
targets' own additions included, is checked against it: each refused field an error at the
blueprint line that set it, or at the blueprint's path where none did (exit 2, nothing
written); a blueprint that meets restricted renders clean on every target that can.

What each level refuses is Kubernetes' pod-security-admission at v0.36.2 (its own fixtures
test mpigen.kube.pod_security: tests/unit/kube/test_pod_security.py); expected positions are
computed from the YAML text written here (`pos`), never typed in."""

from __future__ import annotations

import pytest
import yaml

from tests.support.text import pos, write

TARGETS = ("static", "mpijob", "jobset", "trainjob")
CONFIG = "apiVersion: mpigen.dev/v1alpha1\nkind: Config\nblueprints: [job.yaml]\n"
HEAD = """\
apiVersion: mpigen.dev/v1alpha1
kind: MPIJobBlueprint
metadata:
  name: pi
spec:
  image: mpioperator/mpi-pi:openmpi
  workers: 2
  command: [/home/mpiuser/pi]
  resources:
    worker: {cpu: 1, memory: 1Gi}
    launcher: {cpu: 1, memory: 1Gi}
"""
# What restricted asks of a blueprint: a non-root user that the SSH keys are readable by, and a
# seccomp profile (mpijob v2beta1 mounts the keys where sshAuthMountPath says).
RESTRICTED = HEAD + """\
  security:
    runAsUser: 1000
    runAsGroup: 1000
    fsGroup: 1000
    runAsNonRoot: true
    seccompProfile: {type: RuntimeDefault}
    sshAuthMountPath: /home/mpiuser/.ssh
"""
# Everything baseline refuses that a blueprint can say in so many words.
HOSTILE = HEAD + """\
  network:
    hostNetwork: true
  datasets:
    - {name: scratch, mountPath: /scratch, hostPath: /mnt/scratch}
  security:
    capabilities: [SYS_PTRACE]
  podTemplatePatch:
    worker:
      container:
        ports: [{containerPort: 5000, hostPort: 5000}]
"""


def _run(cli, text: str, level: str | None, *args: str):
    write("mpigen.yaml", CONFIG + (f"podSecurity: {level}\n" if level else ""))
    write("job.yaml", text)
    return cli("render", "--stdout", "--no-cache", *args)


def _at(text: str, needle: str, sub: str | None = None) -> str:
    line, column = pos(text, needle, sub)
    return f"job.yaml:{line}:{column}: error: "


def _refused(done) -> list[str]:
    assert done.returncode == 2, done.stderr
    assert done.stdout == b"" and "Traceback" not in done.stderr
    return done.lines("error")


@pytest.mark.parametrize("target", ["mpijob", "jobset", "trainjob"])
@pytest.mark.parametrize("level", ["baseline", "restricted"])
def test_a_blueprint_that_meets_restricted_renders_clean(cli, target, level):
    done = _run(cli, RESTRICTED, level, "--target", target)
    assert done.returncode == 0, done.stderr
    assert done.lines("error") == []


@pytest.mark.parametrize("target", TARGETS)
def test_seccomp_profile_is_on_every_pod_of_every_target(cli, target):
    """The new field renders the same under every target: every pod template's securityContext."""
    from mpigen.render.refusals import pod_templates

    # the static target's workers run as root (kubexec.sh writes their /etc/hosts): its own user
    text = RESTRICTED if target != "static" else HEAD + "  security:\n    seccompProfile: {type: RuntimeDefault}\n"
    done = _run(cli, text, None, "--target", target)
    assert done.returncode == 0, done.stderr
    templates = [t for obj in yaml.safe_load_all(done.stdout.decode()) if obj for _, t in pod_templates(obj)]
    assert templates
    assert all(t["spec"]["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"} for t in templates)


@pytest.mark.parametrize("target", TARGETS)
def test_what_baseline_refuses_is_an_error_at_the_line_that_asks_for_it(cli, target):
    errors = _refused(_run(cli, HOSTILE, "baseline", "--target", target))
    expected = {
        _at(HOSTILE, "hostNetwork: true", "true") + "spec.network.hostNetwork: ": "control hostNamespaces",
        _at(HOSTILE, "hostPath: /mnt/scratch", "/mnt") + "spec.datasets[0].hostPath: ": "control hostPathVolumes",
        _at(HOSTILE, "[SYS_PTRACE]") + "spec.security.capabilities: ": "control capabilities_baseline",
        _at(HOSTILE, "hostPort: 5000", "5000") + "spec.podTemplatePatch.worker.container.ports[0].hostPort: ":
            "control hostPorts",
    }
    for start, control in expected.items():
        assert any(e.startswith(start + "the namespace's Pod Security level baseline") and control in e
                   for e in errors), (start, errors)


@pytest.mark.parametrize("target", ["static", "jobset"])
def test_validate_refuses_what_render_refuses(cli, target):
    """`mpigen validate` runs every check of render: the Pod Security level's too."""
    rendered = _refused(_run(cli, HOSTILE, "baseline", "--target", target))
    validated = cli("validate", "--no-cache", "--target", target)
    assert validated.returncode == 2 and "Traceback" not in validated.stderr
    assert validated.lines("error") == rendered


@pytest.mark.parametrize("target", TARGETS)
def test_nothing_is_checked_without_a_level_or_at_privileged(cli, target):
    for level in (None, "privileged"):
        done = _run(cli, HOSTILE, level, "--target", target)
        assert "Pod Security" not in done.stderr


def test_a_root_sshd_meets_baseline_and_not_restricted(cli):
    """A root sshd's capabilities (AUDIT_WRITE, KILL, SETGID, SETUID, SYS_CHROOT) are all in
    baseline's default set; restricted allows only NET_BIND_SERVICE, and no root."""
    assert _run(cli, HEAD, "baseline", "--target", "jobset").returncode == 0
    errors = _refused(_run(cli, HEAD, "restricted", "--target", "jobset"))
    assert all(e.startswith("error: job.yaml: the namespace's Pod Security level restricted") for e in errors)
    assert any("capabilities.add = AUDIT_WRITE, KILL, SETGID, SETUID, SYS_CHROOT" in e
               and "target jobset (or the controller it renders for) writes this itself and cannot meet restricted" in e
               and "a non-root spec.security.runAsUser needs none" in e for e in errors), errors
    assert any("runAsNonRoot = unset" in e and "set spec.security.runAsNonRoot: true" in e for e in errors)
    assert any("seccompProfile = unset" in e and "set spec.security.seccompProfile: {type: RuntimeDefault}" in e
               for e in errors)


def test_the_static_target_cannot_meet_restricted(cli):
    """Restricted needs a non-root user, which the static target refuses (kubexec.sh writes the
    workers' /etc/hosts); and the operator's kubectl-delivery init container, which the static
    target keeps as the operator builds it, sets no securityContext."""
    errors = _refused(_run(cli, RESTRICTED, "restricted", "--target", "static"))
    assert [e.split(": error: ")[0] for e in errors] == [_at(RESTRICTED, "runAsUser: 1000", "1000").split(": error")[0]]
    assert "kubexec.sh" in errors[0]
    root = HEAD + "  security:\n    seccompProfile: {type: RuntimeDefault}\n"
    refused = [e for e in _refused(_run(cli, root, "restricted", "--target", "static")) if "Pod Security" in e]
    assert refused and all(e.startswith("error: job.yaml: ") for e in refused)
    assert any("spec.initContainers[0].securityContext.allowPrivilegeEscalation = unset in the pods of Job "
               "pi-launcher" in e and "target static (or the controller it renders for) writes this itself and "
               "cannot meet restricted" in e for e in refused), refused


def test_the_training_operators_kubectl_delivery_cannot_meet_restricted(cli):
    """kubeflow.org/v1: the training-operator appends kubectl-delivery, with no securityContext, to
    the launcher's pod (reference/mpi-operator.md, section 3.7); v2beta1 adds no container."""
    errors = _refused(_run(cli, RESTRICTED, "restricted", "--target", "mpijob", "--mpijob-api", "kubeflow.org/v1"))
    assert errors and all(e.startswith("error: job.yaml: ") and "spec.initContainers[0]" in e
                          and "MPIJob pi (spec.mpiReplicaSpecs.Launcher.template)" in e
                          and "mpijob with its default options, jobset, trainjob" in e for e in errors), errors


def test_the_level_is_checked_as_it_stands_at_the_kube_version(cli):
    """hostProbesAndHostLifecycle joined baseline in Kubernetes 1.34 (policy/check_hostProbesAndhostLifecycle.go)."""
    text = RESTRICTED + ("  podTemplatePatch:\n    worker:\n      container:\n"
                         "        readinessProbe: {tcpSocket: {port: 2222, host: 10.0.0.1}}\n")
    assert _run(cli, text, "baseline", "--target", "mpijob", "--kube-version", "1.33").returncode == 0
    errors = _refused(_run(cli, text, "baseline", "--target", "mpijob", "--kube-version", "1.34"))
    assert errors == [
        _at(text, "host: 10.0.0.1", "10.0") + "spec.podTemplatePatch.worker.container.readinessProbe.tcpSocket.host: "
        "the namespace's Pod Security level baseline (Kubernetes 1.34, control hostProbesAndHostLifecycle) refuses "
        "spec.containers[0].readinessProbe.tcpSocket.host = 10.0.0.1 in the pods of MPIJob pi "
        "(spec.mpiReplicaSpecs.Worker.template) (allowed: \"\" or unset)"]


def test_restricted_refuses_nfs_datasets_at_their_line(cli):
    text = RESTRICTED + "  datasets:\n    - {name: shared, mountPath: /shared, nfs: {server: nfs.example.com, path: /x}}\n"
    errors = _refused(_run(cli, text, "restricted", "--target", "jobset"))
    assert [e for e in errors if "Pod Security" in e] == [
        _at(text, "nfs: {server", "{server") + "spec.datasets[0].nfs: the namespace's Pod Security level restricted "
        "(Kubernetes 1.30, control restrictedVolumes) refuses spec.volumes[0].nfs = shared in the pods of JobSet pi "
        "(spec.replicatedJobs[1].template.spec.template) (allowed: only configMap, csi, downwardAPI, emptyDir, "
        "ephemeral, image, persistentVolumeClaim, projected, secret volumes)"]


def test_an_overlays_level_wins_and_its_patch_is_the_line_reported(cli):
    write("overlays/prod/overlay.yaml", overlay := (
        "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\npodSecurity: baseline\npatches:\n"
        "  - patch: {spec: {podTemplatePatch: {launcher: {pod: {hostPID: true}}}}}\n"))
    done = _run(cli, RESTRICTED, "privileged", "--target", "jobset", "--overlay", "prod")
    line, column = pos(overlay, "hostPID: true", "true")
    assert _refused(done) == [
        f"overlays/prod/overlay.yaml:{line}:{column}: error: spec.podTemplatePatch.launcher.pod.hostPID: the "
        "namespace's Pod Security level baseline (Kubernetes 1.30, control hostNamespaces) refuses spec.hostPID = "
        "true in the pods of JobSet pi (spec.replicatedJobs[2].template.spec.template) (allowed: false or unset)"]


def test_an_unknown_level_is_an_error_at_its_line(cli):
    write("mpigen.yaml", text := CONFIG + "podSecurity: restrcited\n")
    write("job.yaml", RESTRICTED)
    done = cli("render", "--stdout")
    assert done.returncode == 2
    line, column = pos(text, "restrcited")
    assert any(e.startswith(f"mpigen.yaml:{line}:{column}: error: ") for e in done.lines("error")), done.stderr
