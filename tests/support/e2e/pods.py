"""The pods of the rendered objects: one per StatefulSet replica and one for the Job, each with
its name, host name, address and spec, and the /etc/hosts the kubelet writes for it; and the
one rendered object of a kind (and name), which they and their volumes are read from.
(A JobSet's pods: jobset_pods.py.)"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.e2e.errors import Unsupported

SUBNET = "10.244.0"
LAUNCHER_POD_SUFFIX = "e2e0"  # a Job's pod is <job>-<random suffix>


@dataclass
class Pod:
    name: str
    hostname: str
    subdomain: str
    ip: str
    namespace: str
    spec: dict
    root: Path
    holder: subprocess.Popen | None = None
    netns_inode: int = 0
    labels: dict[str, str] = field(default_factory=dict)
    # What cluster DNS answers for the other pods of the job, as /etc/hosts lines (jobset_pods.py).
    dns: list[str] = field(default_factory=list)
    # Machine folders the pod sees through an overlay of its own, beyond /etc and the mount points'
    # (the image: /root readable, launch helpers in /usr/local/bin; see jobset_cluster.py).
    overlays: tuple[str, ...] = ()

    @property
    def container(self) -> dict:
        return self.spec["containers"][0]

    def container_named(self, name: str) -> dict:
        return next(c for c in [*self.spec.get("initContainers", []), *self.spec["containers"]] if c["name"] == name)

    @property
    def host_network(self) -> bool:
        return bool(self.spec.get("hostNetwork"))

    @property
    def uts_name(self) -> str:
        """The host name its processes see: on the node's network the node's (the pod gets no UTS
        namespace of its own; each pretend pod has a node of its own, named after its address),
        else the pod's."""
        return f"node-{self.ip.rsplit('.', 1)[-1]}" if self.host_network else self.hostname

    @property
    def service_account(self) -> str:
        return self.spec.get("serviceAccountName", "default")

    def hosts_file(self) -> str:
        """/etc/hosts as the kubelet writes it (pkg/kubelet/kubelet_pods.go managedHostsFileContent;
        on the node's network, the node's own file, here its localhost and own lines)."""
        if self.host_network:
            return ("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
                    f"{self.ip}\t{self.uts_name}\n" + "".join(f"{line}\n" for line in self.dns))
        name = self.hostname
        if self.subdomain:
            name = f"{self.hostname}.{self.subdomain}.{self.namespace}.svc.cluster.local\t{self.hostname}"
        return ("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
                "fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n"
                f"{self.ip}\t{name}\n" + "".join(f"{line}\n" for line in self.dns))

    def volume_dir(self, volume: str) -> Path:
        return self.root / "volumes" / volume


def find(objects: list[dict], kind: str, name: str | None = None) -> dict:
    found = [o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    if len(found) != 1:
        raise Unsupported(f"expected one {kind} {name or ''}, found {len(found)}")
    return found[0]


def pods_from_objects(objects: list[dict], workdir: Path) -> list[Pod]:
    sts, job = find(objects, "StatefulSet"), find(objects, "Job")
    namespace = job["metadata"].get("namespace", "default")
    pods = []
    for i in range(sts["spec"]["replicas"]):
        name = f"{sts['metadata']['name']}-{i}"
        pods.append(Pod(name, name, sts["spec"]["serviceName"], "", namespace, sts["spec"]["template"]["spec"],
                        workdir / name))
    name = f"{job['metadata']['name']}-{LAUNCHER_POD_SUFFIX}"
    spec = job["spec"]["template"]["spec"]
    pods.append(Pod(name, spec.get("hostname", name), spec.get("subdomain", ""), "", namespace, spec,
                    workdir / name))
    for i, pod in enumerate(pods):
        pod.ip = f"{SUBNET}.{10 + i}"
    return pods
