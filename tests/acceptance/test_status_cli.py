"""`mpigen status` against an API server (issue 52): a local one (tests/support/fake_api_server.py)
holding jobs as their controllers and Kueue write them (tests/support/status_world.py), read
with one list call per kind and namespace and one visibility call per LocalQueue; a kind whose
CRD is absent (404) is none of it; a list the account may not make (403) and an unreachable
server are one line each, exit 2; -o json; the exit codes; --watch until Ctrl-C; the state in
colour on a terminal."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.support.blueprints import blueprint_yaml
from tests.support.fake_api_server import FakeAPIServer, kubeconfig
from tests.support.operating_cluster import KINDS, pending_items
from tests.support.paths import ROOT
from tests.support.rendering import render_text
from tests.support.status_wanted import QUEUE
from tests.support.status_world import objects_at
from tests.support.terminal import on_terminal, plain

pytest.importorskip("kubernetes")

SPEC = "image: example.com/train:1\nworkers: 2\ncommand: [python, train.py]\n"
QUEUED = f"scheduling:\n  queue: {QUEUE}\n"
# job -> (namespace, queued, the moment of its life the cluster has it at; None: nothing of it)
JOBS = {"train-a": ("ml", True, "queued"), "train-b": ("ml", True, "queued"), "train-c": ("research", False, "running")}
LISTS = {f"{base}/namespaces/{namespace}/{plural}" for namespace in ("ml", "research") for base, plural in (
    ("/apis/jobset.x-k8s.io/v1alpha2", "jobsets"), ("/apis/batch/v1", "jobs"), ("/api/v1", "pods"),
    ("/apis/kueue.x-k8s.io/v1beta2", "workloads"))}
PENDING = f"/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/ml/localqueues/{QUEUE}/pendingworkloads"


def text(job: str, namespace: str, queued: bool) -> str:
    return blueprint_yaml(job, metadata=f"namespace: {namespace}\n", spec=SPEC + (QUEUED if queued else ""))


@pytest.fixture
def repository(tmp_path) -> Path:
    (tmp_path / "blueprints").mkdir()
    for job, (namespace, queued, _) in JOBS.items():
        (tmp_path / "blueprints" / f"{job}.yaml").write_text(text(job, namespace, queued), encoding="utf-8")
    return tmp_path


def cluster(kinds=KINDS) -> FakeAPIServer:
    objects = []
    for job, (namespace, queued, moment) in JOBS.items():
        rendered = render_text(text(job, namespace, queued), f"blueprints/{job}.yaml", target="jobset")
        objects += objects_at("jobset", rendered, moment, queued) if moment else []
    pending = [o for o in objects if o["kind"] == "Workload"]
    return FakeAPIServer(kinds=list(kinds), objects=objects, pending={("ml", QUEUE): pending_items(pending)})


def status(repository: Path, server: FakeAPIServer | str, *args: str) -> subprocess.CompletedProcess:
    url = server if isinstance(server, str) else server.url
    config = kubeconfig(repository / "kubeconfig", url)
    return subprocess.run([sys.executable, "-m", "mpigen", "status", "--target", "jobset", "--kubeconfig",
                           str(config), *args], cwd=repository, capture_output=True, text=True, timeout=120)


def test_one_list_call_per_kind_and_namespace_and_one_visibility_call_per_queue(repository):
    with cluster() as server:
        done = status(repository, server)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["JOB", "TARGET", "GIT", "STATE", "DETAIL"]
    states = {line.split()[0]: line.split()[4] for line in lines[1:]}
    assert states == {"ml/train-a": "queued", "ml/train-b": "queued", "research/train-c": "running"}
    assert f"queued   in {QUEUE}, position 0: " in lines[1] and f"queued   in {QUEUE}, position 1: " in lines[2]
    assert done.stderr == "mpigen: 3 jobs: 2 queued, 1 running; 3 as Git says\n"
    made = Counter(path for _, path, _ in server.requests)
    assert set(server.lists()) == LISTS and all(made[path] == 1 for path in LISTS)
    assert made[PENDING] == 1 and len(server.requests) == len(LISTS) + 1
    selected = {path: query.get("labelSelector") for _, path, query in server.requests}
    assert selected["/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets"] == "mpigen.dev/job"
    assert selected["/api/v1/namespaces/ml/pods"] == "mpigen.dev/job"
    assert selected["/apis/batch/v1/namespaces/ml/jobs"] is None  # a JobSet's child Jobs carry no job label


def test_json_has_every_job_and_the_summary(repository):
    with cluster() as server:
        done = status(repository, server, "-o", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    by_job = {job["job"]: job for job in report["jobs"]}
    assert by_job["train-b"]["state"] == "queued" and by_job["train-b"]["position"] == 1
    assert by_job["train-b"]["queue"] == QUEUE and by_job["train-b"]["git_state"] == "running"
    assert by_job["train-c"]["state"] == "running" and by_job["train-c"]["run"] == "train-c"
    assert by_job["train-c"]["git_run"] == "train-c" and by_job["train-c"]["as_git_says"] is True
    assert report["summary"]["queued"] == 2 and report["summary"]["jobs"] == 3


def test_a_job_missing_from_the_cluster_exits_1(repository):
    (repository / "blueprints" / "train-d.yaml").write_text(text("train-d", "research", False), encoding="utf-8")
    with cluster() as server:
        done = status(repository, server)
    assert done.returncode == 1, done.stderr
    assert [line.split()[3:5] for line in done.stdout.splitlines() if "train-d" in line] == [["train-d", "missing"]]
    assert done.stderr.endswith("1 missing, 2 queued, 1 running; 3 as Git says\n")


def test_a_job_git_stops_that_still_runs_exits_1_in_red(repository):
    """Git says `completed` (the JobSet suspended, not synced yet): the cluster still has it
    running, which is not as Git says: the line says so, and its state is red on a terminal."""
    stopped = text("train-c", "research", False) + "  state: completed\n"
    (repository / "blueprints" / "train-c.yaml").write_text(stopped, encoding="utf-8")
    with cluster() as server:
        done = status(repository, server)
        config = str(kubeconfig(repository / "kubeconfig", server.url))
        shown = on_terminal("status", "--target", "jobset", "--kubeconfig", config, cwd=repository,
                            stdout_terminal=True)
    assert done.returncode == shown.returncode == 1, done.stderr
    line, = [line for line in done.stdout.splitlines() if "train-c" in line]
    assert line.split()[2:5] == ["completed", "train-c", "running"]
    assert line.endswith("running  Git says completed: still running; not synced yet, or the stop was undone; "
                         "ranks 2/2 Ready, restarts 0/6")
    assert done.stderr == "mpigen: 3 jobs: 2 queued, 1 running; 2 as Git says\n"
    assert b"  \x1b[1;31mrunning\x1b[0m  Git says completed" in shown.stdout


def test_a_kind_whose_crd_is_absent_is_none_of_it(repository):
    """A cluster without JobSet's and Kueue's CRDs answers 404 on their lists: no job has any."""
    with cluster([kind for kind in KINDS if kind.kind not in ("JobSet", "Workload")]) as server:
        done = status(repository, server)
    assert done.returncode == 1, done.stderr
    assert {line.split()[0]: line.split()[4] for line in done.stdout.splitlines()[1:]} == {
        "ml/train-a": "missing", "ml/train-b": "missing", "research/train-c": "missing"}
    assert done.stderr == "mpigen: 3 jobs: 3 missing; 0 as Git says\n"
    assert PENDING not in {path for _, path, _ in server.requests}


def test_a_forbidden_list_is_one_line_naming_what_to_grant(repository):
    with cluster() as server:
        server.forbidden.add("/api/v1/namespaces/research/pods")
        done = status(repository, server)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (f"error: {server.url} refuses to list pods (core API group) in namespace research: grant "
                           'your account the verb list on pods in apiGroup "" there (a Role and RoleBinding), or use '
                           "a context that has it\n")


def test_a_forbidden_visibility_call_names_the_subresource(repository):
    with cluster() as server:
        server.forbidden.add(PENDING)
        done = status(repository, server)
    assert done.returncode == 2 and done.stdout == ""
    assert "refuses to get localqueues/pendingworkloads (visibility.kueue.x-k8s.io API group) in namespace ml" \
        in done.stderr and len(done.stderr.splitlines()) == 1


def test_an_unreachable_server_is_one_line(repository):
    with socket.socket() as probe:  # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}"
    done = status(repository, url)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"error: cannot reach the API server {url}: ")
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


def test_watch_reads_again_until_ctrl_c(repository):
    """--watch prints the report at every reading; Ctrl-C (SIGINT) ends it, exit 130, no traceback."""
    with cluster() as server:
        config = kubeconfig(repository / "kubeconfig", server.url)
        process = subprocess.Popen([sys.executable, "-m", "mpigen", "status", "--target", "jobset", "--kubeconfig",
                                    str(config), "--watch", "--interval", "0.2"], cwd=repository,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env={**os.environ, "NO_COLOR": "1"})
        deadline = time.monotonic() + 120  # a guard against a hang, not a measurement
        while Counter(path for _, path, _ in server.requests)[PENDING] < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    assert process.returncode == 130
    # the third reading had begun: the first two were printed
    assert out.count("JOB ") >= 2 and "Traceback" not in err
    assert err.count("mpigen: 3 jobs: 2 queued, 1 running; 3 as Git says\n") >= 2


def test_the_state_is_in_colour_when_standard_output_is_a_terminal(repository):
    with cluster() as server:
        config = str(kubeconfig(repository / "kubeconfig", server.url))
        args = ("status", "--target", "jobset", "--kubeconfig", config)
        piped = subprocess.run([sys.executable, "-m", "mpigen", *args], cwd=repository, capture_output=True,
                               env={k: v for k, v in os.environ.items() if k != "NO_COLOR"})
        shown = on_terminal(*args, cwd=repository, stdout_terminal=True)
        as_json = on_terminal(*args, "-o", "json", cwd=repository, stdout_terminal=True)
    assert shown.returncode == piped.returncode == 0
    assert b"\x1b" not in piped.stdout and plain(shown.stdout) == piped.stdout
    assert b"  \x1b[33mqueued\x1b[0m   " in shown.stdout and b"  \x1b[32mrunning\x1b[0m  " in shown.stdout
    assert b"\x1b" not in as_json.stdout  # JSON is for programs


def test_a_repository_of_several_environments_is_read_one_cluster_at_a_time(tmp_path):
    """mpigen.yaml's environments are each for its cluster: status names those to read."""
    config = kubeconfig(tmp_path / "kubeconfig", "http://127.0.0.1:9")
    done = subprocess.run([sys.executable, "-m", "mpigen", "status", "--kubeconfig", str(config)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("error: mpigen.yaml has 2 environments (dev, prod), each for its cluster: say which this "
                           "cluster runs with --overlay NAME (repeat it for environments that share a cluster)\n")


def test_a_queued_job_stopped_in_git_is_listed_though_it_renders_nothing(tmp_path):
    """`completed` on a queued job renders none of its objects (mpigen.render.kueue): status
    still lists it, under its run's name, stopped once the GitOps controller pruned them."""
    (tmp_path / "blueprints").mkdir()
    stopped = blueprint_yaml("sweep", metadata="namespace: ml\n", spec=SPEC + QUEUED + "state: completed\n")
    (tmp_path / "blueprints" / "sweep.yaml").write_text(stopped, encoding="utf-8")
    with FakeAPIServer(kinds=list(KINDS)) as server:
        done = status(tmp_path, server, "--gitops", "argocd")
    assert done.returncode == 0, done.stderr
    line = done.stdout.splitlines()[1].split()
    assert line[:3] == ["ml/sweep", "jobset", "completed"] and line[3].startswith("sweep-") and line[4] == "stopped"
    assert done.stderr == "mpigen: 1 job: 1 stopped; 1 as Git says\n"


@pytest.mark.parametrize("interval", ["0", "-1", "nan", "soon"])
def test_an_interval_that_is_no_number_of_seconds_above_0_is_a_usage_error(repository, interval):
    done = subprocess.run([sys.executable, "-m", "mpigen", "status", "--watch", "--interval", interval],
                          cwd=repository, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1].startswith("error: argument --interval: ")
