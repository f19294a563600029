"""A pretend Kubernetes cluster on one Linux machine, for the end-to-end MPI test.

Each pod of the rendered StatefulSet and Job becomes:
- its own network namespace, named after the pod, with an eth0 on a bridge that lives in a
  namespace of its own (nothing is added to the machine's network);
- its own mount, UTS and IPC namespaces and root folder, held open by a `sleep` process (the
  containers of a pod share its IPC namespace, and pods do not, as a container runtime makes
  them: so UCX, which MPICH's ranks use, takes the ranks of two pods for ranks of two hosts and
  never tries shared memory between them, which it does between processes of one boot id and
  IPC namespace: openucx/ucx src/ucs/sys/uid.c ucs_get_system_id, src/uct/sm/base/sm_iface.c,
  whose address carries the IPC namespace); the host name is the pod's (the node's for a pod on
  the node's network, hostNetwork: each pod has a node of its own, whose sshd holds port 22),
  /etc is an overlay whose /etc/hosts is the one the kubelet writes, and each container binds
  the volumes it mounts (written as the kubelet writes them: volumes.py) at their mountPaths
  (filesystem.py). Writes to /etc stay in the pod's overlay, so the machine is left unchanged.

Commands run "in a container" enter those namespaces and take the container's rendered env
(and nothing of the test's), working directory and securityContext: no_new_privs for
`allowPrivilegeEscalation: false`, and a capability bounding set of the container runtime's
default set, minus `drop`, plus `add` (all of them when privileged).

The API server is a Unix socket served by a thread: the kubectl shim (tests/support/e2e/kubectl.py)
sends it `cp` and `exec` requests, which are authorized against the rendered Role and
RoleBinding for the calling pod's ServiceAccount, as kubectl's GET pods and POST pods/exec
are, and run in the target pod's first container. Anything the cluster cannot model
faithfully is refused with an exception rather than approximated.

Everything created (namespaces, processes) is removed by close(), also after a failure.

This module builds the cluster from those parts and runs commands in it: the pods of the
rendered objects (pods.py), their network (network.py), their filesystem (filesystem.py) and
volumes (volumes.py), a command in a container (container.py) and the API server
(api_server.py), which stores Secrets (secrets.py). A JobSet's cluster: jobset_cluster.py.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.e2e.api_server import ApiServer
from tests.support.e2e.container import container_argv, rendered_command
from tests.support.e2e.errors import CommandFailed
from tests.support.e2e.filesystem import pod_root_lines, rootfs
from tests.support.e2e.image import write_kubectl
from tests.support.e2e.network import add_bridge, add_pod_network, delete_netns
from tests.support.e2e.pods import LAUNCHER_POD_SUFFIX, Pod, pods_from_objects
from tests.support.e2e.processes import kill
from tests.support.e2e.secrets import SecretStore
from tests.support.e2e.volumes import prepare_volumes


# The node's sshd, which a pod on the node's network meets on port 22: it holds the port, and
# greets and drops every client (it knows no key of the job's).
NODE_SSHD = ("import socket\nserver = socket.socket()\nserver.bind(('0.0.0.0', 22))\nserver.listen()\n"
             "print('listening', flush=True)\nwhile True:\n    client, _ = server.accept()\n"
             "    client.sendall(b'SSH-2.0-OpenSSH_node\\r\\n')\n    client.close()\n")


@dataclass
class PretendCluster:
    workdir: Path
    objects: list[dict]
    pods: dict[str, Pod] = field(default_factory=dict)
    processes: list[subprocess.Popen] = field(default_factory=list)
    requests: list[dict] = field(default_factory=list)
    netns: list[str] = field(default_factory=list)
    image_env: dict[str, str] = field(default_factory=dict)  # the image's ENV, under the rendered env
    store: SecretStore = field(default_factory=SecretStore)

    def secret(self, namespace: str, name: str) -> dict | None:
        return self.store.get(namespace, name)

    def issue_token(self, pod: Pod) -> str:
        return self.store.issue_token(pod.namespace, pod.service_account)

    # -- pods -----------------------------------------------------------------------------------
    def launcher(self) -> Pod:
        return next(p for p in self.pods.values() if p.name.endswith(f"-launcher-{LAUNCHER_POD_SUFFIX}"))

    def workers(self) -> list[Pod]:
        return [p for p in self.pods.values() if p is not self.launcher()]

    # -- start ----------------------------------------------------------------------------------
    def start(self) -> None:
        pods = pods_from_objects(self.objects, self.workdir)
        self.bridge = f"{pods[-1].name}-net"
        add_bridge(self.netns, self.bridge)
        self.start_api()
        for index, pod in enumerate(pods):
            self.pods[pod.name] = pod
            self._start_pod(pod, index)
        for pod in self.workers():  # the StatefulSet's containers run their rendered command
            self.processes.append(self.spawn(pod, rendered_command(pod.container), stdout=subprocess.DEVNULL,
                                             stderr=subprocess.DEVNULL))

    def start_api(self) -> None:
        """The API server, at a socket in a folder of its own that any container user may reach,
        as any pod may reach the API server (a non-root launcher's kubectl too)."""
        self.public = Path(tempfile.mkdtemp(prefix="mpigen-e2e-"))
        self.public.chmod(0o755)
        self.api = ApiServer(self, self.public / "api.sock")
        os.chmod(self.api.path, 0o666)
        self.api.start()

    def _start_pod(self, pod: Pod, index: int) -> None:
        add_pod_network(self.netns, self.bridge, pod, index)
        if pod.host_network:
            self._start_node_sshd(pod)
        prepare_volumes(pod, self)
        lines = ["set -e", f"hostname {shlex.quote(pod.uts_name)}", *pod_root_lines(pod)]
        # "ready" once in the pod's root: a container entered earlier would see the machine's.
        lines.append(f"exec chroot {shlex.quote(str(rootfs(pod)))} /bin/sh -c 'echo ready; exec sleep infinity'")
        pod.holder = subprocess.Popen(
            ["nsenter", f"--net=/run/netns/{pod.name}", "--", "unshare", "--mount", "--uts", "--ipc", "--propagation",
             "private", "--", "/bin/sh", "-c", "\n".join(lines)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        if pod.holder.stdout.readline().strip() != "ready":
            raise CommandFailed(f"{pod.name}: the pod's namespaces did not come up: {pod.holder.stderr.read()}")

    def _start_node_sshd(self, pod: Pod) -> None:
        """The node's sshd (NODE_SSHD) in the network namespace of a pod on the node's network."""
        listener = subprocess.Popen(
            ["nsenter", f"--net=/run/netns/{pod.name}", "--", sys.executable, "-c", NODE_SSHD],
            stdout=subprocess.PIPE, text=True, start_new_session=True)
        self.processes.append(listener)
        if listener.stdout.readline().strip() != "listening":
            raise CommandFailed(f"{pod.name}: the node's sshd did not start")

    # -- containers -----------------------------------------------------------------------------
    def spawn(self, pod: Pod, command: list[str], *, env: dict[str, str] | None = None, **popen) -> subprocess.Popen:
        process = subprocess.Popen(container_argv(pod, command, self.image_env, env), start_new_session=True,
                                   **popen)
        self.processes.append(process)
        return process

    def run_launcher(self, command: list[str], *, env: dict[str, str] | None = None, timeout: float = 180,
                     drop_env: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
        """The launcher container, started once kubectl-delivery has done its work."""
        launcher = self.launcher()
        argv = container_argv(launcher, command, self.image_env, env, drop_env)
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True)
        self.processes.append(process)
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill(process)
            out, err = process.communicate()
            err += f"\n[e2e] the launcher did not finish within {timeout} s and was killed"
        return subprocess.CompletedProcess(argv, process.returncode, out, err)

    def deliver_kubectl(self) -> None:
        """What the kubectl-delivery init container does (reference section 2.6), from its own
        rendered env and mounts: put kubectl in TARGET_DIR and write TARGET_DIR/hosts from the
        launcher's last /etc/hosts line and the hostfile's worker pods."""
        launcher = self.launcher()
        init = next(c for c in launcher.spec.get("initContainers", []) if c["name"] == "kubectl-delivery")
        env = {e["name"]: e.get("value", "") for e in init.get("env", [])}
        mounts = {m["mountPath"]: m["name"] for m in init["volumeMounts"]}
        target = launcher.volume_dir(mounts[env["TARGET_DIR"]])
        hostfile = (launcher.volume_dir(mounts["/etc/mpi"]) / "hostfile").read_text()
        write_kubectl(target / "kubectl", self.api.path)
        hosts = launcher.hosts_file().rstrip("\n").splitlines()[-1]
        for line in hostfile.splitlines():
            name = line.split(" ")[0].split(":")[0]
            if name and not name.endswith("launcher"):
                if name not in self.pods:
                    raise CommandFailed(f"kubectl-delivery: pod {name} of the hostfile does not exist")
                hosts += f"\n{self.pods[name].ip}\t{name}"
        (target / "hosts").write_text(hosts)

    def read(self, pod: Pod, path: str) -> str:
        return subprocess.run(["nsenter", "-t", str(pod.holder.pid), "-m", "-r", "--", "cat", path],
                              capture_output=True, text=True, check=True).stdout

    # -- stop -----------------------------------------------------------------------------------
    def close(self) -> None:
        if getattr(self, "api", None):
            self.api.stop()
        for process in self.processes:
            kill(process)
        for pod in self.pods.values():
            if pod.holder:
                kill(pod.holder)
        # Anything else still in a pod's network namespace (a daemon that left its group).
        for pid in self.processes_inside():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        delete_netns(self.netns)
        if getattr(self, "public", None):
            shutil.rmtree(self.public, ignore_errors=True)

    def processes_inside(self) -> list[int]:
        """The processes in any pod's network namespace."""
        inodes = {p.netns_inode for p in self.pods.values() if p.netns_inode}
        found = []
        for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
            try:
                if os.stat(f"/proc/{pid}/ns/net").st_ino in inodes:
                    found.append(pid)
            except OSError:
                pass
        return found

