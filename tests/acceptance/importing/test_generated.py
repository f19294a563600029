"""`mpigen import` of generated MPIJobs (hypothesis): the class, not the cases. Whatever an
MPIJob holds, import renders what the operator makes of it, reports exactly where a loss is
written, or refuses it with an error, never a crash.

How every test here proves its point: see this folder's __init__.py."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st
from mpigen.render.mpijob.options import MpiJobOptions
from tests.support.properties import examples

from tests.support.import_round_trip import (V1, V1ALPHA2, V2BETA1, assert_round_trip, imported, render_blueprint,
                                             warned_at)


# --- generated MPIJobs: the class, not the cases ------------------------------------------

def node_position(text: str, loc: tuple) -> tuple[int, int]:
    """(line, column) of loc's key in text (of the entry itself for a list index), read
    with PyYAML's composer."""
    node = yaml.compose(text)
    start = None
    for part in loc:
        if isinstance(part, int):
            node = node.value[part]
            start = node.start_mark
        else:
            key, node = next((k, v) for k, v in node.value if k.value == part)
            start = key.start_mark
    return start.line + 1, start.column + 1


@pytest.mark.parametrize("api", [V1ALPHA2, V1, V2BETA1])
@settings(max_examples=examples(50), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_generated_mpijobs_render_what_the_operator_makes_of_them(api, data):
    from tests.support.mpijob_strategy import mpijobs

    mpijob, _ = data.draw(mpijobs(api))
    assert_round_trip(mpijob)


@pytest.mark.parametrize("api", [V1ALPHA2, V1, V2BETA1])
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_what_generated_mpijobs_lose_is_reported_exactly_where_it_is_written(api, data):
    from tests.support.mpijob_strategy import mpijobs

    mpijob, losses = data.draw(mpijobs(api, lossy=True))
    text = yaml.safe_dump(mpijob, sort_keys=False)
    where = [node_position(text, loc) for loc in losses]
    warned_at(text, *where)
    if where:
        warned_at(text, *where, strict=True)


def _paths(node, here=()):
    yield here
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, here + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, here + (index,))


ODD_VALUES = st.sampled_from([None, 0, -1, 1, 2**40, True, "", "x", "Never", "1.5", "-", [], [""], [1], {}, {"a": 1},
                              {"name": "x"}, 0.5, float("inf"), "a\nb", "/etc/mpi", "/dev/shm", "mpi-job-config",
                              "dshm", "nvidia.com/gpu", "Intel", {"claimName": "c", "readOnly": True},
                              [{"name": "x", "mountPath": "/x"}], {"add": "X"}])


@pytest.mark.parametrize("api", [V1ALPHA2, V1, V2BETA1])
@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_mpijob_imports_to_an_error_or_to_a_blueprint_that_renders(api, data):
    """Whatever an MPIJob holds where: import never fails (exit 3), and a blueprint it
    writes is one render and validate accept, under every target."""
    from tests.support.mpijob_strategy import mpijobs

    mpijob, _ = data.draw(mpijobs(api, lossy=data.draw(st.booleans())))
    for _ in range(data.draw(st.integers(1, 3))):
        paths = [p for p in _paths(mpijob) if len(p) > 1]
        path = data.draw(st.sampled_from(paths))
        parent = mpijob
        for part in path[:-1]:
            parent = parent[part]
        parent[path[-1]] = json.loads(json.dumps(data.draw(ODD_VALUES)))  # a copy of its own
    text = yaml.safe_dump(mpijob, sort_keys=False)
    blueprint, diagnostics = imported(text)
    assert all(d.mark.line > 0 for d in diagnostics), [str(d) for d in diagnostics]
    if blueprint:
        render_blueprint(blueprint)
        render_blueprint(blueprint, target="mpijob", own=MpiJobOptions(V1 if api == V1 else V2BETA1))
