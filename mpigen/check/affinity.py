"""What the API server refuses of a pod template's affinity (Kubernetes v1.30
pkg/apis/core/validation/validation.go validateAffinity), judged on the compiled template: what
spec.placement.<role>.affinity or podTemplatePatch.<role>.pod.affinity writes (the two may not
both be given), beside which mpigen's own anti-affinity of onePodPerNode keeps the rules.
- validateNodeAffinity -> ValidateNodeSelector: a required node selector has a term ("must
  have at least one node selector term"); ValidateNodeSelectorTerm: each matchExpressions
  requirement (validateNodeSelectorRequirement) and matchFields requirement
  (validateNodeFieldSelectorRequirement), see mpigen.check.selectors;
  ValidatePreferredSchedulingTerms: a weight from 1 to 100 ("must be in the range 1-100");
- validatePodAffinity, validatePodAntiAffinity -> validatePodAffinityTerm: labelSelector and
  namespaceSelector (ValidateLabelSelector), namespaces DNS-1123 labels
  (ValidateNamespaceName), a topologyKey ("can not be empty") that is a qualified name
  (ValidateLabelName); validateWeightedPodAffinityTerms: a weight from 1 to 100."""

from __future__ import annotations

from typing import Any

from mpigen.check.selectors import (NEVER_SCHEDULED, field_requirement_problems, key_problem, label_selector_problems,
                                   requirement_problems)
from mpigen.kube.names import is_dns1123_label

Problem = tuple[str, tuple, str]
Found = list[tuple[tuple, str]]
REQUIRED, PREFERRED = "requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution"


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def affinity_problems(template: dict) -> list[Problem]:
    """Each problem of the template's affinity, with its path in the pod spec."""
    affinity = _dict(template.get("spec", {}).get("affinity"))
    found = [(("nodeAffinity",) + path, message) for path, message in _node(_dict(affinity.get("nodeAffinity")))]
    for kind in ("podAffinity", "podAntiAffinity"):
        found += [((kind,) + path, message) for path, message in _pod(_dict(affinity.get(kind)))]
    return [("pod", ("affinity",) + path, message if NEVER_SCHEDULED in message else f"{message} (validateAffinity)")
            for path, message in found]


def _weight(term: dict) -> Found:
    weight = term.get("weight")
    if isinstance(weight, int) and not isinstance(weight, bool) and not 1 <= weight <= 100:
        return [(("weight",), f"weight {weight} \"must be in the range 1-100\"")]
    return []


def _node_term(term: Any) -> Found:
    term = _dict(term)
    out: Found = []
    for i, requirement in enumerate(_list(term.get("matchExpressions"))):
        out += requirement_problems(_dict(requirement), ("matchExpressions", i), node=True)
    for i, requirement in enumerate(_list(term.get("matchFields"))):
        out += field_requirement_problems(_dict(requirement), ("matchFields", i))
    return out


def _node(node: dict) -> Found:
    out: Found = []
    if REQUIRED in node:
        terms = _list(_dict(node[REQUIRED]).get("nodeSelectorTerms"))
        if not terms:
            out.append(((REQUIRED,), "a required node affinity \"must have at least one node selector term\""))
        for i, term in enumerate(terms):
            out += [((REQUIRED, "nodeSelectorTerms", i) + path, message) for path, message in _node_term(term)]
    for i, term in enumerate(_list(node.get(PREFERRED))):
        term = _dict(term)
        out += [((PREFERRED, i) + path, message) for path, message in _weight(term)]
        out += [((PREFERRED, i, "preference") + path, message) for path, message in _node_term(term.get("preference"))]
    return out


def _pod_term(term: Any) -> Found:
    term = _dict(term)
    out: Found = [(("labelSelector",) + path, message) for path, message in
                  label_selector_problems(term.get("labelSelector"))]
    out += [(("namespaceSelector",) + path, message) for path, message in
            label_selector_problems(term.get("namespaceSelector"))]
    out += [(("namespaces", i), f"the namespace {name!r} is no DNS-1123 label (ValidateNamespaceName)")
            for i, name in enumerate(_list(term.get("namespaces")))
            if not is_dns1123_label(name)]
    key = term.get("topologyKey")
    if not key:
        out.append((("topologyKey",), "a pod affinity term needs a topologyKey (\"can not be empty\"), the node "
                                      "label whose value makes a domain, e.g. kubernetes.io/hostname"))
    elif problem := key_problem(key):
        out.append((("topologyKey",), problem))
    return out


def _pod(pod: dict) -> Found:
    out: Found = []
    for i, term in enumerate(_list(pod.get(REQUIRED))):
        out += [((REQUIRED, i) + path, message) for path, message in _pod_term(term)]
    for i, term in enumerate(_list(pod.get(PREFERRED))):
        term = _dict(term)
        out += [((PREFERRED, i) + path, message) for path, message in _weight(term)]
        out += [((PREFERRED, i, "podAffinityTerm") + path, message)
                for path, message in _pod_term(term.get("podAffinityTerm"))]
    return out
