"""The reading of the cluster (mpigen.status.cluster), on a cluster object that answers as an
API server does: a list in pages (metadata.continue, as the API server's chunked lists), each
item given its kind; a 404 list is none of the kind; 401, 403 and other answers are one error
each, saying what to do; Kueue's positions asked once per LocalQueue, only for a job with a
Workload, and none when the visibility API is absent or unavailable; the kinds listed are
those of the jobs' targets, the MPIJob under the API version the jobs render."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from mpigen.errors import InputError
from mpigen.render.watched import Watched
from mpigen.status.cluster import kinds_read, list_kind, pending_positions, read
from mpigen.status.model import ObjectRef, Wanted
from mpigen.status.reads import JOB_SET, WORKLOAD

SERVER = "https://api.example.com:6443"


@dataclass
class Answer:
    status: int
    body: dict


@dataclass
class Cluster:
    """Answers by path (a list of answers: one per call, in turn), and the calls made."""

    answers: dict[str, list[Answer]] = field(default_factory=dict)
    calls: list[tuple[str, str, list]] = field(default_factory=list)
    server: str = SERVER

    def request(self, method: str, path: str, query: list | None = None) -> Answer:
        self.calls.append((method, path, query or []))
        waiting = self.answers.get(path)
        return waiting.pop(0) if waiting else Answer(200, {"items": []})


def wanted(job: str, namespace: str = "ml", target: str = "jobset", queue: str | None = None,
           objects: tuple[ObjectRef, ...] = ()) -> Wanted:
    watched = Watched("JobSet", job, f"{job}-launcher", f"{job}-worker", namespace=namespace, job=job, queue=queue)
    return Wanted("", target, watched, objects)


def item(name: str, job: str | None = None, uid: str | None = None, owner: str | None = None) -> dict:
    meta = {"name": name, "namespace": "ml", "uid": uid or name, "labels": {"mpigen.dev/job": job} if job else {}}
    if owner:
        meta["ownerReferences"] = [{"uid": owner, "controller": True}]
    return {"metadata": meta}


def test_a_list_is_read_page_after_page_and_each_item_gets_its_kind():
    path = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets"
    cluster = Cluster({path: [Answer(200, {"metadata": {"continue": "page-2"}, "items": [item("a")]}),
                              Answer(200, {"metadata": {}, "items": [item("b")]})]})
    listed = list_kind(cluster, JOB_SET, "ml")
    assert [(o["metadata"]["name"], o["kind"], o["apiVersion"]) for o in listed] == [
        ("a", "JobSet", "jobset.x-k8s.io/v1alpha2"), ("b", "JobSet", "jobset.x-k8s.io/v1alpha2")]
    assert [dict(query) for _, _, query in cluster.calls] == [
        {"labelSelector": "mpigen.dev/job", "limit": "500"},
        {"labelSelector": "mpigen.dev/job", "limit": "500", "continue": "page-2"}]


def test_a_kind_the_cluster_does_not_serve_is_none_of_it():
    cluster = Cluster({"/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets": [Answer(404, {"message": "not found"})]})
    assert list_kind(cluster, JOB_SET, "ml") == []


@pytest.mark.parametrize("status, says", [
    (401, f"{SERVER}: not authenticated (Unauthorized): log in again or check the kubeconfig's credentials"),
    (403, f"{SERVER} refuses to list workloads (kueue.x-k8s.io API group) in namespace ml: grant your account the "
          'verb list on workloads in apiGroup "kueue.x-k8s.io" there (a Role and RoleBinding), or use a context that '
          "has it"),
    (500, f"{SERVER} answered HTTP 500 to list workloads in namespace ml: etcdserver: request timed out"),
])
def test_a_refused_list_is_one_error_that_says_what_to_do(status, says):
    message = {401: "Unauthorized", 403: "forbidden", 500: "etcdserver: request timed out"}[status]
    cluster = Cluster({"/apis/kueue.x-k8s.io/v1beta2/namespaces/ml/workloads": [Answer(status, {"message": message})]})
    with pytest.raises(InputError) as raised:
        list_kind(cluster, WORKLOAD, "ml")
    assert [d.message for d in raised.value.diagnostics] == [says]


@pytest.mark.parametrize("status", [404, 503])
def test_no_visibility_api_gives_no_positions(status):
    path = "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/ml/localqueues/gpus/pendingworkloads"
    assert pending_positions(Cluster({path: [Answer(status, {})]}), "ml", "gpus") == {}


def test_positions_are_asked_once_per_queue_and_only_for_jobs_with_a_workload():
    """Two jobs in one queue, their Workloads owned by their JobSets; a third queued job with
    nothing in the cluster asks nothing of its queue."""
    listed = {
        "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets": [Answer(200, {"items": [
            item("a", "a", "uid-a"), item("b", "b", "uid-b")]})],
        "/apis/kueue.x-k8s.io/v1beta2/namespaces/ml/workloads": [Answer(200, {"items": [
            item("jobset-a-1f2e3", owner="uid-a"), item("jobset-b-4d5c6", owner="uid-b")]})],
        "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/ml/localqueues/gpus/pendingworkloads": [
            Answer(200, {"items": [{"metadata": {"name": "jobset-b-4d5c6"}, "positionInLocalQueue": 0},
                                   {"metadata": {"name": "jobset-a-1f2e3"}, "positionInLocalQueue": 1}]})],
    }
    cluster = Cluster(listed)
    jobs = [wanted("a", queue="gpus"), wanted("b", queue="gpus"), wanted("c", queue="other")]
    seen = read(cluster, jobs)
    assert seen[("ml", "a")].positions == {"jobset-a-1f2e3": 1}
    assert seen[("ml", "b")].positions == {"jobset-b-4d5c6": 0}
    assert seen[("ml", "c")].objects == [] and seen[("ml", "c")].positions == {}
    visibility = [path for _, path, _ in cluster.calls if "visibility" in path]
    assert visibility == ["/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/ml/localqueues/gpus/pendingworkloads"]


def test_the_kinds_listed_are_the_targets_and_kueue_s_only_when_a_job_is_queued():
    static = kinds_read([wanted("a", target="static")])
    assert [k.kind for k in static] == ["StatefulSet", "Job", "Pod"]
    queued = kinds_read([wanted("a", target="static", queue="gpus")])
    assert [k.kind for k in queued] == ["StatefulSet", "Job", "Pod", "Workload"]
    v1 = kinds_read([wanted("a", target="mpijob", objects=(ObjectRef("kubeflow.org/v1", "MPIJob", "a"),))])
    assert [(k.kind, k.api_version) for k in v1][0] == ("MPIJob", "kubeflow.org/v1")
    assert kinds_read([wanted("a", target="mpijob")])[0].api_version == "kubeflow.org/v2beta1"


def test_one_list_call_per_kind_and_namespace_whatever_the_number_of_jobs():
    cluster = Cluster()
    jobs = [wanted(f"job-{i}", namespace=f"ns-{i % 2}") for i in range(10)]
    read(cluster, jobs)
    paths = [path for _, path, _ in cluster.calls]
    assert len(paths) == len(set(paths)) == len(kinds_read(jobs)) * 2
