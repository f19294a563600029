"""A JobSet's parts as the targets that write one (jobset, and trainjob's runtimes) write
them: a replicated job of one Indexed Job whose pods all run at once, and the readiness
probe on the workers' sshd that the launcher's `dependsOn: Ready` waits for."""

from __future__ import annotations

# A worker is Ready once its sshd accepts connections; checked often, so the launcher starts soon.
SSHD_PROBE = {"periodSeconds": 2, "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3}
NETWORK = {"enableDNSHostnames": True, "publishNotReadyAddresses": True}


def replicated_job(name: str, pods: int, template: dict, depends_on: tuple[str, str] | None = None,
                   deadline: int | None = None, labels: dict[str, str] | None = None) -> dict:
    """One replicated job of one Indexed Job whose pods all run at once; a failed pod fails it."""
    template = {**template, "spec": {**template.get("spec", {}), "restartPolicy": "Never"}}
    spec = {"completionMode": "Indexed", "completions": pods, "parallelism": pods, "backoffLimit": 0}
    if deadline is not None:
        spec["activeDeadlineSeconds"] = deadline
    job = {"name": name, "groupName": "default", "replicas": 1}
    if depends_on is not None:
        job["dependsOn"] = [{"name": depends_on[0], "status": depends_on[1]}]
    job["template"] = {"spec": {**spec, "template": template}}
    if labels:
        job["template"] = {"metadata": {"labels": dict(labels)}, **job["template"]}
    return job


def sshd_ports_and_probe(container: dict, port: int) -> None:
    """The sshd port, named, and the readiness probe on it."""
    container["ports"] = [*container.get("ports", []), {"name": "ssh", "containerPort": port, "protocol": "TCP"}]
    container["readinessProbe"] = {"tcpSocket": {"port": port}, **SSHD_PROBE}
