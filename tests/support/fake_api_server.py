"""A local HTTP server that answers the read paths of the Kubernetes API as an API server does,
for `mpigen status` and for kubectl (docs/operating.md's commands are run against it):

- discovery (legacy, which kubectl falls back to when the answer is not aggregated discovery):
  GET /api (APIVersions), /apis (APIGroupList), /api/v1 and /apis/GROUP/VERSION
  (APIResourceList) for the kinds it holds;
- lists: GET /api[s]/GV[/namespaces/NS]/PLURAL with labelSelector (`key`, `key=value`,
  `key!=value`, comma-separated: all must hold, as apimachinery's labels.Parse) and limit, a
  List of the kind; as a meta.k8s.io Table when the client asks for one (kubectl get), with
  the columns kubectl prints for pods;
- a pod's log: GET .../pods/NAME/log (text/plain), what `kubectl logs` reads (follow or not,
  the log ends where the text ends);
- Kueue's visibility API: GET /apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/NS/
  localqueues/LQ/pendingworkloads (a PendingWorkloadsSummary, Kueue v0.19.2
  apis/visibility/v1beta2/types.go);
- a kind not served (its CRD absent) is 404, as the API server answers for an unknown
  resource; `forbidden` paths are 403 with the API server's message (the RBAC authorizer's
  `User "u" cannot list resource "pods" in API group "" in the namespace "ns"`).

Every request is recorded (method, path, query), so that tests count the calls."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

VISIBILITY = "/apis/visibility.kueue.x-k8s.io/v1beta2"


@dataclass(frozen=True)
class Kind:
    """A kind the server serves."""

    api_version: str
    kind: str
    plural: str
    namespaced: bool = True

    @property
    def base(self) -> str:
        return f"/api/{self.api_version}" if "/" not in self.api_version else f"/apis/{self.api_version}"


POD = Kind("v1", "Pod", "pods")


def status(code: int, reason: str, message: str) -> dict:
    """The Status object an API server answers an error with."""
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "code": code}


def selects(selector: str, labels: dict) -> bool:
    """Whether a label selector (the forms apimachinery's labels.Parse reads that tests use)
    selects these labels."""
    for term in filter(None, (part.strip() for part in selector.split(","))):
        if "!=" in term:
            key, value = term.split("!=", 1)
            if labels.get(key) == value:
                return False
        elif "=" in term:
            key, value = term.split("=", 1)
            if labels.get(key.rstrip("=")) != value.lstrip("="):
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True


@dataclass
class FakeAPIServer:
    """The objects it holds, by kind; the kinds it serves (a kind not among them: 404); the
    paths it refuses (403); pods' logs; Kueue's pending workloads by (namespace, queue)."""

    kinds: list[Kind] = field(default_factory=lambda: [POD])
    objects: list[dict] = field(default_factory=list)
    forbidden: set[str] = field(default_factory=set)
    logs: dict[tuple[str, str], str] = field(default_factory=dict)  # (namespace, pod) -> its log
    pending: dict[tuple[str, str], list[dict]] = field(default_factory=dict)  # (namespace, queue) -> items
    requests: list[tuple[str, str, dict]] = field(default_factory=list)

    def start(self) -> FakeAPIServer:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> FakeAPIServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def add(self, *objects: dict) -> None:
        self.objects.extend(objects)

    def lists(self) -> list[str]:
        """The paths of the list calls made (GET of a collection), in order."""
        collections = {kind.plural for kind in self.kinds}
        return [path for method, path, _ in self.requests if path.rsplit("/", 1)[-1] in collections]

    def answer(self, method: str, path: str, query: dict, accept: str) -> tuple[int, str, bytes]:
        self.requests.append((method, path, query))
        if path in self.forbidden:
            return _json(403, status(403, "Forbidden", _forbidden_message(path)))
        if path == "/api":
            return _json(200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []})
        if path == "/apis":
            return _json(200, self._groups())
        if path.startswith(VISIBILITY) and path.endswith("/pendingworkloads"):
            return self._pending(path)
        for kind in self.kinds:
            if path == kind.base:
                return _json(200, self._resources(kind.api_version))
            answer = self._kind_path(kind, path, query, accept)
            if answer is not None:
                return answer
        return _json(404, status(404, "NotFound", "the server could not find the requested resource"))

    def _groups(self) -> dict:
        groups: dict[str, list[str]] = {}
        for kind in self.kinds:
            if "/" in kind.api_version:
                group, version = kind.api_version.split("/")
                versions = groups.setdefault(group, [])
                if version not in versions:
                    versions.append(version)
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
            {"name": group, "versions": [{"groupVersion": f"{group}/{v}", "version": v} for v in versions],
             "preferredVersion": {"groupVersion": f"{group}/{versions[0]}", "version": versions[0]}}
            for group, versions in groups.items()]}

    def _resources(self, api_version: str) -> dict:
        resources = []
        for kind in self.kinds:
            if kind.api_version != api_version:
                continue
            resources.append({"name": kind.plural, "singularName": kind.kind.lower(), "namespaced": kind.namespaced,
                              "kind": kind.kind, "verbs": ["get", "list", "watch"]})
            if kind == POD:
                resources.append({"name": "pods/log", "singularName": "", "namespaced": True, "kind": "Pod",
                                  "verbs": ["get"]})
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": api_version, "resources": resources}

    def _kind_path(self, kind: Kind, path: str, query: dict, accept: str) -> tuple[int, str, bytes] | None:
        parts = path[len(kind.base):].strip("/").split("/") if path.startswith(kind.base + "/") else []
        namespace = None
        if len(parts) >= 2 and parts[0] == "namespaces" and kind.namespaced:
            namespace, parts = parts[1], parts[2:]
        if not parts or parts[0] != kind.plural:
            return None
        items = [obj for obj in self.objects if obj["kind"] == kind.kind and obj["apiVersion"] == kind.api_version
                 and (namespace is None or obj["metadata"].get("namespace") == namespace)]
        if len(parts) == 1:
            chosen = [obj for obj in items if selects(query.get("labelSelector", ""), obj["metadata"].get("labels", {}))]
            if "as=Table" in accept:
                return _json(200, _table(kind, chosen))
            return _json(200, {"kind": f"{kind.kind}List", "apiVersion": kind.api_version,
                               "metadata": {"resourceVersion": "1"}, "items": chosen})
        found = next((obj for obj in items if obj["metadata"]["name"] == parts[1]), None)
        if found is None:
            return _json(404, status(404, "NotFound", f'{kind.plural} "{parts[1]}" not found'))
        if parts[2:] == ["log"] and kind == POD:
            text = self.logs.get((namespace, parts[1]), "")
            return 200, "text/plain", text.encode()
        return _json(200, found)

    def _pending(self, path: str) -> tuple[int, str, bytes]:
        parts = path[len(VISIBILITY):].strip("/").split("/")  # namespaces NS localqueues LQ pendingworkloads
        items = self.pending.get((parts[1], parts[3]))
        if items is None:
            return _json(404, status(404, "NotFound", f'localqueues.kueue.x-k8s.io "{parts[3]}" not found'))
        return _json(200, {"kind": "PendingWorkloadsSummary", "apiVersion": "visibility.kueue.x-k8s.io/v1beta2",
                           "metadata": {}, "items": items})


def _forbidden_message(path: str) -> str:
    """The RBAC authorizer's refusal of a list (k8s.io/apiserver pkg/endpoints/handlers/
    responsewriters/errors.go forbiddenMessage)."""
    parts = path.strip("/").split("/")
    group = "" if parts[0] == "api" else parts[1]
    rest = parts[2:] if parts[0] == "api" else parts[3:]
    namespace = rest[1] if rest[:1] == ["namespaces"] else None
    resource = rest[-1]
    where = f' in the namespace "{namespace}"' if namespace else " at the cluster scope"
    return f'{resource} is forbidden: User "u" cannot list resource "{resource}" in API group "{group}"{where}'


def _table(kind: Kind, items: list[dict]) -> dict:
    """A meta.k8s.io/v1 Table of the objects, as the API server's table convertor makes it:
    for pods kubectl's columns (NAME READY STATUS RESTARTS), else NAME."""
    if kind != POD:
        columns = [{"name": "Name", "type": "string", "format": "name"}]
        rows = [{"cells": [obj["metadata"]["name"]], "object": {"kind": "PartialObjectMetadata",
                                                                 "apiVersion": "meta.k8s.io/v1",
                                                                 "metadata": obj["metadata"]}} for obj in items]
    else:
        columns = [{"name": name, "type": kind_of, "format": "name" if name == "Name" else ""}
                   for name, kind_of in (("Name", "string"), ("Ready", "string"), ("Status", "string"),
                                         ("Restarts", "string"))]
        rows = [{"cells": _pod_cells(pod), "object": {"kind": "PartialObjectMetadata",
                                                      "apiVersion": "meta.k8s.io/v1", "metadata": pod["metadata"]}}
                for pod in items]
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": "1"},
            "columnDefinitions": columns, "rows": rows}


def _pod_cells(pod: dict) -> list[str]:
    statuses = pod.get("status", {}).get("containerStatuses", [])
    ready = sum(1 for s in statuses if s.get("ready"))
    containers = len(pod.get("spec", {}).get("containers", [])) or len(statuses)
    return [pod["metadata"]["name"], f"{ready}/{containers}", pod.get("status", {}).get("phase", "Pending"),
            str(sum(s.get("restartCount", 0) for s in statuses))]


def _json(code: int, body: dict) -> tuple[int, str, bytes]:
    return code, "application/json", json.dumps(body).encode()


def _handler(api: FakeAPIServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            url = urlsplit(self.path)
            code, content_type, data = api.answer("GET", url.path, dict(parse_qsl(url.query)),
                                                  self.headers.get("Accept", ""))
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def kubeconfig(path: Path, server: str) -> Path:
    """A kubeconfig whose current context is the server, with a bearer token."""
    path.write_text("apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n"
                    f"    server: {server}\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n    user: u\n"
                    "users:\n- name: u\n  user:\n    token: fake-token\ncurrent-context: fake\n", encoding="utf-8")
    return path
