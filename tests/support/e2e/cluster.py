"""A pretend Kubernetes cluster on one Linux machine, for the end-to-end MPI test.

Each pod of the rendered StatefulSet and Job becomes:
- its own network namespace, named after the pod, with an eth0 on a bridge that lives in a
  namespace of its own (nothing is added to the machine's network);
- its own mount and UTS namespaces, held open by a `sleep` process: the host name is the
  pod's, /etc is an overlay whose /etc/hosts is the one the kubelet writes, and each volume
  the container mounts (ConfigMap items with their modes, read-only; emptyDirs) is bound at
  its mountPath. Writes to /etc stay in the pod's overlay, so the machine is left unchanged.

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
"""

from __future__ import annotations

import array
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

SHIM = Path(__file__).with_name("kubectl.py")

# The capabilities containerd and CRI-O give a container that asks for no change
# (containerd: pkg/oci/spec.go defaultUnixCaps).
RUNTIME_DEFAULT_CAPS = ("CHOWN", "DAC_OVERRIDE", "FSETID", "FOWNER", "MKNOD", "NET_RAW", "SETGID", "SETUID",
                        "SETFCAP", "SETPCAP", "NET_BIND_SERVICE", "SYS_CHROOT", "KILL", "AUDIT_WRITE")
SUPPORTED_SECURITY = {"allowPrivilegeEscalation", "capabilities", "privileged", "runAsUser", "runAsGroup",
                      "runAsNonRoot"}
SUBNET = "10.244.0"
LAUNCHER_POD_SUFFIX = "e2e0"  # a Job's pod is <job>-<random suffix>


class Unsupported(Exception):
    """The rendered objects ask for something this pretend cluster does not model."""


class CommandFailed(Exception):
    pass


def run(*argv: str) -> str:
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise CommandFailed(f"{shlex.join(argv)}: {done.stderr.strip()}")
    return done.stdout


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

    @property
    def container(self) -> dict:
        return self.spec["containers"][0]

    @property
    def service_account(self) -> str:
        return self.spec.get("serviceAccountName", "default")

    def hosts_file(self) -> str:
        """/etc/hosts as the kubelet writes it (pkg/kubelet/kubelet_pods.go managedHostsFileContent)."""
        name = self.hostname
        if self.subdomain:
            name = f"{self.hostname}.{self.subdomain}.{self.namespace}.svc.cluster.local\t{self.hostname}"
        return ("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
                "fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n"
                f"{self.ip}\t{name}\n")

    def volume_dir(self, volume: str) -> Path:
        return self.root / "volumes" / volume


