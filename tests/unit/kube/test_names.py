"""mpigen.kube.names: generated names are valid DNS-1123 labels that leave room for a suffix,
and never meet, whatever parts they are made of (issue 15, defect 3).

The rules come from outside mpigen: see tests/support/kubernetes_names.py.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from tests.support.properties import examples

from mpigen.kube.names import resource_name_problem
from tests.support.kubernetes_names import DNS1123_LABEL


# Parts drawn from a small alphabet, so that '-' joins meet often.
_LABEL = st.from_regex(r"\A[ab]([-ab]{0,3}[ab])?\Z")
_ENV = st.one_of(_LABEL, st.from_regex(r"\A[aB_.]([-aB_.]{0,3}[aB])?\Z"), st.just("x" * 63))
_PARTS = st.tuples(_ENV, _LABEL, _LABEL)


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PARTS, min_size=2, max_size=6, unique=True), st.sampled_from([0, len("-launcher")]))
def test_generated_names_are_valid_and_never_meet(parts, room):
    from mpigen.kube.names import generated_name

    names = [generated_name("mpigen", p, room=room) for p in parts]
    assert all(len(n) + room <= 63 and DNS1123_LABEL.fullmatch(n) for n in names), names
    assert len(set(names)) == len(parts), list(zip(parts, names))


# k8s.io/kubernetes pkg/apis/core/helper/helpers.go IsExtendedResourceName: `requests.<name>`
# must be a qualified name, so an extended resource's prefix has 253 - len("requests.") = 244
# characters at most; Kubernetes' own names (no prefix, or in kubernetes.io) are not extended.
@pytest.mark.parametrize("name, refused", [
    ("nvidia.com/gpu", None), ("cpu", None), ("hugepages-2Mi", None), ("a" * 244 + "/x", None),
    ("a" * 245 + "/x", "at most 244"), ("example.com/" + "g" * 63, None), ("example.com/" + "g" * 64, "name part"),
    ("requests.nvidia.com/gpu", "'requests.'"), ("g" * 64, "name part"), ("a" * 250 + ".kubernetes.io/x", "prefix"),
])
def test_a_resource_name_is_a_qualified_name_and_an_extended_one_has_room_for_its_quota_name(name, refused):
    problem = resource_name_problem(name)
    assert (problem is None) == (refused is None), problem
    if refused is not None:
        assert refused in problem and repr(name) in problem
