"""`kubectl` of the pretend cluster, placed at /opt/kube/kubectl as kubectl-delivery would, and
on the PATH of containers of the kubectl image (jobset_cluster.py).

It speaks exactly the forms the rendered kubexec.sh and the JobSet's ssh-keygen job use:

    kubectl cp SRC POD:DST
    kubectl exec POD -- CMD...
    kubectl delete secret NAME --namespace NS --ignore-not-found --wait=false
    kubectl create --filename FILE

and refuses every other command line loudly. Like the real kubectl it does no work itself:
it hands the request, with its own stdin, stdout and stderr, to the pretend API server over
a Unix socket (the server runs the command inside the pod, under that container's
restrictions, or changes its stored Secrets) and exits with the server's status. `create`
reads FILE here, as kubectl does. Its identity is the ServiceAccount token of the in-cluster
configuration (/var/run/secrets/kubernetes.io/serviceaccount/token) when the container has
one, else the calling pod's host name (the static target's automounted token, not modelled as
a file). The cluster writes this file with the interpreter and the socket path filled in (the
lines starting `API_SOCKET =`).
"""

import array
import json
import os
import socket
import sys

API_SOCKET = "/nonexistent"  # replaced when the file is placed in a pod
TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token"
DELETE_SECRET_FLAGS = ["--ignore-not-found", "--wait=false"]

USAGE = ("kubectl (mpigen e2e shim): unsupported command line {argv!r}; only `kubectl cp SRC POD:DST` "
         "and `kubectl exec POD -- CMD...` (the forms kubexec.sh uses), `kubectl delete secret NAME --namespace NS "
         "--ignore-not-found --wait=false` and `kubectl create --filename FILE` (the ssh-keygen job's) are implemented")


def parse(argv: list[str]) -> tuple[dict, int]:
    """(request, stdin fd) for a command line, or SystemExit(2) for any other form."""
    if len(argv) == 3 and argv[0] == "cp" and ":" in argv[2] and ":" not in argv[1]:
        pod, _, path = argv[2].partition(":")
        if pod and path.startswith("/"):
            try:
                source = os.open(argv[1], os.O_RDONLY)
            except OSError as exc:
                sys.exit(f"error: {argv[1]}: {exc.strerror}")
            return {"verb": "cp", "pod": pod, "path": path}, source
    if len(argv) >= 4 and argv[0] == "exec" and argv[2] == "--" and not argv[1].startswith("-"):
        return {"verb": "exec", "pod": argv[1], "command": argv[3:]}, 0
    if len(argv) == 7 and argv[:2] == ["delete", "secret"] and argv[3] == "--namespace" and argv[5:] == \
            DELETE_SECRET_FLAGS:
        return {"verb": "delete-secret", "name": argv[2], "namespace": argv[4]}, 0
    if len(argv) == 3 and argv[:2] == ["create", "--filename"]:
        try:
            with open(argv[2]) as manifest:
                return {"verb": "create", "file": argv[2], "manifest": manifest.read()}, 0
        except OSError as exc:
            sys.exit(f'error: the path "{argv[2]}" cannot be read: {exc.strerror}')
    print(USAGE.format(argv=argv), file=sys.stderr)
    sys.exit(2)


def main(argv: list[str]) -> int:
    request, stdin = parse(argv)
    request["from"] = socket.gethostname()  # the calling pod; its ServiceAccount is the identity
    if os.path.exists(TOKEN):
        with open(TOKEN) as token:
            request["token"] = token.read().strip()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as api:
        api.connect(API_SOCKET)
        fds = array.array("i", [stdin, 1, 2])
        api.sendmsg([json.dumps(request).encode()], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
        answer = b""
        while chunk := api.recv(64):
            answer += chunk
    return int(answer or b"1")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
