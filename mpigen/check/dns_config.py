"""What the API server refuses of a pod template's dnsConfig and dnsPolicy (Kubernetes v1.30
pkg/apis/core/validation/validation.go validatePodDNSConfig), judged on the compiled template,
whose dnsPolicy is the effective one (spec.network.hostNetwork writes ClusterFirstWithHostNet,
and a patch may not write it beside that):
- dnsPolicy None: a dnsConfig ("must provide `dnsConfig` when `dnsPolicy` is None") with at
  least one nameserver ("must provide at least one DNS nameserver when `dnsPolicy` is None");
- at most 3 nameservers (MaxDNSNameservers), each an IP address (IsValidIP, which parses with
  netutils.ParseIPSloppy: no zone, IPv4 parts with leading zeros taken);
- at most 32 search domains (MaxDNSSearchPaths) of at most 2048 characters joined by spaces
  (MaxDNSSearchListChars), each, without one trailing dot, a DNS-1123 subdomain;
- each option has a name ("must not be empty")."""

from __future__ import annotations

import ipaddress
import re

from mpigen.kube.names import is_dns1123_subdomain

Problem = tuple[str, tuple, str]
NONE = "None"  # core.DNSNone
MAX_NAMESERVERS, MAX_SEARCHES, MAX_SEARCH_CHARS = 3, 32, 2048
_SLOPPY_V4 = re.compile(r"^([0-9]+)\.([0-9]+)\.([0-9]+)\.([0-9]+)$")


def dns_problems(template: dict) -> list[Problem]:
    """Each problem of the template's DNS settings, with its path in the pod spec."""
    spec = template.get("spec", {})
    config, policy = spec.get("dnsConfig"), spec.get("dnsPolicy")
    if policy == NONE:
        if not isinstance(config, dict):
            return [("pod", ("dnsPolicy",), "dnsPolicy None needs a dnsConfig (\"must provide `dnsConfig` when "
                                            "`dnsPolicy` is None\", validatePodDNSConfig); give dnsConfig.nameservers "
                                            "or choose another dnsPolicy")]
        if not config.get("nameservers"):
            return [("pod", ("dnsConfig",), "dnsPolicy None needs a nameserver (\"must provide at least one DNS "
                                            "nameserver when `dnsPolicy` is None\", validatePodDNSConfig)")]
    if not isinstance(config, dict):
        return []
    return _nameservers(config) + _searches(config) + [
        ("pod", ("dnsConfig", "options", i), "a DNS option needs a name (\"must not be empty\", validatePodDNSConfig)")
        for i, option in enumerate(config.get("options") or []) if isinstance(option, dict) and not option.get("name")]


def is_ip(value: str) -> bool:
    """IsValidIP (netutils.ParseIPSloppy): an IPv4 or IPv6 address, no zone; an IPv4 part may
    have leading zeros."""
    if not isinstance(value, str) or "%" in value:
        return False
    if match := _SLOPPY_V4.fullmatch(value):
        return all(int(part) <= 255 for part in match.groups())
    try:
        ipaddress.IPv6Address(value)
    except ValueError:
        return False
    return True


def _nameservers(config: dict) -> list[Problem]:
    servers = config.get("nameservers") or []
    out = []
    if len(servers) > MAX_NAMESERVERS:
        out.append(("pod", ("dnsConfig", "nameservers"), f"{len(servers)} nameservers, and a pod \"must not have more "
                                                         f"than {MAX_NAMESERVERS} nameservers\" (validatePodDNSConfig)"))
    out += [("pod", ("dnsConfig", "nameservers", i), f"{server!r} is no IP address (IsValidIP, validatePodDNSConfig): "
                                                     "a nameserver is an address, never a name")
            for i, server in enumerate(servers) if not is_ip(server)]
    return out


def _searches(config: dict) -> list[Problem]:
    searches = [s for s in config.get("searches") or [] if isinstance(s, str)]
    out = []
    if len(searches) > MAX_SEARCHES:
        out.append(("pod", ("dnsConfig", "searches"), f"{len(searches)} search domains, and a pod \"must not have "
                                                      f"more than {MAX_SEARCHES} search paths\" (validatePodDNSConfig)"))
    if len(" ".join(searches)) > MAX_SEARCH_CHARS:
        out.append(("pod", ("dnsConfig", "searches"), f"the search domains joined by spaces are "
                                                      f"{len(' '.join(searches))} characters, and a pod \"must not "
                                                      f"have more than {MAX_SEARCH_CHARS} characters (including "
                                                      "spaces) in the search list\" (validatePodDNSConfig)"))
    for i, search in enumerate(searches):
        name = search[:-1] if search.endswith(".") else search
        if not is_dns1123_subdomain(name):
            out.append(("pod", ("dnsConfig", "searches", i), f"the search domain {search!r} is no DNS-1123 subdomain "
                                                             "(lowercase letters, digits, '-' and '.', at most 253; one "
                                                             "trailing dot allowed; validatePodDNSConfig)"))
    return out
