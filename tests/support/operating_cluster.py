"""A cluster on day two, for docs/operating.md and the acceptance test of `mpigen status`: the
objects a render applied, as the controllers then write them, served by
tests.support.fake_api_server. The controllers' ports are those of the tests of the judging
(tests.support.status_operator_world, status_jobset_world, status_world, status_objects:
the Job, StatefulSet, JobSet, Trainer and MPI Operator controllers, Kueue's Workloads, each
with its files); this module adds the Workload of each object Kueue manages, in the
LocalQueue its label names (Kueue v0.19.2 pkg/controller/jobframework/reconciler.go
`constructWorkload`: spec.queueName from the kueue.x-k8s.io/queue-name label), and the
visibility API's items for the pending ones.
"""

from __future__ import annotations

import copy

from mpigen.kube.labels import KUEUE_QUEUE_LABEL
from tests.support.fake_api_server import FakeAPIServer, Kind
from tests.support.status_moments import BY_KUEUE
from tests.support.status_objects import workload
from tests.support.status_jobset_world import jobset_world
from tests.support.status_objects import live
from tests.support.status_operator_world import static_world
from tests.support.status_world import objects_at

KINDS = [Kind("v1", "Pod", "pods"), Kind("batch/v1", "Job", "jobs"), Kind("apps/v1", "StatefulSet", "statefulsets"),
         Kind("kueue.x-k8s.io/v1beta2", "Workload", "workloads"), Kind("jobset.x-k8s.io/v1alpha2", "JobSet", "jobsets"),
         Kind("trainer.kubeflow.org/v1alpha1", "TrainJob", "trainjobs"), Kind("kubeflow.org/v2beta1", "MPIJob", "mpijobs")]
MANAGED = ("Job", "StatefulSet", "JobSet", "TrainJob", "MPIJob")


def rendered_job(rendered: list[dict], moment: str) -> list[dict]:
    """A job of the repository's environments at `moment`: each renders with the static target,
    but those mpigen.yaml's target rules give jobset (the Kueue example)."""
    return jobset_job(rendered, moment) if any(o["kind"] == "JobSet" for o in rendered) else static_job(rendered, moment)


def jobset_job(rendered: list[dict], moment: str) -> list[dict]:
    """A jobset-target job's objects at `moment`, with the Workload of its queue when it has one."""
    js = next(o for o in rendered if o["kind"] == "JobSet")
    queued = KUEUE_QUEUE_LABEL in js["metadata"].get("labels", {})
    return with_workloads([live(copy.deepcopy(o)) for o in rendered if o is not js] + jobset_world(js, moment, queued),
                          moment)


def static_job(rendered: list[dict], moment: str) -> list[dict]:
    """A static-target job's objects at `moment` (tests.support.status_moments), with the
    Workloads of its queue when it has one."""
    return with_workloads(static_world(rendered, moment), moment)


def with_workloads(objects: list[dict], moment: str) -> list[dict]:
    """The objects, and a Workload for each that Kueue manages, in the LocalQueue its label names."""
    managed = [o for o in objects if o["kind"] in MANAGED and KUEUE_QUEUE_LABEL in o["metadata"].get("labels", {})]
    return objects + [workload(o, o["metadata"]["labels"][KUEUE_QUEUE_LABEL], BY_KUEUE.get(moment, "admitted"))
                      for o in managed]


def other_target_job(target: str, rendered: list[dict], moment: str = "running") -> list[dict]:
    """A jobset, trainjob or mpijob job's objects at `moment`, not queued (the MPI Operator's
    pods with its defaultLabels, as tests.support.status_operator_world makes them)."""
    return objects_at(target, rendered, moment, False)


def pending_items(workloads: list[dict]) -> list[dict]:
    """Kueue's visibility API's items for these pending Workloads, in this order (Kueue v0.19.2
    apis/visibility/v1beta2/types.go PendingWorkload; positions from 0)."""
    return [{"metadata": {"name": wl["metadata"]["name"], "namespace": wl["metadata"]["namespace"]},
             "priority": 0, "localQueueName": wl["spec"]["queueName"], "positionInClusterQueue": i,
             "positionInLocalQueue": i} for i, wl in enumerate(workloads)]


def serve(objects: list[dict], pending: dict | None = None) -> FakeAPIServer:
    """A fake API server holding these objects (not started)."""
    return FakeAPIServer(kinds=list(KINDS), objects=list(objects), pending=dict(pending or {}))
