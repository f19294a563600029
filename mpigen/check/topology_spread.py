"""What the API server refuses of a pod template's topologySpreadConstraints (Kubernetes v1.30
pkg/apis/core/validation/validation.go validateTopologySpreadConstraints), judged on the
compiled template:
- ValidateMaxSkew: maxSkew above 0 ("must be greater than zero");
- ValidateTopologyKey: a topologyKey ("can not be empty");
- ValidateWhenUnsatisfiable: DoNotSchedule or ScheduleAnyway (field.NotSupported);
- ValidateSpreadConstraintNotRepeat: no two constraints of one {topologyKey, whenUnsatisfiable}
  (field.Duplicate, on the first of them);
- validateMinDomains: minDomains, where given, above 0 (ValidatePositiveField), and only with
  whenUnsatisfiable DoNotSchedule ("can only use minDomains if whenUnsatisfiable=DoNotSchedule");
- validateNodeInclusionPolicy: nodeAffinityPolicy and nodeTaintsPolicy, where given, Honor or
  Ignore (field.NotSupported);
- validateMatchLabelKeysInTopologySpread: matchLabelKeys need a labelSelector ("must not be
  specified when labelSelector is not set"), each a label key found in no requirement of the
  labelSelector ("exists in both matchLabelKeys and labelSelector");
- ValidateLabelSelector on labelSelector (mpigen.check.selectors)."""

from __future__ import annotations

from typing import Any

from mpigen.check.selectors import key_problem, label_selector_problems

Problem = tuple[str, tuple, str]
ACTIONS = ("DoNotSchedule", "ScheduleAnyway")  # supportedScheduleActions
POLICIES = ("Honor", "Ignore")  # supportedPodTopologySpreadNodePolicies


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def topology_problems(template: dict) -> list[Problem]:
    """Each problem of the template's topology spread constraints, with its path in the pod spec."""
    constraints = template.get("spec", {}).get("topologySpreadConstraints")
    if not isinstance(constraints, list):
        return []
    out: list[Problem] = []
    for i, constraint in enumerate(constraints):
        if isinstance(constraint, dict):
            later = [c for c in constraints[i + 1:] if isinstance(c, dict)]
            out += [("pod", ("topologySpreadConstraints", i) + path, f"{message} (validateTopologySpreadConstraints)")
                    for path, message in _constraint(constraint, later)]
    return out


def _constraint(constraint: dict, later: list[dict]) -> list[tuple[tuple, str]]:
    skew, key, action = constraint.get("maxSkew"), constraint.get("topologyKey"), constraint.get("whenUnsatisfiable")
    out = []
    if _int(skew) and skew <= 0:
        out.append((("maxSkew",), f"maxSkew {skew} \"must be greater than zero\""))
    if not key:
        out.append((("topologyKey",), "a topologyKey is required (\"can not be empty\")"))
    if action not in ACTIONS:
        out.append((("whenUnsatisfiable",), f"whenUnsatisfiable {action!r} is not supported: DoNotSchedule or "
                                            "ScheduleAnyway"))
    if any(c.get("topologyKey") == key and c.get("whenUnsatisfiable") == action for c in later):
        out.append(((), f"a later constraint has the same topologyKey {key!r} and whenUnsatisfiable {action!r} "
                        "(field.Duplicate): merge the two"))
    out += _min_domains(constraint.get("minDomains"), action)
    out += [((policy,), f"{policy} {constraint[policy]!r} is not supported: Honor or Ignore")
            for policy in ("nodeAffinityPolicy", "nodeTaintsPolicy")
            if constraint.get(policy) is not None and constraint[policy] not in POLICIES]
    out += _match_label_keys(constraint)
    return out + [(("labelSelector",) + path, message)
                  for path, message in label_selector_problems(constraint.get("labelSelector"))]


def _min_domains(domains: Any, action: Any) -> list[tuple[tuple, str]]:
    if domains is None:
        return []
    out = []
    if _int(domains) and domains <= 0:
        out.append((("minDomains",), f"minDomains {domains} \"must be greater than zero\""))
    if action != "DoNotSchedule":
        out.append((("minDomains",), f"minDomains \"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not "
                                     f"{action}\""))
    return out


def _match_label_keys(constraint: dict) -> list[tuple[tuple, str]]:
    keys = constraint.get("matchLabelKeys")
    if not keys:
        return []
    selector = constraint.get("labelSelector")
    if not isinstance(selector, dict):
        return [(("matchLabelKeys",), "matchLabelKeys need a labelSelector (\"must not be specified when "
                                      "labelSelector is not set\")")]
    taken = set(selector.get("matchLabels") or {}) | {r.get("key") for r in selector.get("matchExpressions") or []
                                                      if isinstance(r, dict)}
    out = []
    for i, key in enumerate(keys):
        if problem := key_problem(key):
            out.append((("matchLabelKeys", i), problem))
        elif key in taken:
            out.append((("matchLabelKeys", i), f"{key!r} \"exists in both matchLabelKeys and labelSelector\""))
    return out
