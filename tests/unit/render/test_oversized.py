"""The objects of a render the API server would refuse for their size, by the table of kinds'
`size` fact (a ConfigMap: its data against core.MaxSecretSize, mpigen.kube.sizes)."""

from __future__ import annotations

from mpigen.kube.sizes import MAX_CONFIG_MAP_DATA
from mpigen.render.targets import oversized


def test_a_configmap_over_the_limit_is_named_with_its_size_and_one_at_it_passes():
    def config_map(size: int) -> dict:
        return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "job-config"}, "data": {"h": "x" * size}}

    assert oversized([config_map(MAX_CONFIG_MAP_DATA)]) == []
    (problem,) = oversized([config_map(MAX_CONFIG_MAP_DATA + 1)])
    assert "ConfigMap job-config would hold 1,048,577 bytes" in problem and "1,048,576" in problem
    assert oversized([{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}]) == []
