"""What the API server refuses of the MPI container's ports and security context as a
podTemplatePatch writes them, each at the patch's line (Kubernetes v1.30
pkg/apis/core/validation/validation.go, and apimachinery pkg/util/validation/validation.go):
- validateContainerPorts: a port's name, where given, one IsValidPortName takes (at most 15
  characters of a-z, 0-9 and "-", at least one letter, no "-" at either end nor two side by
  side); containerPort, and hostPort where given, 1 to 65535 (IsValidPortNum); protocol TCP,
  UDP or SCTP (supportedPortProtocols);
- validateHostNetwork: on the node's network, a hostPort that is given equals containerPort
  ("must match `containerPort` when `hostNetwork` is true"; a template may leave it out);
- validateContainerSecurityContext: allowPrivilegeEscalation false beside `CAP_SYS_ADMIN` in
  capabilities.add, compared as written ("cannot set `allowPrivilegeEscalation` to false and
  `capabilities.Add` CAP_SYS_ADMIN"). Beside `privileged: true` it is refused where the patch
  is read (mpigen.validate.pod_patch)."""

from __future__ import annotations

import re

from mpigen.check.effective import EffectivePod
from mpigen.errors import Diagnostic, error
from mpigen.load.document import Document, field_path

PROTOCOLS = ("SCTP", "TCP", "UDP")  # core.supportedPortProtocols
_PORT_NAME_CHARSET = re.compile(r"^[-a-z0-9]+$")  # portNameCharsetRegex
_PORT_NAME_LETTER = re.compile(r"[a-z]")  # portNameOneLetterRegexp
SYS_ADMIN = "CAP_SYS_ADMIN"


def container_rules(doc: Document, pod: EffectivePod) -> list[Diagnostic]:
    """Each problem of the pod's MPI container at the line of the patch that writes it."""
    return [*_ports(doc, pod), *_escalation(doc, pod)]


def port_name_problems(name: str) -> list[str]:
    """IsValidPortName's messages for a port name (none: it takes the name)."""
    problems = []
    if len(name) > 15:
        problems.append("must be no more than 15 characters")
    if not _PORT_NAME_CHARSET.fullmatch(name):
        problems.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _PORT_NAME_LETTER.search(name):
        problems.append("must contain at least one letter (a-z)")
    if "--" in name:
        problems.append("must not contain consecutive hyphens")
    if name.startswith("-") or name.endswith("-"):
        problems.append("must not begin or end with a hyphen")
    return problems


def _ports(doc: Document, pod: EffectivePod) -> list[Diagnostic]:
    out = []
    for port in pod.ports:
        found = []
        if isinstance(port.name, str) and port.name and (problems := port_name_problems(port.name)):
            found.append((port.origin + ("name",), f"the port name {port.name!r} {'; '.join(problems)}", "rename it"))
        for key, value in (("containerPort", port.number), ("hostPort", port.host)):
            if isinstance(value, int) and not isinstance(value, bool) and value != 0 and not 1 <= value <= 65535:
                found.append((port.origin + (key,), f"{key} {value} is not a port number (1 to 65535)", "use a port number"))
        if port.number == 0:
            found.append((port.origin + ("containerPort",), "containerPort is required", "give the port's number"))
        if port.protocol not in PROTOCOLS:
            found.append((port.origin + ("protocol",), f"the protocol {port.protocol!r} is not one of "
                          f"{', '.join(PROTOCOLS)}", "use TCP, UDP or SCTP"))
        if (pod.host_network.value is True and isinstance(port.host, int) and port.host != 0
                and port.host != port.number):
            found.append((port.origin + ("hostPort",), f"hostPort {port.host} differs from containerPort {port.number} "
                          f"on the node's network (\"must match `containerPort` when `hostNetwork` is true\")",
                          "leave hostPort out (it is the containerPort there) or make the two equal"))
        for loc, problem, fix in found:
            where = loc if doc.get(loc) is not None else port.origin
            out.append(error(doc.value_mark(where), f"{field_path(loc)}: {problem} (a port of the {pod.role} container), "
                                                    f"which the API server refuses; {fix}"))
    return out


def _escalation(doc: Document, pod: EffectivePod) -> list[Diagnostic]:
    context = (pod.spec.get("containers") or [{}])[0].get("securityContext") or {}
    added = (context.get("capabilities") or {}).get("add") or []
    if context.get("allowPrivilegeEscalation") is not False or SYS_ADMIN not in added:
        return []
    loc = ("spec", "podTemplatePatch", pod.role, "container", "securityContext", "capabilities", "add",
           added.index(SYS_ADMIN))
    where = loc if doc.get(loc) is not None else ("spec", "podTemplatePatch", pod.role, "container", "securityContext")
    return [error(doc.value_mark(where),
                  f"{field_path(loc)}: {SYS_ADMIN} with allowPrivilegeEscalation: false, which the API server refuses "
                  "(\"cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN\"); a process "
                  "with CAP_SYS_ADMIN can gain privileges anyway: drop one of the two")]
