"""A JobSet's parts as the targets that write one (set_name, and trainjob's runtimes) write
them: a replicated job of one Indexed Job whose pods all run at once, the readiness probe
on the workers' sshd that the launcher's `dependsOn: Ready` waits for, and the names JobSet
gives the pods of such a job (shared/reference/targets.md 1.4): the pod of index P of child
Job J of replicated job R is `<jobset>-<R>-<J>-<P>`, in the subdomain `<jobset>`."""

from __future__ import annotations

from typing import Callable

# A worker is Ready once its sshd accepts connections; checked often, so the launcher starts soon.
SSHD_PROBE = {"periodSeconds": 2, "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3}
NETWORK = {"enableDNSHostnames": True, "publishNotReadyAddresses": True}
# Longest pod name suffix the JobSet webhook adds to its length check ("-abcde").
POD_NAME_SUFFIX = 6
SSH_PORT_NAME = "ssh"  # the name of the workers' sshd port in their container (import finds it by it)


def pod_host(set_name: str, replicated_job: str, pod: int) -> str:
    """The host name of a pod of the (single) child Job of a replicated job."""
    return f"{set_name}-{replicated_job}-0-{pod}"


def pod_dns_name(set_name: str, replicated_job: str, pod: int) -> str:
    """A pod's DNS name, `<host>.<subdomain>`, as the Trainer writes it into its hostfile
    (IdentifyPodNetwork): every pod resolves it through its namespace's search domain (a bare
    host name, only the pod itself)."""
    return f"{pod_host(set_name, replicated_job, pod)}.{set_name}"


def longest_pod_name(set_name: str, replicated_job: str, pods: int) -> int:
    """The length of the longest pod name of a replicated job of one child Job, as the
    JobSet webhook counts it (GenPodName plus a five-character suffix)."""
    return len(pod_host(set_name, replicated_job, pods - 1)) + POD_NAME_SUFFIX


def replicated_job(name: str, pods: int, template: dict, depends_on: tuple[str, str] | None = None,
                   deadline: int | None = None, labels: dict[str, str] | None = None,
                   pod_failures: Callable[[dict], dict] | None = None) -> dict:
    """One replicated job of one Indexed Job whose pods all run at once; a failed pod fails it,
    unless its podFailurePolicy (`pod_failures` of the pod template) says otherwise."""
    template = {**template, "spec": {**template.get("spec", {}), "restartPolicy": "Never"}}
    spec = {"completionMode": "Indexed", "completions": pods, "parallelism": pods, "backoffLimit": 0}
    if deadline is not None:
        spec["activeDeadlineSeconds"] = deadline
    if pod_failures is not None:
        spec["podFailurePolicy"] = pod_failures(template)
    job = {"name": name, "groupName": "default", "replicas": 1}
    if depends_on is not None:
        job["dependsOn"] = [{"name": depends_on[0], "status": depends_on[1]}]
    job["template"] = {"spec": {**spec, "template": template}}
    if labels:
        job["template"] = {"metadata": {"labels": dict(labels)}, **job["template"]}
    return job


def sshd_ports_and_probe(container: dict, port: int) -> None:
    """The sshd port, named, and the readiness probe on it."""
    container["ports"] = [*container.get("ports", []), {"name": SSH_PORT_NAME, "containerPort": port, "protocol": "TCP"}]
    container["readinessProbe"] = {"tcpSocket": {"port": port}, **SSHD_PROBE}
