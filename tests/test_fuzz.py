"""Random edits of the example blueprints either render (and the objects then pass the
Kubernetes schema) or fail with positioned diagnostics: never any other exception."""

from __future__ import annotations

import copy
import json

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mpigen.errors import InputError
from tests.conftest import BLUEPRINTS, render_text

EXAMPLES = [yaml.safe_load(p.read_text()) for p in sorted(BLUEPRINTS.glob("*.yaml"))]
leaf = st.one_of(st.none(), st.booleans(), st.integers(-10, 10**6), st.text(max_size=20),
                 st.sampled_from(["", "-", "0755", "on", "nvidia.com/gpu", "/etc/mpi", "mpi-job-config", "a" * 70]))
value = st.recursive(leaf, lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(st.text(max_size=8), c,
                                                                                          max_size=3)), max_leaves=8)


def paths(node, here=()):
    yield here
    if isinstance(node, dict):
        for key, child in node.items():
            yield from paths(child, here + (key,))
    elif isinstance(node, list):
        for i, child in enumerate(node):
            yield from paths(child, here + (i,))


@st.composite
def mutated(draw):
    doc = copy.deepcopy(draw(st.sampled_from(EXAMPLES)))
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from([p for p in paths(doc) if p]))
        parent = doc
        for part in where[:-1]:
            parent = parent[part]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "replace":
            parent[where[-1]] = draw(value)
        elif action == "delete" and isinstance(parent, dict):
            del parent[where[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=10))] = draw(value)
    return doc


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_blueprints_render_or_fail_with_positions(doc):
    import kubernetes_validate

    text = json.dumps(doc, indent=2)
    try:
        objects = render_text(text, "fuzz.yaml")
    except InputError as exc:
        assert exc.diagnostics
        for diagnostic in exc.diagnostics:
            assert diagnostic.mark.path == "fuzz.yaml"
            assert 1 <= diagnostic.mark.line <= text.count("\n") + 1
        return
    for obj in objects:
        if obj["kind"] != "PodGroup":  # a custom resource: checked against reference 2.7/4.8 in test_production
            kubernetes_validate.validate(obj, "1.30.0", strict=True)
