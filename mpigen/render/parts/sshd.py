"""The image's sshd as the workers' process, for the targets that start ranks over SSH
(mpijob v2beta1, jobset, trainjob): what a root sshd needs of the capabilities every mpigen
container drops (mpigen.compile.root_sshd), and the ports and networks an sshd of mpigen's
(jobset, trainjob) cannot use.
"""

from __future__ import annotations

from collections.abc import Iterable

from mpigen.check.effective import EffectivePod, EffectivePods, set_by, sharing
from mpigen.check.pod_checks import port_taken
from mpigen.check.shared_rules import launcher_on_host_network
from mpigen.compile.root_sshd import STANDARD_PORT, root_capabilities
from mpigen.errors import Diagnostic, error
from mpigen.load.document import Document
from mpigen.render.parts.replicated import SSH_PORT_NAME


SSH_PORT = ("spec", "ssh", "port")


def runs_as_root(pod: dict) -> bool:
    """Whether the main container runs as root, as far as the pod spec says."""
    context = pod["containers"][0].get("securityContext", {})
    return context.get("runAsUser", pod.get("securityContext", {}).get("runAsUser", 0)) == 0


def allow_root_sshd(pod: dict, port: int) -> None:
    """Add what a root sshd needs to a main container that drops every capability (nothing
    to a non-root, a privileged, or a container that keeps the runtime's capabilities)."""
    context = pod["containers"][0].get("securityContext", {})
    if not runs_as_root(pod) or context.get("privileged") or "ALL" not in context.get("capabilities", {}).get("drop", []):
        return
    added = context["capabilities"].get("add", [])
    context["capabilities"]["add"] = added + [c for c in root_capabilities(port) if c not in added]


def sshd_checks(doc: Document, pods: EffectivePods, port: int, target: str) -> list[Diagnostic]:
    """What the workers' sshd cannot do, as the pods will run: bind a port below 1024 as a
    non-root user, share the node's own port 22 on its network, or listen on a port the
    container also declares; and what mpirun cannot do over it: tell that a host-network
    launcher in the hostfile is itself."""
    worker, out = pods.worker, []
    if worker.non_root and port < 1024:
        out.append(error(doc.value_mark(SSH_PORT),
                         f"spec.ssh.port: {port} is below 1024, which a non-root sshd cannot bind"
                         f"{set_by(worker.identity)}; use 2222 (the default)"))
    if worker.host_network.value is True and port == STANDARD_PORT:
        out.append(error(doc.value_mark(SSH_PORT),
                         f"spec.ssh.port: 22 is the node's own sshd under hostNetwork{set_by(worker.host_network)}; "
                         "use 2222 (the default)"))
    out += port_taken(doc, worker, SSH_PORT_NAME, port, f"--target {target} gives the workers' sshd (spec.ssh.port)")
    return out + launcher_on_host_network(doc, pods, "the hostfile's launcher is itself and would ssh to it; keep "
                                                     "the launcher off the host network")


def key_readers(doc: Document, pods: Iterable[EffectivePod], target: str) -> list[Diagnostic]:
    """A non-root user reads the run's key, which Kubernetes mounts as root's, through its
    group: fsGroup. Once per line that sets the user, whichever roles share it."""
    readers = [pod for pod in pods if pod.non_root and pod.fs_group.value is None]
    return [error(pod.mark(doc, pod.identity, ("spec", "security", "runAsUser")),
                  f"{pod.identity.where}: the user of {who} is not root, and cannot read the SSH key that --target "
                  f"{target} mounts as root's (group-readable only); {fs_group_advice(pod)} (for example to the "
                  "user's number) so that its group can")
            for pod, who in sharing(readers, lambda pod: pod.identity)]


def fs_group_advice(pod: EffectivePod) -> str:
    """Where to set the pod's fsGroup: beside the user when a patch sets the user (a
    podTemplatePatch securityContext and spec.security cannot both be set), else the field."""
    if pod.identity.origin and pod.identity.origin[:3] == ("spec", "podTemplatePatch", pod.role):
        return f"set fsGroup in spec.podTemplatePatch.{pod.role}.pod.securityContext"
    return "set spec.security.fsGroup"
