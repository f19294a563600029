"""The pods' network: a network namespace per pod, named after it, with an eth0 on a bridge
that lives in a namespace of its own (nothing is added to the machine's network)."""

from __future__ import annotations

import os
import shlex
import subprocess

from tests.support.e2e.errors import CommandFailed
from tests.support.e2e.pods import Pod

# `ip netns add`, run in a network namespace of its own that ends with it: ip goes back to the
# namespace it started in once the new one is made, which root of a user namespace
# (tests/support/user_namespace.py) may do only for a namespace its user namespace owns, not
# for the machine's.
ADD_NETNS = ("unshare", "--net", "--", "ip", "netns", "add")


def run(*argv: str) -> str:
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise CommandFailed(f"{shlex.join(argv)}: {done.stderr.strip()}")
    return done.stdout


def add_netns(netns: list[str], name: str) -> None:
    """Create the network namespace `name`, recorded in `netns` for delete_netns()."""
    run(*ADD_NETNS, name)
    netns.append(name)


def add_bridge(netns: list[str], bridge: str) -> None:
    """The namespace `bridge` with the bridge br0 in it, up."""
    add_netns(netns, bridge)
    run("ip", "-n", bridge, "link", "add", "br0", "type", "bridge")
    run("ip", "-n", bridge, "link", "set", "br0", "up")


def add_pod_network(netns: list[str], bridge: str, pod: Pod, index: int) -> None:
    """The pod's namespace, its eth0 with the pod's address, and the peer port on br0."""
    add_netns(netns, pod.name)
    pod.netns_inode = os.stat(f"/run/netns/{pod.name}").st_ino
    port = f"p{index}"
    run("ip", "-n", pod.name, "link", "add", "eth0", "type", "veth", "peer", "name", port, "netns", bridge)
    run("ip", "-n", pod.name, "addr", "add", f"{pod.ip}/24", "dev", "eth0")
    for link in ("lo", "eth0"):
        run("ip", "-n", pod.name, "link", "set", link, "up")
    run("ip", "-n", bridge, "link", "set", port, "master", "br0")
    run("ip", "-n", bridge, "link", "set", port, "up")


def delete_netns(netns: list[str]) -> None:
    """Delete the namespaces add_netns() created, the last first; one already gone is no error."""
    for name in reversed(netns):
        subprocess.run(["ip", "netns", "del", name], capture_output=True)

