"""What the cluster has of a set of jobs, read in as few calls as the API allows: one list call
per kind and namespace (mpigen.status.reads says which kinds the jobs' targets are made of,
and which carry the `mpigen.dev/job` label to select by), never one per job; then, once per
LocalQueue the jobs wait in, Kueue's pending positions.

The cluster is anything with `request(method, path, query) -> Answer(status, body)` and a
`server` (mpigen.review.live.Cluster, or a test's): reading needs no more, and this stage does
not import the live-cluster layer of the review commands.

- A kind whose CustomResourceDefinition is absent answers 404 on its list: the cluster has
  none of it (a cluster without JobSet has no JobSets), which the judging then sees.
- 401 and 403 are errors that say what to do: 403 names the verb and resource to grant (a
  Role with that rule, bound to the account).
- A cluster that cannot be reached is one line (mpigen.review.live.Cluster.request raises it).
- Kueue's visibility API (an aggregated API of the Kueue controller): GET
  /apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/NS/localqueues/LQ/pendingworkloads,
  a PendingWorkloadsSummary whose items are the LocalQueue's pending Workloads, each with
  metadata.name and positionInLocalQueue (starting from 0) (apis/visibility/v1beta2/types.go
  PendingWorkloadsSummary, PendingWorkload: the same fields at v0.17.0 and v0.19.2, and as
  v1beta1's). v1beta2 is the group's preferred version, served with v1beta1 from one storage
  by every release mpigen knows (pkg/visibility/server.go, v0.17.0 to v0.19.2 and main:
  `PrioritizedVersions` v1beta2 then v1beta1; pkg/visibility/storage/storage.go
  "localqueues/pendingworkloads"); the first 1000 of the queue (PendingWorkloadOptions'
  default limit, apis/visibility/v1beta2/defaults.go): a Workload further back has no
  position. A cluster without it (404) or whose Kueue does not serve it now (503) gives no
  positions.
"""

from __future__ import annotations

from mpigen.errors import NOWHERE, InputError, error
from mpigen.kube.labels import JOB_LABEL
from mpigen.status.grouping import group
from mpigen.status.reads import reads
from mpigen.status.model import Seen, Wanted

VISIBILITY = "/apis/visibility.kueue.x-k8s.io/v1beta2"
WORKLOAD_KIND = "Workload"
LIST_LIMIT = 500  # objects per page of a list: a namespace of thousands of pods is read in pages


def read(cluster, wanted: list[Wanted]) -> dict[tuple[str, str], Seen]:
    """(namespace, job) -> what the cluster has of it, for every job wanted."""
    namespaces = sorted({job.namespace for job in wanted})
    listed: list[dict] = []
    for kind in kinds_read(wanted):
        for namespace in namespaces if kind.namespaced else [None]:
            listed.extend(list_kind(cluster, kind, namespace))
    seen = group(wanted, listed)
    for job in wanted:
        seen.setdefault((job.namespace, job.job), Seen())
    _positions(cluster, wanted, seen)
    return seen


def kinds_read(wanted: list[Wanted]) -> list:
    """The kinds to list for these jobs (mpigen.status.reads.Read): their targets', the MPIJob
    under the API version the jobs render, Kueue's Workloads when a job is queued."""
    mpijob = next((ref.api_version for job in wanted for ref in job.objects if ref.kind == "MPIJob"), None)
    queued = any(job.watched.queue is not None for job in wanted)
    targets = {job.target for job in wanted}
    return reads(targets, mpijob, queued) if mpijob is not None else reads(targets, queued=queued)


def list_kind(cluster, kind, namespace: str | None) -> list[dict]:
    """Every object of `kind` in `namespace` (labelled `mpigen.dev/job` where the kind carries
    it), with its apiVersion and kind set (a list's items have neither); none when the cluster
    has no such kind."""
    path = _collection(kind.api_version, kind.plural, namespace)
    query = [("labelSelector", JOB_LABEL)] if kind.labelled else []
    out, token = [], None
    while True:
        page = query + [("limit", str(LIST_LIMIT))] + ([("continue", token)] if token else [])
        answer = cluster.request("GET", path, page)
        if answer.status == 404:
            return []
        if not 200 <= answer.status < 300:
            raise InputError([error(NOWHERE, refused(cluster, answer, "list", kind.plural, kind.api_version,
                                                     namespace))])
        out.extend({**item, "apiVersion": kind.api_version, "kind": kind.kind}
                   for item in answer.body.get("items") or [])
        token = (answer.body.get("metadata") or {}).get("continue")
        if not token:
            return out


def pending_positions(cluster, namespace: str, queue: str) -> dict[str, int]:
    """Workload name -> its position in the LocalQueue (0 first), from Kueue's visibility API;
    nothing when the cluster does not serve it."""
    path = f"{VISIBILITY}/namespaces/{namespace}/localqueues/{queue}/pendingworkloads"
    answer = cluster.request("GET", path)
    if answer.status in (404, 503):
        return {}
    if not 200 <= answer.status < 300:
        raise InputError([error(NOWHERE, refused(cluster, answer, "get", "localqueues/pendingworkloads",
                                                 VISIBILITY.removeprefix("/apis/"), namespace))])
    return {item["metadata"]["name"]: int(item.get("positionInLocalQueue", 0))
            for item in answer.body.get("items") or [] if "name" in (item.get("metadata") or {})}


def _positions(cluster, wanted: list[Wanted], seen: dict[tuple[str, str], Seen]) -> None:
    """Each queued job's Workloads' positions, one request per LocalQueue; only for a job that
    has a Workload in the cluster (a queue with no job's Workload in it is not asked)."""
    asked: dict[tuple[str, str], dict[str, int]] = {}
    for job in wanted:
        here = seen[(job.namespace, job.job)]
        workloads = [obj["metadata"]["name"] for obj in here.objects if obj.get("kind") == WORKLOAD_KIND]
        if job.watched.queue is None or not workloads:
            continue
        key = (job.namespace, job.watched.queue)
        if key not in asked:
            asked[key] = pending_positions(cluster, *key)
        here.positions.update({name: asked[key][name] for name in workloads if name in asked[key]})


def _collection(api_version: str, plural: str, namespace: str | None) -> str:
    base = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
    return f"{base}/namespaces/{namespace}/{plural}" if namespace is not None else f"{base}/{plural}"


def refused(cluster, answer, verb: str, resource: str, api_version: str, namespace: str | None) -> str:
    """The API server's refusal of a read, in words that say what to do."""
    group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
    where = f" in namespace {namespace}" if namespace is not None else " (cluster-wide)"
    message = (answer.body or {}).get("message") or f"HTTP {answer.status}"
    if answer.status == 401:
        return f"{cluster.server}: not authenticated ({message}): log in again or check the kubeconfig's credentials"
    if answer.status == 403:
        return (f"{cluster.server} refuses to {verb} {resource} ({group or 'core'} API group){where}: grant your "
                f"account the verb {verb} on {resource} in apiGroup \"{group}\" there (a Role and RoleBinding), "
                "or use a context that has it")
    return f"{cluster.server} answered HTTP {answer.status} to {verb} {resource}{where}: {message}"
