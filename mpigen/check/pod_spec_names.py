"""What the API server refuses of the names and small values a podTemplatePatch writes into a
pod spec (Kubernetes v1.30 pkg/apis/core/validation/validation.go ValidatePodSpec), judged on
the compiled template:
- nodeName a DNS-1123 subdomain (ValidateNodeName, NameIsDNSSubdomain), hostname and
  subdomain DNS-1123 labels (ValidateDNS1123Label);
- hostAliases: each ip an IP address (IsValidIP), each of its hostnames a DNS-1123 subdomain
  (ValidateHostAliases);
- runtimeClassName a DNS-1123 subdomain (ValidateRuntimeClassName);
- preemptionPolicy PreemptLowerPriority or Never (ValidatePreemptionPolicy);
- readinessGates: each conditionType a qualified name (validateReadinessGates,
  ValidateQualifiedName);
- schedulingGates: each name a qualified name, none twice (validateSchedulingGates);
- activeDeadlineSeconds from 1 to 2147483647 (the Job templates'; a StatefulSet's may have
  none at all: mpigen.check.pod_templates);
- securityContext.sysctls: each name given and IsValidSysctlName's (at most 253 characters of
  segments of a-z, 0-9, '-' and '_', joined by '.' or '/': SysctlContainSlashFmt;
  validatePodSpecSecurityContext -> validateSysctls)."""

from __future__ import annotations

import re
from typing import Any

from mpigen.check.dns_config import is_ip
from mpigen.check.selectors import key_problem
from mpigen.kube.names import is_dns1123_label, is_dns1123_subdomain

Problem = tuple[str, tuple, str]
PREEMPTION_POLICIES = ("Never", "PreemptLowerPriority")
MAX_INT32 = 2**31 - 1
NAMED = (("nodeName", is_dns1123_subdomain, "a DNS-1123 subdomain", "ValidateNodeName"),
         ("hostname", is_dns1123_label, "a DNS-1123 label", "ValidateDNS1123Label"),
         ("subdomain", is_dns1123_label, "a DNS-1123 label", "ValidateDNS1123Label"),
         ("runtimeClassName", is_dns1123_subdomain, "a DNS-1123 subdomain", "ValidateRuntimeClassName"))
_SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"  # SysctlSegmentFmt
_SYSCTL = re.compile(f"^({_SYSCTL_SEGMENT}[\\./])*{_SYSCTL_SEGMENT}$")  # SysctlContainSlashFmt
MAX_SYSCTL = 253  # SysctlMaxLength


def name_problems(template: dict) -> list[Problem]:
    """Each problem of the pod spec's names and small values, with its path in the pod spec."""
    spec = template.get("spec", {})
    found: list[tuple[tuple, str]] = []
    for key, ok, what, rule in NAMED:
        if spec.get(key) not in (None, "") and not ok(spec[key]):
            found.append(((key,), f"{spec[key]!r} is not {what} ({rule})"))
    policy = spec.get("preemptionPolicy")
    if policy is not None and policy not in PREEMPTION_POLICIES:
        found.append((("preemptionPolicy",), f"{policy!r} is not one of {', '.join(PREEMPTION_POLICIES)} "
                                             "(ValidatePreemptionPolicy)"))
    deadline = spec.get("activeDeadlineSeconds")
    if isinstance(deadline, int) and not isinstance(deadline, bool) and not 1 <= deadline <= MAX_INT32:
        found.append((("activeDeadlineSeconds",), f"{deadline} is not from 1 to {MAX_INT32} (ValidatePodSpec)"))
    found += _host_aliases(spec.get("hostAliases")) + _gates(spec) + _sysctls(spec)
    return [("pod", path, message) for path, message in found]


def _host_aliases(aliases: Any) -> list[tuple[tuple, str]]:
    out = []
    for i, alias in enumerate(aliases if isinstance(aliases, list) else []):
        alias = alias if isinstance(alias, dict) else {}
        if not is_ip(alias.get("ip")):
            out.append((("hostAliases", i, "ip"), f"{alias.get('ip')!r} is not an IP address (ValidateHostAliases, "
                                                  "IsValidIP)"))
        for j, name in enumerate(alias.get("hostnames") or []):
            if not is_dns1123_subdomain(name):
                out.append((("hostAliases", i, "hostnames", j), f"{name!r} is not a DNS-1123 subdomain "
                                                                "(ValidateHostAliases)"))
    return out


def _gates(spec: dict) -> list[tuple[tuple, str]]:
    out = []
    for i, gate in enumerate(spec.get("readinessGates") or []):
        problem = key_problem(gate.get("conditionType") if isinstance(gate, dict) else None)
        if problem:
            out.append((("readinessGates", i, "conditionType"), f"{problem.replace('the key', 'the condition type')} "
                                                                "(validateReadinessGates)"))
    seen: set = set()
    for i, gate in enumerate(spec.get("schedulingGates") or []):
        name = gate.get("name") if isinstance(gate, dict) else None
        problem = key_problem(name)
        if problem:
            out.append((("schedulingGates", i, "name"), f"{problem.replace('the key', 'the gate')} "
                                                        "(validateSchedulingGates)"))
        elif name in seen:
            out.append((("schedulingGates", i, "name"), f"{name!r} is already a scheduling gate of the pod "
                                                        "(validateSchedulingGates: Duplicate)"))
        seen.add(name)
    return out


def _sysctls(spec: dict) -> list[tuple[tuple, str]]:
    context = spec.get("securityContext")
    sysctls = context.get("sysctls") if isinstance(context, dict) else None
    out = []
    for i, sysctl in enumerate(sysctls if isinstance(sysctls, list) else []):
        name = sysctl.get("name") if isinstance(sysctl, dict) else None
        if not isinstance(name, str) or len(name) > MAX_SYSCTL or not _SYSCTL.fullmatch(name):
            out.append((("securityContext", "sysctls", i, "name"),
                        f"{name!r} is no sysctl name (IsValidSysctlName: at most {MAX_SYSCTL} characters of segments "
                        "of a-z, 0-9, '-' and '_' joined by '.' or '/')"))
    return out
