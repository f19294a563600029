"""Live-cluster commands (issue 7, point 2) against a local HTTP server that answers the
Kubernetes API paths the commands use, as an API server does (Status objects included):

- `validate --server` sends each object as a server-side apply with dryRun=All and strict
  field validation, with the kubeconfig's credentials, and reports the server's answer per
  object (accepted, invalid, forbidden, kind not installed);
- `diff --live` compares the render with the cluster's objects, ignoring what the server
  adds, and prints `mpigen diff`'s report;
- a missing kubeconfig or an unreachable server is a clear error, exit 2.
"""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.command_line import run_mpigen

pytest.importorskip("kubernetes")

BLUEPRINT = blueprint_text("job", namespace="team", workers=3)
GANG = blueprint_text("job", namespace="team", workers=3, scheduling={"gang": {"scheduler": "volcano"}})


def status(code: int, reason: str, message: str, **details) -> dict:
    return {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message, "reason": reason,
            "code": code, **({"details": details} if details else {})}


class FakeAPIServer:
    """Objects by REST path; `answers` overrides the answer for a path (recorded responses)."""

    def __init__(self):
        self.objects: dict[str, dict] = {}
        self.answers: dict[str, tuple[int, dict]] = {}
        self.requests: list[dict] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, code: int, body: dict):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def handle_request(self, method: str):
                url = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode() if length else ""
                api.requests.append({"method": method, "path": url.path, "query": dict(parse_qsl(url.query)),
                                     "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
                if url.path in api.answers:
                    return self.reply(*api.answers[url.path])
                if "/apis/scheduling.volcano.sh/" in url.path:
                    return self.reply(404, status(404, "NotFound", "the server could not find the requested resource"))
                if method == "GET":
                    if url.path in api.objects:
                        return self.reply(200, api.objects[url.path])
                    name = url.path.rsplit("/", 1)[-1]
                    return self.reply(404, status(404, "NotFound", f'"{name}" not found', name=name))
                if method == "PATCH" and dict(parse_qsl(url.query)).get("dryRun") == "All":
                    return self.reply(200, json.loads(body))
                return self.reply(405, status(405, "MethodNotAllowed", "only dry runs here"))

            def do_GET(self):
                self.handle_request("GET")

            def do_PATCH(self):
                self.handle_request("PATCH")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    fake = FakeAPIServer()
    yield fake
    fake.close()


def kubeconfig(path, *servers: str) -> str:
    """A kubeconfig with one context per server (ctx0, ctx1, ...), the first current."""
    clusters = "".join(f"- name: c{i}\n  cluster: {{server: '{url}'}}\n" for i, url in enumerate(servers))
    contexts = "".join(f"- name: ctx{i}\n  context: {{cluster: c{i}, user: u}}\n" for i in range(len(servers)))
    path.write_text(f"apiVersion: v1\nkind: Config\nclusters:\n{clusters}contexts:\n{contexts}"
                    "users:\n- name: u\n  user: {token: secret-token}\ncurrent-context: ctx0\n")
    return str(path)


def blueprint_folder(tmp_path, text: str = BLUEPRINT):
    (tmp_path / "blueprints").mkdir(exist_ok=True)
    (tmp_path / "blueprints" / "job.yaml").write_text(text)
    return tmp_path


EXPECTED_PATHS = [
    "/api/v1/namespaces/team/serviceaccounts/job-launcher",
    "/api/v1/namespaces/team/configmaps/job-config",
    "/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles/job-launcher",
    "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings/job-launcher",
    "/apis/apps/v1/namespaces/team/statefulsets/job-worker",
    "/apis/batch/v1/namespaces/team/jobs/job-launcher",
]


def test_every_object_is_a_strict_server_side_dry_run(server, tmp_path):
    config = kubeconfig(tmp_path / "kubeconfig", server.url)
    done = run_mpigen("validate", "--server", "--kubeconfig", config, "blueprints", cwd=blueprint_folder(tmp_path))
    assert done.returncode == 0, done.stderr
    assert [r["path"] for r in server.requests] == EXPECTED_PATHS  # in install order
    for request in server.requests:
        assert request["method"] == "PATCH"
        assert request["query"] == {"dryRun": "All", "fieldManager": "mpigen", "fieldValidation": "Strict",
                                    "force": "true"}
        assert request["headers"]["content-type"] == "application/apply-patch+yaml"
        assert request["headers"]["authorization"] == "Bearer secret-token"
        sent = json.loads(request["body"])
        assert request["path"].endswith(f"/{sent['metadata']['name']}")
    assert done.stdout == b""  # no problem to print
    assert done.stderr.decode().splitlines()[-1] == (
        f"mpigen: 6 objects sent to {server.url} as a dry run: 6 accepted, 0 refused")


def test_refusals_are_reported_per_object_with_what_to_do(server, tmp_path):
    server.answers["/apis/apps/v1/namespaces/team/statefulsets/job-worker"] = (422, status(
        422, "Invalid", 'StatefulSet.apps "job-worker" is invalid: spec.template.spec.containers[0].image: Required'))
    server.answers["/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles/job-launcher"] = (403, status(
        403, "Forbidden", 'roles.rbac.authorization.k8s.io "job-launcher" is forbidden: User "dev" cannot patch'))
    config = kubeconfig(tmp_path / "kubeconfig", server.url)
    done = run_mpigen("validate", "--server", "--kubeconfig", config, "blueprints", cwd=blueprint_folder(tmp_path, GANG))
    assert done.returncode == 2
    lines = done.stdout.decode().splitlines()
    assert ('team/statefulset-job-worker.yaml: StatefulSet team/job-worker is invalid: StatefulSet.apps '
            '"job-worker" is invalid: spec.template.spec.containers[0].image: Required') in lines
    assert ('team/role-job-launcher.yaml: Role team/job-launcher is invalid: forbidden (roles.rbac.authorization.k8s.io '
            '"job-launcher" is forbidden: User "dev" cannot patch): your account may not apply Role objects here') in lines
    assert ("team/podgroup-job.yaml: PodGroup team/job is invalid: the cluster has no scheduling.volcano.sh/v1beta1 "
            "PodGroup (the server could not find the requested resource): install its CustomResourceDefinition "
            "(the MPI Operator's, or the gang scheduler's)") in lines
    assert b"7 objects sent to" in done.stderr and b"4 accepted, 3 refused" in done.stderr


def test_junit_report_of_the_server(server, tmp_path):
    import xml.etree.ElementTree as ET

    config = kubeconfig(tmp_path / "kubeconfig", server.url)
    done = run_mpigen("validate", "--server", "--format", "junit", "--kubeconfig", config, "blueprints",
                      cwd=blueprint_folder(tmp_path))
    root = ET.fromstring(done.stdout)
    assert root.get("tests") == "6" and root.get("failures") == "0"


def test_the_context_picks_the_cluster(server, tmp_path):
    config = kubeconfig(tmp_path / "kubeconfig", "http://127.0.0.1:9", server.url)
    done = run_mpigen("validate", "--server", "--kubeconfig", config, "--context", "ctx1", "blueprints",
                      cwd=blueprint_folder(tmp_path))
    assert done.returncode == 0, done.stderr
    assert len(server.requests) == 6


def test_no_kubeconfig(tmp_path):
    done = run_mpigen("validate", "--server", "--kubeconfig", str(tmp_path / "missing"), "blueprints",
                      cwd=blueprint_folder(tmp_path))
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().startswith(f"error: {tmp_path / 'missing'}: cannot use the kubeconfig: ")


def test_no_kubeconfig_anywhere_is_a_plain_error_line(tmp_path):
    """No --kubeconfig, no KUBECONFIG, no ~/.kube/config: there is no file to name, so the
    line is `error: MESSAGE`, with no made-up `kubeconfig:` path before it."""
    env = {key: value for key, value in os.environ.items() if key != "KUBECONFIG"}
    env["HOME"] = str(tmp_path / "home")
    done = run_mpigen("validate", "--server", "blueprints", cwd=blueprint_folder(tmp_path), env=env)
    assert done.returncode == 2 and done.stdout == b""
    line, = done.stderr.decode().splitlines()
    assert line.startswith("error: cannot use the kubeconfig: "), line
    assert line.endswith("; give one with --kubeconfig or KUBECONFIG, and a context with --context"), line


def test_unknown_context(server, tmp_path):
    config = kubeconfig(tmp_path / "kubeconfig", server.url)
    done = run_mpigen("validate", "--server", "--kubeconfig", config, "--context", "prod", "blueprints",
                      cwd=blueprint_folder(tmp_path))
    assert done.returncode == 2 and b"cannot use the kubeconfig" in done.stderr and b"prod" in done.stderr


def test_unreachable_server(tmp_path):
    config = kubeconfig(tmp_path / "kubeconfig", "http://127.0.0.1:9")  # the discard port: nothing listens
    done = run_mpigen("validate", "--server", "--kubeconfig", config, "blueprints", cwd=blueprint_folder(tmp_path), timeout=120)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().startswith("error: cannot reach the API server http://127.0.0.1:9: ")
    assert "Traceback" not in done.stderr.decode()


def rendered_objects(tmp_path) -> dict[str, dict]:
    import yaml

    done = run_mpigen("render", "--stdout", "blueprints", cwd=tmp_path)
    return {obj["kind"]: obj for obj in yaml.safe_load_all(done.stdout)}


def with_server_fields(obj: dict) -> dict:
    """The object as a cluster returns it: bookkeeping and defaults added."""
    live = json.loads(json.dumps(obj))
    live["metadata"].update({"uid": "5f1c", "resourceVersion": "812", "creationTimestamp": "2026-11-01T10:00:00Z",
                             "managedFields": [{"manager": "mpigen", "operation": "Apply"}]})
    if obj["kind"] == "StatefulSet":
        live["spec"]["revisionHistoryLimit"] = 10
        live["spec"]["template"]["spec"]["containers"][0]["terminationMessagePath"] = "/dev/termination-log"
        live["status"] = {"replicas": 3, "readyReplicas": 3}
    return live


def test_diff_live_ignores_what_the_server_adds(server, tmp_path):
    blueprint_folder(tmp_path)
    for obj in rendered_objects(tmp_path).values():
        from mpigen.review.live import resource_path

        server.objects[resource_path(obj)] = with_server_fields(obj)
    config = kubeconfig(tmp_path / "kubeconfig", server.url)
    done = run_mpigen("diff", "--live", "--kubeconfig", config, cwd=tmp_path)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    assert all(r["method"] == "GET" for r in server.requests) and len(server.requests) == 6


def test_diff_live_reports_changed_and_missing_objects(server, tmp_path):
    from mpigen.review.live import resource_path

    blueprint_folder(tmp_path)
    objects = rendered_objects(tmp_path)
    for kind, obj in objects.items():
        if kind == "Job":
            continue  # not applied yet
        live = with_server_fields(obj)
        if kind == "StatefulSet":
            live["spec"]["replicas"] = 2
        server.objects[resource_path(obj)] = live
    config = kubeconfig(tmp_path / "kubeconfig", server.url)
    done = run_mpigen("diff", "--live", "--format", "json", "--kubeconfig", config, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    text = json.dumps(report)
    assert "job-launcher" in text and "replicas" in text
    plain = run_mpigen("diff", "--live", "--kubeconfig", config, cwd=tmp_path).stdout.decode()
    assert f"cluster {server.url}" in plain


def test_diff_live_takes_no_folders(tmp_path):
    done = run_mpigen("diff", "--live", "a", "b", cwd=blueprint_folder(tmp_path))
    assert done.returncode == 2 and b"--live compares the render with the cluster" in done.stderr


TRAINJOB_CONFIG = "apiVersion: mpigen.dev/v1alpha1\nkind: Config\nblueprints: [blueprints]\ntarget: trainjob\n"


def test_diff_live_names_the_trainjobs_kueue_holds_suspended_that_a_trainer_upgrade_cannot_resume(server, tmp_path):
    """The cluster runs the v2.3 render; Git moves to v2.4. Of two TrainJobs under a queue, the
    cluster holds `held` suspended (Kueue suspends a queued or preempted one: v0.19.2
    pkg/controller/jobs/trainjob/trainjob_webhook.go Default, jobframework/reconciler.go stopJob)
    and runs `admitted`: only the held one cannot resume after the upgrade (Trainer v2.4.0
    release notes; tests/acceptance/gitops/test_upgrade_path.py follows it on the cluster)."""
    import yaml

    from mpigen.review.live import resource_path

    (tmp_path / "blueprints").mkdir()
    for name in ("held", "admitted"):
        (tmp_path / "blueprints" / f"{name}.yaml").write_text(
            blueprint_text(name, namespace="team", workers=2, scheduling={"queue": "team-gpus"}))
    (tmp_path / "mpigen.yaml").write_text(TRAINJOB_CONFIG)
    done = run_mpigen("render", "--stdout", cwd=tmp_path)
    for obj in (o for o in yaml.safe_load_all(done.stdout) if o):
        live = with_server_fields(obj)
        if obj["kind"] == "TrainJob":
            live["spec"]["suspend"] = obj["metadata"]["name"] == "held"
        server.objects[resource_path(obj)] = live
    (tmp_path / "mpigen.yaml").write_text(TRAINJOB_CONFIG + "versions: {trainer: v2.4}\n")
    config = kubeconfig(tmp_path / "kubeconfig", server.url)
    done = run_mpigen("diff", "--live", "--format", "json", "--kubeconfig", config, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    (upgrade,) = json.loads(done.stdout)["upgrades"]
    assert (upgrade["key"], upgrade["old"], upgrade["new"], upgrade["at"]) == ("trainer", "v2.3", "v2.4", "mpigen.yaml:5:21")
    said = {o["object"]: (o["warning"], o["said"]) for o in upgrade["objects"]}
    assert said["TrainJob team/held"][0] and said["TrainJob team/held"][1].startswith(
        "suspended (held by Kueue in queue team-gpus, or state: completed): Trainer v2.4 cannot resume")
    assert not said["TrainJob team/admitted"][0] and "keeps its JobSet" in said["TrainJob team/admitted"][1]
    assert json.loads(done.stdout)["restarts"] == []
