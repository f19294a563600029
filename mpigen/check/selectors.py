"""The selector rules a pod template's affinity and topology spread constraints meet
(Kubernetes v1.30, each a pair of (path below the selector, message)):
- apimachinery pkg/apis/meta/v1/validation/validation.go ValidateLabelSelector: matchLabels
  keys qualified names and values label values (ValidateLabels), and each matchExpressions
  requirement (ValidateLabelSelectorRequirement): In and NotIn need values ("must be
  specified when `operator` is 'In' or 'NotIn'"), Exists and DoesNotExist take none ("may not
  be specified when `operator` is 'Exists' or 'DoesNotExist'"), any other operator is "not a
  valid selector operator"; the key a qualified name (ValidateLabelName), each value a label
  value (IsValidLabelValue);
- pkg/apis/core/validation/validation.go validateNodeSelectorRequirement: the same operators as
  nodes' labels take, and Gt and Lt with exactly one value ("must be specified single value when
  `operator` is 'Lt' or 'Gt'"), which the scheduler reads as an integer (apimachinery
  pkg/labels/selector.go NewRequirement: "for 'Gt', 'Lt' operators, the value must be an
  integer"; a term that fails it matches no node, so the pod is never scheduled);
  validateNodeFieldSelectorRequirement: matchFields on metadata.name only, with In or NotIn
  and one value."""

from __future__ import annotations

import re
from typing import Any

from mpigen.kube.names import LABEL_VALUE, QUALIFIED_NAME, qualified_name_lengths_problem

Found = list[tuple[tuple, str]]
_QUALIFIED, _VALUE = re.compile(QUALIFIED_NAME), re.compile(LABEL_VALUE)
_INT64 = re.compile(r"^[+-]?[0-9]+$")
SET_OPERATORS = ("In", "NotIn")
EXISTS_OPERATORS = ("Exists", "DoesNotExist")
NUMBER_OPERATORS = ("Gt", "Lt")
NEVER_SCHEDULED = "a term that fails it matches no node"  # what the API server lets through and the scheduler refuses


def key_problem(key: Any) -> str | None:
    """ValidateLabelName (IsQualifiedName) of a label key, or None."""
    if not isinstance(key, str) or not _QUALIFIED.fullmatch(key):
        return f"the key {key!r} is no qualified name (ValidateLabelName)"
    return qualified_name_lengths_problem(key)


def _value_problems(values: list, path: tuple) -> Found:
    return [(path + (i,), f"{value!r} is no label value (IsValidLabelValue: at most 63 letters, digits, '-', '_' "
                          "and '.', starting and ending with a letter or digit)")
            for i, value in enumerate(values) if not isinstance(value, str) or len(value) > 63
            or not _VALUE.fullmatch(value)]


def label_selector_problems(selector: Any) -> Found:
    """ValidateLabelSelector, with paths below the selector."""
    if not isinstance(selector, dict):
        return []
    out: Found = []
    for key, value in (selector.get("matchLabels") or {}).items():
        if problem := key_problem(key):
            out.append((("matchLabels", key), problem))
        if problems := _value_problems([value], ()):
            out.append((("matchLabels", key), problems[0][1]))
    for i, requirement in enumerate(selector.get("matchExpressions") or []):
        if isinstance(requirement, dict):
            out += requirement_problems(requirement, ("matchExpressions", i), node=False)
    return out


def requirement_problems(requirement: dict, path: tuple, node: bool) -> Found:
    """ValidateLabelSelectorRequirement (node False) or validateNodeSelectorRequirement."""
    operator, values = requirement.get("operator"), requirement.get("values") or []
    out: Found = []
    if operator in SET_OPERATORS and not values:
        out.append((path + ("operator",), f"operator {operator} needs values (\"must be specified when `operator` "
                                          "is 'In' or 'NotIn'\")"))
    elif operator in EXISTS_OPERATORS and values:
        out.append((path + ("values",), f"operator {operator} takes no values (\"may not be specified when "
                                        "`operator` is 'Exists' or 'DoesNotExist'\")"))
    elif node and operator in NUMBER_OPERATORS:
        if len(values) != 1:
            out.append((path + ("values",), f"operator {operator} takes exactly one value (\"must be specified "
                                            "single value when `operator` is 'Lt' or 'Gt'\")"))
        elif not isinstance(values[0], str) or not _INT64.fullmatch(values[0]):
            out.append((path + ("values", 0), f"operator {operator} compares a number, and {values[0]!r} is none (the "
                                              "scheduler's NewRequirement: \"for 'Gt', 'Lt' operators, the value must "
                                              "be an integer\"), and " + NEVER_SCHEDULED))
    elif operator not in SET_OPERATORS + EXISTS_OPERATORS + (NUMBER_OPERATORS if node else ()):
        allowed = "In, NotIn, Exists, DoesNotExist" + (", Gt, Lt" if node else "")
        out.append((path + ("operator",), f"{operator!r} is \"not a valid selector operator\" ({allowed})"))
    if problem := key_problem(requirement.get("key")):
        out.append((path + ("key",), problem))
    if not node:
        out += _value_problems(values, path + ("values",))
    return out


def field_requirement_problems(requirement: dict, path: tuple) -> Found:
    """validateNodeFieldSelectorRequirement: metadata.name, In or NotIn, one value."""
    out: Found = []
    if requirement.get("key") != "metadata.name":
        out.append((path + ("key",), f"{requirement.get('key')!r} is \"not a valid field selector key\" "
                                     "(metadata.name only)"))
    if requirement.get("operator") not in SET_OPERATORS:
        out.append((path + ("operator",), f"{requirement.get('operator')!r} is \"not a valid selector operator\" for "
                                          "matchFields (In, NotIn)"))
    elif len(requirement.get("values") or []) != 1:
        out.append((path + ("values",), "must be only one value when `operator` is 'In' or 'NotIn' for node field "
                                        "selector"))
    return out
