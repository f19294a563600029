"""The pretend cluster's pods on their nodes' network (tests/support/e2e/pods.py, jobset_pods.py):
the node's host name and /etc/hosts, and cluster DNS only with dnsPolicy ClusterFirstWithHostNet."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.e2e.jobset_pods import dns_lines
from tests.support.e2e.pods import Pod


def _pod(host: str, address: int, **spec) -> Pod:
    return Pod(f"{host}-abcde", host, "js", f"10.244.0.{address}", "default", {"containers": [{}], **spec},
               Path("/nonexistent"))


def test_a_pod_on_the_nodes_network_has_the_nodes_host_name_and_hosts_file():
    pod, other = _pod("js-worker-0-0", 11, hostNetwork=True), _pod("js-worker-0-1", 12)
    assert (pod.uts_name, other.uts_name) == ("node-11", "js-worker-0-1")
    assert "10.244.0.11\tnode-11\n" in pod.hosts_file() and "js-worker-0-0" not in pod.hosts_file()
    assert "10.244.0.12\tjs-worker-0-1.js.default.svc.cluster.local\tjs-worker-0-1\n" in other.hosts_file()


@pytest.mark.parametrize("policy,resolves", [("ClusterFirst", False), ("ClusterFirstWithHostNet", True)])
def test_a_pod_on_the_nodes_network_asks_cluster_dns_only_with_cluster_first_with_host_net(policy, resolves):
    pods = [_pod("js-worker-0-0", 11, hostNetwork=True, dnsPolicy=policy), _pod("js-launcher-0-0", 12)]
    assert bool(dns_lines(pods[0], pods)) == resolves
    assert dns_lines(pods[1], pods)[0].split()[:2] == ["10.244.0.11", "js-worker-0-0.js"]  # the pod's own, as ever
