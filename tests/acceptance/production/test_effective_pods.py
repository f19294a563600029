"""Checks judge the pods as they will run (mpigen.check.effective): a user, a group, the
host network or a port set through spec.podTemplatePatch, directly or by an overlay, is
judged as the same value set by the blueprint's own field, on every target, and reported at
the line that set it. Each case was accepted before (exit 0) and the job never worked:

- a non-root user without fsGroup cannot read the SSH key the jobset and trainjob targets
  mount as root's (group-readable only), nor the keys the MPI Operator mounts at /root/.ssh;
  on the static target, kubexec.sh writes into the worker's /etc/hosts as its user;
- fsGroup with a root user makes the jobset key group-readable, which root's ssh refuses
  (OpenSSH sshkey.c sshkey_perm_ok: "UNPROTECTED PRIVATE KEY FILE");
- a pod on the node's network without dnsPolicy ClusterFirstWithHostNet resolves with the
  node's DNS (Kubernetes docs, "Pod's DNS Policy"), and two on one node share its ports;
- a second port named `ssh` or on the sshd port: the API server refuses two ports of one
  name (validateContainerPorts), a JobSet's schema two of one number and protocol
  (jobset v0.12.0 CRD: ports are a list-map keyed by containerPort and protocol);
- runAsUser 0 with runAsNonRoot: the kubelet refuses to start the container.
"""

from __future__ import annotations

import pytest

from tests.support.text import write

HEAD = """\
apiVersion: mpigen.dev/v1alpha1
kind: MPIJobBlueprint
metadata: {name: eff}
spec:
  image: registry.example.com/train:1
  workers: 2
  command: [python, train.py]
"""
TARGETS = ("static", "mpijob", "jobset", "trainjob")


def _errors(done) -> list[str]:
    return [line for line in done.stderr.splitlines() if ": error: " in line]


def _at(done, line: int, column: int, *words: str) -> None:
    """Exit 2, nothing written, and an error at job.yaml:line:column saying each of words."""
    assert done.returncode == 2 and done.stdout == b"", done.stderr
    found = [e for e in _errors(done) if e.startswith(f"job.yaml:{line}:{column}: error: ")]
    assert found and all(w in found[0] for w in words), done.stderr


PATCHED_USER = HEAD + """\
  podTemplatePatch:
    worker:
      pod:
        securityContext: {runAsUser: 1000}
"""


@pytest.mark.parametrize("target, words", [
    ("static", ("kubexec.sh", "/etc/hosts", "--target jobset")),
    ("mpijob", ("/root/.ssh", "sshAuthMountPath")),
    ("jobset", ("cannot read the SSH key", "set fsGroup in spec.podTemplatePatch.worker.pod.securityContext")),
    ("trainjob", ("cannot read the SSH key", "set fsGroup in spec.podTemplatePatch.worker.pod.securityContext")),
])
def test_a_non_root_user_set_by_a_patch_is_judged_as_the_fields(cli_job, target, words):
    _at(cli_job(PATCHED_USER, "render", "--stdout", "--target", target), 11, 38,
        "spec.podTemplatePatch.worker.pod.securityContext.runAsUser: the ", *words)


@pytest.mark.parametrize("target", ["jobset", "trainjob"])
def test_the_fix_the_message_names_renders_a_key_the_user_reads_through_its_group(cli_job, target):
    fixed = PATCHED_USER.replace("{runAsUser: 1000}", "{runAsUser: 1000, fsGroup: 1000}")
    done = cli_job(fixed, "render", "--stdout", "--target", target)
    assert done.returncode == 0 and _errors(done) == [], done.stderr


def test_fs_group_with_a_root_user_set_by_a_patch_is_refused_at_the_patch(cli_job):
    text = HEAD + "  podTemplatePatch:\n    launcher:\n      pod:\n        securityContext: {fsGroup: 1000}\n"
    _at(cli_job(text, "render", "--stdout", "--target", "jobset"), 11, 36,
        "spec.podTemplatePatch.launcher.pod.securityContext.fsGroup: with --target jobset the user of the launcher is "
        "root",
        "UNPROTECTED PRIVATE KEY FILE")


