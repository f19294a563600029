"""copy_data (mpigen.kube.data): a deep copy of JSON-like data, as copy.deepcopy makes of it,
except that a container the original holds twice becomes two (a pod template's copy is changed
in place by the render)."""

from __future__ import annotations

import copy

from mpigen.kube.data import copy_data


def _containers(value, out):
    if isinstance(value, (dict, list)):
        out.append(value)
        for item in value.values() if isinstance(value, dict) else value:
            _containers(item, out)
    return out


def test_the_copy_is_equal_and_shares_no_mapping_or_list_with_the_original():
    shared = {"drop": ["ALL"]}
    original = {"metadata": {"labels": {"a": "1"}}, "spec": {"containers": [
        {"name": "m", "args": ["-x", 1, True, None], "securityContext": {"capabilities": shared}, "ports": []},
        {"name": "s", "securityContext": {"capabilities": shared}, "env": [[{"deep": {}}]]}]}}
    before = copy.deepcopy(original)
    copied = copy_data(original)
    assert copied == original and list(copied) == list(original)
    ids = {id(c) for c in _containers(original, [])}
    assert not any(id(c) in ids for c in _containers(copied, []))
    first, second = (c["securityContext"]["capabilities"] for c in copied["spec"]["containers"])
    first["drop"].append("NET_RAW")
    assert second == {"drop": ["ALL"]} and original == before


def test_scalars_and_other_types_are_kept_as_they_are():
    text, number = "x" * 50, 10 ** 30
    assert copy_data(text) is text and copy_data([number])[0] is number
    assert copy_data({"k": (1, 2)})["k"] == (1, 2)
