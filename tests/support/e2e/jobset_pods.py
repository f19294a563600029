"""The pods of a rendered JobSet, named as the JobSet and Job controllers name them
(reference targets.md 1.4, 1.5): replicatedJob R, Job index j (of R's replicas) and completion
index p (of the Indexed Job's completions) give the host name `<js>-<R>-<j>-<p>`, the subdomain
(spec.network.subdomain, else the JobSet's name) when enableDNSHostnames, and a pod name of the
host name plus a random 5-character suffix. The JobSet gets a uid (metadata.uid, as the API
server gives it), which its pods carry in the label jobset.sigs.k8s.io/jobset-uid.

DNS: each pod's /etc/hosts holds, besides the kubelet's own line, every name under which the
pod's resolver finds each pod of the JobSet: its record `<host>.<subdomain>.<ns>.svc.cluster.local`
and that record less each search domain it ends with (the kubelet's search path for
ClusterFirst: `<ns>.svc.cluster.local svc.cluster.local cluster.local`, then the pod's
dnsConfig.searches), e.g. `<host>.<subdomain>`. This models what a resolver gets from cluster DNS
through the search path for the JobSet's headless Service, whose publishNotReadyAddresses: true
publishes a pod's record as soon as it has an address, ready or not. Any other name does not
resolve: a bare `<host>` of another pod only through a search domain `<subdomain>.<ns>.svc...`.
"""

from __future__ import annotations

import secrets
import uuid
from pathlib import Path

from tests.support.e2e.errors import Unsupported
from tests.support.e2e.pods import SUBNET, Pod

CLUSTER_DOMAIN = "cluster.local"
SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # k8s.io/apimachinery/pkg/util/rand: no vowels, no 0 1 3


def pod_suffix() -> str:
    return "".join(secrets.choice(SUFFIX_ALPHABET) for _ in range(5))


def give_uid(jobset: dict) -> str:
    jobset["metadata"].setdefault("uid", str(uuid.uuid4()))
    return jobset["metadata"]["uid"]


def jobset_pods(jobset: dict, workdir: Path, first_address: int = 10) -> dict[str, list[Pod]]:
    """The pods of every replicatedJob, by its name, in the JobSet's order, each with an address."""
    spec, meta = jobset["spec"], jobset["metadata"]
    name, namespace = meta["name"], meta.get("namespace", "default")
    network = spec.get("network", {})
    if network.get("enableDNSHostnames") is not True or network.get("publishNotReadyAddresses") is not True:
        raise Unsupported(f"JobSet {name}: only enableDNSHostnames and publishNotReadyAddresses true are modelled")
    subdomain = network.get("subdomain", name)
    uid = give_uid(jobset)
    pods: dict[str, list[Pod]] = {}
    address = first_address
    for rj in spec["replicatedJobs"]:
        job = rj["template"]["spec"]
        if job.get("completionMode") != "Indexed" or job.get("parallelism") != job.get("completions"):
            raise Unsupported(f"JobSet {name}: {rj['name']}: only Indexed Jobs with parallelism = completions")
        pods[rj["name"]] = []
        for j in range(rj.get("replicas", 1)):
            for p in range(job["completions"]):
                host = f"{name}-{rj['name']}-{j}-{p}"
                labels = {"jobset.sigs.k8s.io/jobset-name": name, "jobset.sigs.k8s.io/jobset-uid": uid,
                          "jobset.sigs.k8s.io/replicatedjob-name": rj["name"], "jobset.sigs.k8s.io/job-index": str(j),
                          "jobset.sigs.k8s.io/restart-attempt": "0", "batch.kubernetes.io/job-completion-index": str(p)}
                pod_name = f"{host}-{pod_suffix()}"
                pods[rj["name"]].append(Pod(pod_name, host, subdomain, f"{SUBNET}.{address}", namespace,
                                            job["template"]["spec"], workdir / pod_name, labels=labels))
                address += 1
    every = [pod for group in pods.values() for pod in group]
    for pod in every:
        pod.dns = dns_lines(pod, every)
    return pods


def dns_lines(resolver: Pod, pods: list[Pod]) -> list[str]:
    """/etc/hosts lines: each pod's address and the names `resolver` finds it under. A pod on the
    node's network asks cluster DNS only with dnsPolicy ClusterFirstWithHostNet; with ClusterFirst
    it falls back to the node's resolver (policy Default), which knows no cluster name
    (kubernetes.io/docs/concepts/services-networking/dns-pod-service, "Pod's DNS Policy")."""
    policy = resolver.spec.get("dnsPolicy", "ClusterFirst")
    if policy not in ("ClusterFirst", "ClusterFirstWithHostNet"):
        raise Unsupported(f"{resolver.name}: only dnsPolicy ClusterFirst and ClusterFirstWithHostNet are modelled")
    if resolver.host_network and policy == "ClusterFirst":
        return []
    searches = [f"{resolver.namespace}.svc.{CLUSTER_DOMAIN}", f"svc.{CLUSTER_DOMAIN}", CLUSTER_DOMAIN,
                *resolver.spec.get("dnsConfig", {}).get("searches", [])]
    lines = []
    for pod in pods:
        record = f"{pod.hostname}.{pod.subdomain}.{pod.namespace}.svc.{CLUSTER_DOMAIN}"
        names = [record[: -len(s) - 1] for s in searches if record.endswith("." + s)]
        lines.append(f"{pod.ip}\t{' '.join(dict.fromkeys([*names, record]))}")
    return lines


def next_attempt(pod: Pod, address: int) -> Pod:
    """The pod of the same Job index in a restarted attempt: same host name, a new pod name and
    address, restart-attempt + 1 (the JobSet recreates its Jobs under the same names)."""
    labels = {**pod.labels, "jobset.sigs.k8s.io/restart-attempt": str(int(pod.labels[
        "jobset.sigs.k8s.io/restart-attempt"]) + 1)}
    name = f"{pod.hostname}-{pod_suffix()}"
    return Pod(name, pod.hostname, pod.subdomain, f"{SUBNET}.{address}", pod.namespace, pod.spec,
               pod.root.parent / name, labels=labels, dns=pod.dns, overlays=pod.overlays)
