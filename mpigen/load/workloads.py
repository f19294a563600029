"""A Kueue Workload among the documents of mpigen's input (a blueprint's file, an overlay's,
the manifests `mpigen import` reads): refused at its kind, since it can never be a job's.

Kueue makes the Workload of each job it manages itself, named after the job's kind, name and
UID (kubernetes-sigs/kueue v0.19.2, pkg/controller/jobframework/workload_names.go getHash), a
UID no file can know; one named by a job's `kueue.x-k8s.io/prebuilt-workload-name` is claimed
by the first job that names it (reconciler.go EnsurePrebuiltWorkloadOwnership) and ignored by
every later one, a new run under a GitOps profile among them (mpigen.validate.kueue refuses
that key). mpigen writes no Workload and would silently drop one found beside a blueprint.
"""

from __future__ import annotations

from mpigen.errors import Diagnostic, error
from mpigen.load.document import Document

KUEUE_GROUP = "kueue.x-k8s.io"
WORKLOAD_KIND = "Workload"
WORKLOAD_REFUSED = ("a Kueue Workload: Kueue makes each queued job's Workload itself, named after the job's UID, so "
                    "one kept in Git is never the job's (and one a prebuilt-workload-name names is claimed by the "
                    "first run alone); mpigen writes and reads none: remove it, and give the blueprint "
                    "spec.scheduling.queue (the LocalQueue)")


def workload_problems(docs: list[Document]) -> list[Diagnostic]:
    """An error at the kind of each Kueue Workload among the documents."""
    out = []
    for doc in docs:
        data = doc.data
        if not isinstance(data, dict) or data.get("kind") != WORKLOAD_KIND:
            continue
        api = data.get("apiVersion")
        if isinstance(api, str) and api.split("/")[0] == KUEUE_GROUP:
            out.append(error(doc.value_mark(("kind",)), WORKLOAD_REFUSED))
    return out
