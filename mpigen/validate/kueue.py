"""Kueue's fields against each other: the priority class, the topology request and
MultiKueue mean nothing to a job that no queue admits (Kueue ignores the workload)."""

from __future__ import annotations

from mpigen.errors import Diagnostic, error
from mpigen.validate.fields import Fields

SCHEDULING = ("spec", "scheduling")
QUEUED = {"priorityClass": "the label kueue.x-k8s.io/priority-class is read only for a queued workload",
          "topology": "Kueue places only the pods it admits",
          "multiKueue": "only a queue's ClusterQueue can dispatch the job to a worker cluster"}


def check_kueue(f: Fields, out: list[Diagnostic]) -> None:
    if not f.ok(SCHEDULING) or not isinstance(f.get(SCHEDULING), dict):
        return
    scheduling = f.get(SCHEDULING)
    if scheduling.get("queue") is not None:
        return
    for key, reason in QUEUED.items():
        if scheduling.get(key) not in (None, False):
            out.append(error(f.doc.key_mark(SCHEDULING + (key,)),
                             f"spec.scheduling.{key} needs spec.scheduling.queue (a Kueue LocalQueue): {reason}"))
