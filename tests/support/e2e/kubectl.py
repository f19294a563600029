"""`kubectl` of the pretend cluster, placed at /opt/kube/kubectl as kubectl-delivery would, and
on the PATH of containers of the kubectl image (jobset_cluster.py).

It speaks exactly the forms the rendered kubexec.sh and the JobSet's ssh-keygen job use:

    kubectl cp SRC POD:DST
    kubectl exec POD -- CMD...
    kubectl delete secret NAME --namespace NS --ignore-not-found --wait=false [--cache-dir DIR]
    kubectl create --filename FILE [--cache-dir DIR]

(an option's value given as `--option VALUE` or `--option=VALUE`; --cache-dir, where kubectl
keeps its discovery cache, is made when it can be, and otherwise ignored, as kubectl only warns)
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
DELETE_FLAGS = {"--ignore-not-found": "", "--wait": "false"}

USAGE = ("kubectl (mpigen e2e shim): unsupported command line {argv!r}; only `kubectl cp SRC POD:DST` "
         "and `kubectl exec POD -- CMD...` (the forms kubexec.sh uses), `kubectl delete secret NAME --namespace NS "
         "--ignore-not-found --wait=false [--cache-dir DIR]` and `kubectl create --filename FILE [--cache-dir DIR]` "
         "(the ssh-keygen job's) are implemented")


def options(words: list[str], valued: set[str]) -> dict[str, str] | None:
    """--name VALUE / --name=VALUE for the names in `valued`, --name or --name=VALUE for the rest;
    None for a word that is no option."""
    found: dict[str, str] = {}
    words = list(words)
    while words:
        word = words.pop(0)
        if not word.startswith("--"):
            return None
        name, eq, value = word.partition("=")
        if name in valued and not eq:
            if not words:
                return None
            value = words.pop(0)
        found[name] = value
    return found


def secret_request(argv: list[str]) -> dict | None:
    """The ssh-keygen job's two forms, or None."""
    if len(argv) >= 3 and argv[:2] == ["delete", "secret"] and not argv[2].startswith("-"):
        given = options(argv[3:], {"--namespace", "--cache-dir"})
        if given is not None and set(given) - {"--cache-dir"} == {"--namespace", *DELETE_FLAGS} and \
                all(given[k] == v for k, v in DELETE_FLAGS.items()):
            cache(given)
            return {"verb": "delete-secret", "name": argv[2], "namespace": given["--namespace"]}
    if argv[:1] == ["create"]:
        given = options(argv[1:], {"--filename", "--cache-dir"})
        if given is not None and set(given) - {"--cache-dir"} == {"--filename"}:
            cache(given)
            try:
                with open(given["--filename"]) as manifest:
                    return {"verb": "create", "file": given["--filename"], "manifest": manifest.read()}
            except OSError as exc:
                sys.exit(f'error: the path "{given["--filename"]}" cannot be read: {exc.strerror}')
    return None


def cache(given: dict[str, str]) -> None:
    if "--cache-dir" in given:
        try:
            os.makedirs(given["--cache-dir"], exist_ok=True)
        except OSError:
            pass


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
    request = secret_request(argv)
    if request is not None:
        return request, 0
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