HOST_PATCH = HEAD + "  ssh: {port: 22}\n  podTemplatePatch:\n    worker:\n      pod: {hostNetwork: true}\n"


@pytest.mark.parametrize("target", TARGETS)
def test_the_host_network_set_by_a_patch_needs_what_the_field_brings(cli_job, target):
    done = cli_job(HOST_PATCH, "render", "--stdout", "--target", target)
    _at(done, 11, 26, "spec.podTemplatePatch.worker.pod.hostNetwork: the worker pod is on the node's network",
        "dnsPolicy ClusterFirst", "not kept one per node", "use spec.network.hostNetwork: true")
    port_22 = [e for e in _errors(done) if e.startswith("job.yaml:8:15: error: spec.ssh.port: 22 is the node's own")]
    assert bool(port_22) == (target in ("jobset", "trainjob")), done.stderr
    if port_22:
        assert "(set by spec.podTemplatePatch.worker.pod.hostNetwork)" in port_22[0]


@pytest.mark.parametrize("target", ["static", "jobset", "trainjob"])
def test_a_rank_launcher_put_on_the_nodes_network_by_a_patch_is_refused(cli_job, target):
    text = HEAD + ("  launcher: {runAsWorker: true}\n  podTemplatePatch:\n    launcher:\n"
                   "      pod: {hostNetwork: true, dnsPolicy: ClusterFirstWithHostNet}\n")
    _at(cli_job(text, "render", "--stdout", "--target", target), 8, 27,
        "spec.launcher.runAsWorker with hostNetwork (set by spec.podTemplatePatch.launcher.pod.hostNetwork)")


@pytest.mark.parametrize("port, words", [
    ("{name: ssh, containerPort: 9000}", "port is named ssh"),
    ("{name: sshd, containerPort: 2222}", "port is TCP port 2222"),
])
@pytest.mark.parametrize("target", ["jobset", "trainjob"])
def test_a_port_the_target_gives_sshd_is_refused_at_the_patchs_item(cli_job, target, port, words):
    text = HEAD + f"  podTemplatePatch:\n    worker:\n      container:\n        ports:\n        - {port}\n"
    _at(cli_job(text, "render", "--stdout", "--target", target), 12, 11,
        "spec.podTemplatePatch.worker.container.ports[0]: the worker container's " + words)


@pytest.mark.parametrize("target", TARGETS)
def test_other_ports_render_and_a_port_declared_twice_is_refused(cli_job, target):
    ports = "        - {name: metrics, containerPort: 9090}\n"
    text = HEAD + "  podTemplatePatch:\n    worker:\n      container:\n        ports:\n" + ports
    assert cli_job(text, "render", "--stdout", "--target", target).returncode == 0
    _at(cli_job(text + ports.replace("metrics", "prom"), "render", "--stdout", "--target", target), 13, 11,
        "spec.podTemplatePatch.worker.container.ports[1]: the worker container declares")


@pytest.mark.parametrize("target", TARGETS)
def test_root_under_run_as_non_root_is_refused_on_every_target(cli_job, target):
    text = HEAD + "  security: {runAsUser: 0, runAsNonRoot: true}\n"
    _at(cli_job(text, "render", "--stdout", "--target", target), 8, 25,
        "spec.security.runAsUser: 0 (root) with runAsNonRoot (spec.security.runAsNonRoot)",
        "the launcher and the workers")


def test_a_patch_an_overlay_writes_is_judged_and_reported_at_the_overlays_line(cli):
    write("blueprints/job.yaml", HEAD)
    write("overlays/dev/overlay.yaml", "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\ntarget: jobset\npatches:\n"
                                       "  - patch:\n      spec:\n        podTemplatePatch:\n          worker:\n"
                                       "            pod: {securityContext: {runAsUser: 1000}}\n")
    done = cli("render", "blueprints", "--overlay", "dev", "--stdout")
    assert done.returncode == 2 and done.stdout == b""
    assert [e.split(": error: ")[0] for e in _errors(done)] == ["overlays/dev/overlay.yaml:9:48"], done.stderr
    assert "spec.podTemplatePatch.worker.pod.securityContext.runAsUser: the user of the workers" in done.stderr
