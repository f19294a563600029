"""The image's sshd as the workers' process, for the targets that start ranks over SSH
(mpijob v2beta1, jobset, trainjob): what a root sshd needs of the capabilities every mpigen
container drops, and the ports and networks an sshd of mpigen's (jobset, trainjob) cannot use.

Found by running OpenSSH's sshd with only these in its bounding set and dropping each in
turn: SYS_CHROOT (privilege separation), SETUID and SETGID (becoming the user), AUDIT_WRITE
(sshd built with Linux audit, the Red Hat family, refuses logins it cannot record), KILL
(ending its unprivileged pre-authentication child when a login fails), and NET_BIND_SERVICE
for a port below 1024. A non-root sshd needs none.
"""

from __future__ import annotations

from mpigen.errors import Diagnostic, error
from mpigen.formats.blueprint import Blueprint
from mpigen.load.document import Document
from mpigen.render.checks import launcher_on_host_network


STANDARD_PORT = 22


def root_capabilities(port: int) -> tuple[str, ...]:
    """What a root sshd listening on `port` needs, in order."""
    needed = ("AUDIT_WRITE", "KILL", "SETGID", "SETUID", "SYS_CHROOT") + (("NET_BIND_SERVICE",) if port < 1024 else ())
    return tuple(sorted(needed))


# What an sshd on the standard port needs when it runs as root (the MPI Operator's v2beta1
# workers, as its images run it); a non-root sshd needs none.
STANDARD_ROOT_CAPABILITIES = root_capabilities(STANDARD_PORT)


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


def sshd_checks(doc: Document, blueprint: Blueprint, non_root: bool) -> list[Diagnostic]:
    """What the workers' sshd cannot do: bind a port below 1024 as a non-root user, share the
    node's own port 22 under hostNetwork; and what mpirun cannot do over it: tell that a
    host-network launcher in the hostfile is itself."""
    spec, port = blueprint.spec, blueprint.spec.ssh.port
    out = []
    if non_root and port < 1024:
        out.append(error(doc.value_mark(("spec", "ssh", "port")),
                         f"spec.ssh.port: {port} is below 1024, which a non-root sshd cannot bind; use 2222 "
                         "(the default)"))
    if spec.network.hostNetwork and port == 22:
        out.append(error(doc.value_mark(("spec", "ssh", "port")),
                         "spec.ssh.port: 22 is the node's own sshd under hostNetwork; use 2222 (the default)"))
    return out + launcher_on_host_network(doc, blueprint, "the hostfile's launcher is itself and would ssh to it; "
                                                          "keep the launcher off the host network")
