"""Kubernetes label selectors (k8s.io/apimachinery/pkg/labels): parsed, and matched against labels."""

from __future__ import annotations

import re

_SELECTOR_TERM = re.compile(r"""^\s*(?:
    (?P<not>!)\s*(?P<nkey>[^\s=!(),]+)
  | (?P<skey>[^\s=!(),]+)\s+(?P<setop>in|notin)\s*\((?P<values>[^()]*)\)
  | (?P<ekey>[^\s=!(),]+)\s*(?P<eqop>==|=|!=)\s*(?P<value>[^\s=!(),]*)
  | (?P<xkey>[^\s=!(),]+)
)\s*$""", re.VERBOSE)


def parse_selector(text: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """A label selector string as (key, operator, values) terms; raises ValueError."""
    terms = []
    for part in _split_terms(text):
        match = _SELECTOR_TERM.match(part)
        if not match:
            raise ValueError(f"cannot read {part.strip()!r}; write terms like key=value, key!=value, "
                             "key in (a,b), key notin (a,b), key or !key, separated by commas")
        if match["nkey"]:
            terms.append((match["nkey"], "!", ()))
        elif match["skey"]:
            values = tuple(v.strip() for v in match["values"].split(",") if v.strip())
            terms.append((match["skey"], match["setop"], values))
        elif match["ekey"]:
            terms.append((match["ekey"], "!=" if match["eqop"] == "!=" else "=", (match["value"],)))
        else:
            terms.append((match["xkey"], "exists", ()))
    if not terms:
        raise ValueError("empty selector; remove labelSelector to select every blueprint")
    return terms


def _split_terms(text: str) -> list[str]:
    """Commas separate terms, except inside the parentheses of `in (a, b)`."""
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    if len(parts) > 1 and any(not p.strip() for p in parts):
        raise ValueError("empty term between commas")
    return [p for p in parts if p.strip()]


def selector_matches(terms, labels: dict) -> bool:
    for key, op, values in terms:
        present = key in labels
        value = labels.get(key)
        if op == "=" and not (present and value == values[0]):
            return False
        if op == "!=" and present and value == values[0]:
            return False
        if op == "in" and not (present and value in values):
            return False
        if op == "notin" and present and value in values:
            return False
        if op == "exists" and not present:
            return False
        if op == "!" and present:
            return False
    return True