@dataclass
class PretendCluster:
    workdir: Path
    objects: list[dict]
    pods: dict[str, Pod] = field(default_factory=dict)
    processes: list[subprocess.Popen] = field(default_factory=list)
    requests: list[dict] = field(default_factory=list)
    netns: list[str] = field(default_factory=list)
    image_env: dict[str, str] = field(default_factory=dict)  # the image's ENV, under the rendered env

    # -- objects --------------------------------------------------------------------------------
    def object(self, kind: str, name: str | None = None) -> dict:
        found = [o for o in self.objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
        if len(found) != 1:
            raise Unsupported(f"expected one {kind} {name or ''}, found {len(found)}")
        return found[0]

    def _pods_from_objects(self) -> list[Pod]:
        sts, job = self.object("StatefulSet"), self.object("Job")
        namespace = job["metadata"].get("namespace", "default")
        pods = []
        for i in range(sts["spec"]["replicas"]):
            name = f"{sts['metadata']['name']}-{i}"
            pods.append(Pod(name, name, sts["spec"]["serviceName"], "", namespace, sts["spec"]["template"]["spec"],
                            self.workdir / name))
        name = f"{job['metadata']['name']}-{LAUNCHER_POD_SUFFIX}"
        spec = job["spec"]["template"]["spec"]
        pods.append(Pod(name, spec.get("hostname", name), spec.get("subdomain", ""), "", namespace, spec,
                        self.workdir / name))
        for i, pod in enumerate(pods):
            pod.ip = f"{SUBNET}.{10 + i}"
        return pods

    def launcher(self) -> Pod:
        return next(p for p in self.pods.values() if p.name.endswith(f"-launcher-{LAUNCHER_POD_SUFFIX}"))

    def workers(self) -> list[Pod]:
        return [p for p in self.pods.values() if p is not self.launcher()]

    # -- start ----------------------------------------------------------------------------------
    def start(self) -> None:
        pods = self._pods_from_objects()
        self.bridge = f"{pods[-1].name}-net"
        self._add_netns(self.bridge)
        run("ip", "-n", self.bridge, "link", "add", "br0", "type", "bridge")
        run("ip", "-n", self.bridge, "link", "set", "br0", "up")
        self.api = ApiServer(self, self.workdir / "api.sock")
        self.api.start()
        for index, pod in enumerate(pods):
            self.pods[pod.name] = pod
            self._start_pod(pod, index)
        for pod in self.workers():  # the StatefulSet's containers run their rendered command
            self.processes.append(self.spawn(pod, _command(pod.container), stdout=subprocess.DEVNULL,
                                             stderr=subprocess.DEVNULL))

    def _add_netns(self, name: str) -> None:
        run("ip", "netns", "add", name)
        self.netns.append(name)

    def _start_pod(self, pod: Pod, index: int) -> None:
        self._add_netns(pod.name)
        pod.netns_inode = os.stat(f"/run/netns/{pod.name}").st_ino
        port = f"p{index}"
        run("ip", "-n", pod.name, "link", "add", "eth0", "type", "veth", "peer", "name", port, "netns", self.bridge)
        run("ip", "-n", pod.name, "addr", "add", f"{pod.ip}/24", "dev", "eth0")
        for link in ("lo", "eth0"):
            run("ip", "-n", pod.name, "link", "set", link, "up")
        run("ip", "-n", self.bridge, "link", "set", port, "master", "br0")
        run("ip", "-n", self.bridge, "link", "set", port, "up")

        mounts = self._volume_mounts(pod)
        tops = sorted({"/etc", *("/" + Path(m).parts[1] for m, _, _ in mounts)})
        lines = ["set -e", f"hostname {shlex.quote(pod.hostname)}"]
        for top in tops:
            if not Path(top).is_dir():
                raise Unsupported(f"{pod.name}: cannot create a mount point under {top}, which the machine lacks")
            upper, work = pod.root / "upper" / top[1:], pod.root / "work" / top[1:]
            upper.mkdir(parents=True, exist_ok=True)
            work.mkdir(parents=True, exist_ok=True)
            if top == "/etc":
                (upper / "hosts").write_text(pod.hosts_file())
            lines.append(f"mount -t overlay overlay -o lowerdir={top},upperdir={upper},workdir={work} {top}")
        for mount_path, source, read_only in mounts:
            lines += [f"mkdir -p {shlex.quote(mount_path)}", f"mount --bind {source} {shlex.quote(mount_path)}"]
            if read_only:
                lines.append(f"mount -o remount,bind,ro {shlex.quote(mount_path)}")
        lines += ["echo ready", "exec sleep infinity"]
        pod.holder = subprocess.Popen(
            ["nsenter", f"--net=/run/netns/{pod.name}", "--", "unshare", "--mount", "--uts", "--propagation",
             "private", "--", "/bin/sh", "-c", "\n".join(lines)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        if pod.holder.stdout.readline().strip() != "ready":
            raise CommandFailed(f"{pod.name}: the pod's namespaces did not come up: {pod.holder.stderr.read()}")

    def _volume_mounts(self, pod: Pod) -> list[tuple[str, Path, bool]]:
        """(mountPath, host folder, read-only) for the first container's mounts."""
        volumes = {v["name"]: v for v in pod.spec.get("volumes", [])}
        mounts = []
        for mount in pod.container.get("volumeMounts", []):
            volume = volumes[mount["name"]]
            folder = pod.volume_dir(volume["name"])
            if not folder.exists():
                folder.mkdir(parents=True)
                if "configMap" in volume:
                    self._project_config_map(volume["configMap"], folder)
                elif "emptyDir" not in volume:
                    raise Unsupported(f"{pod.name}: volume {volume['name']}: only configMap and emptyDir are modelled")
            if set(mount) - {"name", "mountPath", "readOnly"}:
                raise Unsupported(f"{pod.name}: volumeMount {mount}: subPath and propagation are not modelled")
            mounts.append((mount["mountPath"], folder, "configMap" in volume or mount.get("readOnly", False)))
        return mounts

    def _project_config_map(self, source: dict, folder: Path) -> None:
        data = self.object("ConfigMap", source["name"])["data"]
        items = source.get("items") or [{"key": k, "path": k} for k in sorted(data)]
        for item in items:
            path = folder / item["path"]
            path.write_text(data[item["key"]])
            path.chmod(item.get("mode", source.get("defaultMode", 0o644)))

    # -- containers -----------------------------------------------------------------------------
    def container_argv(self, pod: Pod, command: list[str], env: dict[str, str] | None = None,
                       drop_env: tuple[str, ...] = ()) -> list[str]:
        """The argv that runs `command` in the pod's first container, with its env and restrictions."""
        container = pod.container
        security = {**pod.spec.get("securityContext", {}), **container.get("securityContext", {})}
        unknown = set(container.get("securityContext", {})) - SUPPORTED_SECURITY
        if unknown:
            raise Unsupported(f"{pod.name}: securityContext fields {sorted(unknown)} are not modelled")
        caps = set(RUNTIME_DEFAULT_CAPS)
        if security.get("privileged"):
            caps = {"ALL"}
        else:
            drop = set(security.get("capabilities", {}).get("drop", []))
            caps = set() if "ALL" in drop else caps - drop
            caps |= set(security.get("capabilities", {}).get("add", []))
        priv = ["--bounding-set", "+all" if caps == {"ALL"} else ",".join(["-all", *(f"+{c.lower()}" for c in sorted(caps))])]
        if security.get("allowPrivilegeEscalation") is False:
            priv.append("--no-new-privs")
        uid = security.get("runAsUser")
        if security.get("runAsNonRoot") and not uid:
            raise CommandFailed(f"{pod.name}: container has runAsNonRoot and would run as root")
        if uid is not None:
            priv += ["--reuid", str(uid), "--regid", str(security.get("runAsGroup", uid)), "--clear-groups"]
        environment = {"PATH": f"{Path(sys.executable).parent}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                       "HOME": "/root", "HOSTNAME": pod.hostname, **self.image_env, **_env(pod, container),
                       **(env or {})}
        for name in drop_env:
            del environment[name]
        return ["nsenter", "-t", str(pod.holder.pid), "-m", "-u", "-n", "--", "setpriv", *priv, "--",
                "env", "-i", "--chdir", container.get("workingDir", "/"),
                *(f"{k}={v}" for k, v in environment.items()), *command]

    def spawn(self, pod: Pod, command: list[str], *, env: dict[str, str] | None = None, **popen) -> subprocess.Popen:
        process = subprocess.Popen(self.container_argv(pod, command, env), start_new_session=True, **popen)
        self.processes.append(process)
        return process

    def run_launcher(self, command: list[str], *, env: dict[str, str] | None = None, timeout: float = 180,
                     drop_env: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
        """The launcher container, started once kubectl-delivery has done its work."""
        launcher = self.launcher()
        argv = self.container_argv(launcher, command, env, drop_env)
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True)
        self.processes.append(process)
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill(process)
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
        shim = SHIM.read_text().replace('API_SOCKET = "/nonexistent"', f"API_SOCKET = {str(self.api.path)!r}")
        (target / "kubectl").write_text(f"#!{sys.executable}\n{shim}")
        (target / "kubectl").chmod(0o755)
        hosts = launcher.hosts_file().rstrip("\n").splitlines()[-1]
        for line in hostfile.splitlines():
            name = line.split(" ")[0].split(":")[0]
            if name and not name.endswith("launcher"):
                if name not in self.pods:
                    raise CommandFailed(f"kubectl-delivery: pod {name} of the hostfile does not exist")
                hosts += f"\n{self.pods[name].ip}\t{name}"
        (target / "hosts").write_text(hosts)

    def read(self, pod: Pod, path: str) -> str:
        return subprocess.run(["nsenter", "-t", str(pod.holder.pid), "-m", "--", "cat", path],
                              capture_output=True, text=True, check=True).stdout

    # -- stop -----------------------------------------------------------------------------------
    def close(self) -> None:
        if getattr(self, "api", None):
            self.api.stop()
        for process in self.processes:
            _kill(process)
        for pod in self.pods.values():
            if pod.holder:
                _kill(pod.holder)
        # Anything else still in a pod's network namespace (a daemon that left its group).
        for pid in self.processes_inside():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for name in reversed(self.netns):
            subprocess.run(["ip", "netns", "del", name], capture_output=True)

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


def _kill(process: subprocess.Popen) -> None:
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            process.kill()
    process.wait()


def _command(container: dict) -> list[str]:
    return [*container.get("command", []), *container.get("args", [])]


def _env(pod: Pod, container: dict) -> dict[str, str]:
    env = {}
    for item in container.get("env", []):
        if "valueFrom" in item:
            raise Unsupported(f"{pod.name}: env {item['name']} uses valueFrom, which is not modelled")
        env[item["name"]] = item.get("value", "")
    if container.get("envFrom"):
        raise Unsupported(f"{pod.name}: envFrom is not modelled")
    return env


class Refused(Exception):
    """An API request the server answers with an error, as kubectl prints it."""


class ApiServer(threading.Thread):
    """The API paths kubectl exec and cp use, authorized by the rendered RBAC."""

    def __init__(self, cluster: PretendCluster, path: Path):
        super().__init__(daemon=True)
        self.cluster, self.path = cluster, path
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.bind(str(path))
        self.socket.listen(64)
        self.stopped = False

    def run(self) -> None:
        while not self.stopped:
            try:
                conn, _ = self.socket.accept()
            except OSError:
                return
            threading.Thread(target=self.handle, args=(conn,), daemon=True).start()

    def stop(self) -> None:
        self.stopped = True
        try:
            self.socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.socket.close()

    def handle(self, conn: socket.socket) -> None:
        fds = array.array("i")
        message, ancillary, _, _ = conn.recvmsg(65536, socket.CMSG_SPACE(3 * fds.itemsize))
        for level, kind, data in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
        request = json.loads(message)
        self.cluster.requests.append(request)
        try:
            pod = self.authorize(request)
            command = request["command"] if request["verb"] == "exec" else \
                ["/bin/sh", "-c", 'cat > "$0"', request["path"]]
            process = self.cluster.spawn(pod, command, stdin=fds[0], stdout=fds[1], stderr=fds[2])
        except Refused as refusal:
            os.write(fds[2], f"Error from server ({refusal}\n".encode())
            status = 1
        else:
            threading.Thread(target=_kill_when_closed, args=(conn, process), daemon=True).start()
            status = process.wait()
            # kubectl exec exits with the remote command's status; a signal shows as 128+N.
            status = status if status >= 0 else 128 - status
        finally:
            for fd in fds:
                os.close(fd)
        try:
            conn.sendall(str(status).encode())
            conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        conn.close()

    def authorize(self, request: dict) -> Pod:
        cluster = self.cluster
        caller = next((p for p in cluster.pods.values() if p.hostname == request["from"]), None)
        if caller is None:
            raise Refused(f"Unauthorized): no pod with host name {request['from']}")
        user = f"system:serviceaccount:{caller.namespace}:{caller.service_account}"
        name = request["pod"]
        for verb, resource in (("get", "pods"), ("create", "pods/exec")):
            if not self.allowed(caller, verb, resource, name):
                base, _, sub = resource.partition("/")
                raise Refused(f'Forbidden): {base} "{name}" is forbidden: User "{user}" cannot {verb} resource '
                              f'"{base}"{f" subresource {sub!r}" if sub else ""} in API group "" in the namespace '
                              f'"{caller.namespace}"')
        if name not in cluster.pods:
            raise Refused(f'NotFound): pods "{name}" not found')
        return cluster.pods[name]

    def allowed(self, caller: Pod, verb: str, resource: str, name: str) -> bool:
        roles = [b["roleRef"]["name"] for b in self.cluster.objects if b["kind"] == "RoleBinding"
                 and b["roleRef"]["kind"] == "Role"
                 and any(s.get("kind") == "ServiceAccount" and s.get("name") == caller.service_account
                         and s.get("namespace", b["metadata"].get("namespace")) == caller.namespace
                         for s in b.get("subjects", []))]
        rules = [r for o in self.cluster.objects if o["kind"] == "Role" and o["metadata"]["name"] in roles
                 for r in o.get("rules", [])]
        return any("" in r.get("apiGroups", []) and resource in r.get("resources", [])
                   and verb in r.get("verbs", []) and (not r.get("resourceNames") or name in r["resourceNames"])
                   for r in rules)


def _kill_when_closed(conn: socket.socket, process: subprocess.Popen) -> None:
    """kubectl exits (mpirun ends its launch agents) -> the remote command ends too."""
    try:
        conn.recv(1)
    except OSError:
        pass
    if process.poll() is None:
        _kill(process)
