"""The pretend cluster's API server: a Unix socket served by a thread. The kubectl shim
(tests/support/e2e/kubectl.py) sends it requests, each authorized against the rendered Role and
RoleBinding for the caller's ServiceAccount (from its token, else its pod's host name):
- `cp` and `exec`, authorized as kubectl's GET pods and POST pods/exec are, run in the target
  pod's first container;
- `delete-secret` (DELETE secrets/NAME: a rule's resourceNames can limit it) and `create` of a
  Secret (POST secrets: the request has no name yet, so a rule with resourceNames never allows
  it, as in Kubernetes' RBAC authorizer) change the Secrets the cluster stores (secrets.py)."""

from __future__ import annotations

import array
import json
import os
import socket
import subprocess
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from tests.support.e2e.processes import kill
from tests.support.e2e.secrets import ApiError

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
        message, ancillary, _, _ = conn.recvmsg(1 << 20, socket.CMSG_SPACE(3 * fds.itemsize))
        for level, kind, data in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
        request = json.loads(message)
        self.cluster.requests.append(request)
        try:
            if request["verb"] in ("delete-secret", "create"):
                status = self.change_secret(request, fds[1])
            else:
                status = self.run_in_pod(conn, request, fds)
        except Refused as refusal:
            os.write(fds[2], f"Error from server {refusal}\n".encode())
            status = 1
        finally:
            for fd in fds:
                os.close(fd)
        try:
            conn.sendall(str(status).encode())
            conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        conn.close()

    def run_in_pod(self, conn: socket.socket, request: dict, fds: array.array) -> int:
        namespace, account = self.identity(request)
        name = request["pod"]
        for verb, resource in (("get", "pods"), ("create", "pods/exec")):
            self.authorize(namespace, account, verb, resource, name)
        if name not in self.cluster.pods:
            raise Refused(f'(NotFound): pods "{name}" not found')
        pod = self.cluster.pods[name]
        command = request["command"] if request["verb"] == "exec" else ["/bin/sh", "-c", 'cat > "$0"', request["path"]]
        process = self.cluster.spawn(pod, command, stdin=fds[0], stdout=fds[1], stderr=fds[2])
        threading.Thread(target=_kill_when_closed, args=(conn, process), daemon=True).start()
        status = process.wait()
        # kubectl exec exits with the remote command's status; a signal shows as 128+N.
        return status if status >= 0 else 128 - status

    def change_secret(self, request: dict, stdout: int) -> int:
        namespace, account = self.identity(request)
        store = self.cluster.store
        if request["verb"] == "delete-secret":
            self.authorize(request["namespace"], account, "delete", "secrets", request["name"], namespace)
            if store.delete(request["namespace"], request["name"]):  # absent: --ignore-not-found
                os.write(stdout, f'secret "{request["name"]}" deleted\n'.encode())
            return 0
        secret = yaml.safe_load(request["manifest"])
        if not isinstance(secret, dict) or secret.get("kind") != "Secret" or secret.get("apiVersion") != "v1":
            raise Refused(f"(BadRequest): {request['file']}: only a v1 Secret is modelled")
        target = secret.get("metadata", {}).get("namespace", namespace)
        try:
            self.authorize(target, account, "create", "secrets", "", namespace)
            store.create(target, secret)
        except (Refused, ApiError) as error:
            raise Refused(f'{str(error).split(": ", 1)[0]}: error when creating "{request["file"]}": '
                          f'{str(error).split(": ", 1)[1]}') from None
        os.write(stdout, f"secret/{secret['metadata']['name']} created\n".encode())
        return 0

    def identity(self, request: dict) -> tuple[str, str]:
        """(namespace, ServiceAccount) of the caller: its token's, else its pod's."""
        if "token" in request:
            if request["token"] not in self.cluster.store.tokens:
                raise Refused("(Unauthorized): the server has asked for the client to provide credentials")
            return self.cluster.store.tokens[request["token"]]
        caller = next((p for p in self.cluster.pods.values() if request["from"] in (p.hostname, p.uts_name)), None)
        if caller is None:
            raise Refused(f"(Unauthorized): no pod with host name {request['from']}")
        return caller.namespace, caller.service_account

    def authorize(self, namespace: str, account: str, verb: str, resource: str, name: str,
                  home: str | None = None) -> None:
        """Refused (Forbidden) unless a Role bound to the ServiceAccount (of namespace `home`,
        default `namespace`) allows verb on resource `name` in `namespace`."""
        if self.allowed(namespace, home or namespace, account, verb, resource, name):
            return
        user = f"system:serviceaccount:{home or namespace}:{account}"
        base, _, sub = resource.partition("/")
        what = f'{base} "{name}"' if name else base
        raise Refused(f'(Forbidden): {what} is forbidden: User "{user}" cannot {verb} resource "{base}"'
                      f'{f" subresource {sub!r}" if sub else ""} in API group "" in the namespace "{namespace}"')

    def allowed(self, namespace: str, home: str, account: str, verb: str, resource: str, name: str) -> bool:
        objects = self.cluster.objects
        roles = [b["roleRef"]["name"] for b in objects if b["kind"] == "RoleBinding"
                 and b["metadata"].get("namespace", "default") == namespace and b["roleRef"]["kind"] == "Role"
                 and any(s.get("kind") == "ServiceAccount" and s.get("name") == account
                         and s.get("namespace", namespace) == home for s in b.get("subjects", []))]
        rules = [r for o in objects if o["kind"] == "Role" and o["metadata"]["name"] in roles
                 and o["metadata"].get("namespace", "default") == namespace for r in o.get("rules", [])]
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
