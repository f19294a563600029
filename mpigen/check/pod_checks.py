"""What no target's pods can run, judged on the pods as they will run (mpigen.check.effective),
each at the blueprint line that set the value: a user that is root under runAsNonRoot, a
host-network pod that cannot resolve the job's names or shares a node's ports with another
rank, a port declared twice, and a port a target takes for itself."""

from __future__ import annotations

from mpigen.check.effective import HOST_NETWORK_DNS, EffectivePod, EffectivePods, sharing
from mpigen.errors import Diagnostic, error
from mpigen.load.document import Document, field_path

HOST_NETWORK = ("spec", "network", "hostNetwork")


def pod_checks(doc: Document, pods: EffectivePods) -> list[Diagnostic]:
    """Each problem at its line, once however many roles share it."""
    return _root_under_non_root(doc, pods) + [d for pod in pods for d in (*_host_network(doc, pod),
                                                                           *_duplicate_ports(doc, pod))]


def port_taken(doc: Document, pod: EffectivePod, name: str, number: int, why: str) -> list[Diagnostic]:
    """The ports of the pod's container that a target's own port (named `name`, TCP `number`)
    would duplicate: the API server refuses two ports of one name in a container
    (kubernetes v1.30 pkg/apis/core/validation/validation.go validateContainerPorts), and a
    custom resource's schema two of one number and protocol (ports are a list-map keyed by
    containerPort and protocol, e.g. jobset v0.12.0 jobset.x-k8s.io_jobsets.yaml)."""
    out = []
    for port in pod.ports:
        same_name = port.name == name
        if same_name or (port.number == number and port.protocol == "TCP"):
            what = f"is named {name}" if same_name else f"is TCP port {number}"
            out.append(error(doc.value_mark(port.origin),
                             f"{field_path(port.origin)}: the {pod.role} container's port {what}, which {why}; the "
                             "container would get two such ports, which Kubernetes refuses; remove the port, or "
                             "rename and renumber it"))
    return out


def _root_under_non_root(doc: Document, pods: EffectivePods) -> list[Diagnostic]:
    """The kubelet refuses to start a container whose runAsUser is 0 under runAsNonRoot
    (CreateContainerConfigError: "container's runAsUser breaks non-root policy")."""
    root = [pod for pod in pods if pod.user.value == 0 and pod.run_as_non_root.value is True]
    return [error(pod.mark(doc, pod.user, ("spec", "security", "runAsUser")),
                  f"{pod.user.where}: 0 (root) with runAsNonRoot ({pod.run_as_non_root.where}): the kubelet refuses "
                  f"to start the containers of {who}; set a non-root user, or remove runAsNonRoot")
            for pod, who in sharing(root, lambda pod: pod.user)]


def _host_network(doc: Document, pod: EffectivePod) -> list[Diagnostic]:
    """A pod put on the node's network by a patch, not by spec.network.hostNetwork (which
    does all of this itself): it resolves names with the node's DNS unless its dnsPolicy is
    ClusterFirstWithHostNet, so it cannot find the job's other pods; and rank pods not kept
    one per node share the node's ports (the second sshd, or rank, cannot bind)."""
    if pod.host_network.value is not True or pod.host_network.origin in (None, HOST_NETWORK):
        return []
    reasons = []
    if pod.dns_policy.value != HOST_NETWORK_DNS:
        reasons.append(f"with dnsPolicy {pod.dns_policy.value or 'ClusterFirst'} it resolves names with the node's "
                       "DNS and cannot find the job's other pods")
    if pod.rank and not pod.one_per_node:
        reasons.append("its pods are not kept one per node, so two of them on one node share its ports and the "
                       "second cannot start")
    if not reasons:
        return []
    return [error(doc.value_mark(pod.host_network.origin),
                  f"{pod.host_network.where}: the {pod.role} pod is on the node's network, but {', and '.join(reasons)}; "
                  f"use spec.network.hostNetwork: true instead of the patch (it sets dnsPolicy: {HOST_NETWORK_DNS} "
                  "and keeps rank pods one per node)")]


def _duplicate_ports(doc: Document, pod: EffectivePod) -> list[Diagnostic]:
    """Two of the container's own ports with one name, or one number and protocol."""
    out, seen_names, seen_numbers = [], set(), set()
    for port in pod.ports:
        key = (port.number, port.protocol)
        if (port.name is not None and port.name in seen_names) or key in seen_numbers:
            out.append(error(doc.value_mark(port.origin),
                             f"{field_path(port.origin)}: the {pod.role} container declares this port's name or number "
                             "twice, which Kubernetes refuses; keep one"))
        seen_names.add(port.name)
        seen_numbers.add(key)
    return out
