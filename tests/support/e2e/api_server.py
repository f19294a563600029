"""The pretend cluster's API server: a Unix socket served by a thread. The kubectl shim
(tests/support/e2e/kubectl.py) sends it `cp` and `exec` requests, which are authorized against
the rendered Role and RoleBinding for the calling pod's ServiceAccount, as kubectl's GET pods
and POST pods/exec are, and run in the target pod's first container."""

from __future__ import annotations

import array
import json
import os
import socket
import subprocess
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from tests.support.e2e.pods import Pod
from tests.support.e2e.processes import kill

if TYPE_CHECKING:  # the cluster starts its API server: a cycle for the annotation only
    from tests.support.e2e.cluster import PretendCluster


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
        kill(process)
