"""`mpigen import`, gang scheduling read back: an MPIJob's runPolicy.schedulingPolicy with the
gang scheduler mpigen's render names beside it (mpigen.render.mpijob.resource.gang_annotations)
is the blueprint's spec.scheduling.gang.

A hand-written MPIJob does not say its scheduler (the operator's --gang-scheduling flag does):
its schedulingPolicy is reported at its line, and the blueprint says the scheduler by hand.
"""

from __future__ import annotations

from typing import Any, get_args

from mpigen.decompile.own_objects import written_by_mpigen
from mpigen.decompile.reader import Reader
from mpigen.formats.scheduling import DEFAULT_SCHEDULER_NAMES, GangScheduler
from mpigen.kube.labels import GANG_SCHEDULER_ANNOTATION, GANG_SCHEDULER_NAME_ANNOTATION

POLICY = ("spec", "runPolicy", "schedulingPolicy")
ANNOTATIONS = ("metadata", "annotations")
CARRIED = ("minAvailable", "queue", "scheduleTimeoutSeconds")  # what a render writes of the blueprint's gang


def gang(r: Reader, out: dict) -> None:
    """spec.scheduling.gang from schedulingPolicy and the scheduler mpigen named, or the
    schedulingPolicy reported as lost."""
    policy = r.mapping(POLICY)
    annotations = r.get(ANNOTATIONS)
    scheduler = annotations.get(GANG_SCHEDULER_ANNOTATION) if isinstance(annotations, dict) else None
    if scheduler not in get_args(GangScheduler) or not written_by_mpigen(r.doc.data) \
            or any(key not in CARRIED for key in policy):
        r.lost(POLICY, "gang scheduling (which scheduler is the operator's --gang-scheduling "
                       "flag; set spec.scheduling.gang by hand)")
        return
    result: dict[str, Any] = {"scheduler": scheduler}
    r.came_from(("scheduling", "gang", "scheduler"), ANNOTATIONS + (GANG_SCHEDULER_ANNOTATION,))
    name = annotations.get(GANG_SCHEDULER_NAME_ANNOTATION)
    if isinstance(name, str) and name != DEFAULT_SCHEDULER_NAMES[scheduler]:
        result["schedulerName"] = name
        r.came_from(("scheduling", "gang", "schedulerName"), ANNOTATIONS + (GANG_SCHEDULER_NAME_ANNOTATION,))
    for key in CARRIED:
        if key in policy and not (key == "minAvailable" and _default_min_available(r, policy[key])):
            result[key] = policy[key]
            r.came_from(("scheduling", "gang", key), POLICY + (key,))
    out.setdefault("scheduling", {})["gang"] = result


def _default_min_available(r: Reader, value: object) -> bool:
    """Whether minAvailable is the one a render writes by itself: the workers, when the
    launcher waits for them (the operator's default, workers + 1, would never be reached)."""
    waits = r.get(("spec", "launcherCreationPolicy")) == "WaitForWorkersReady"
    return waits and value == r.get(("spec", "mpiReplicaSpecs", "Worker", "replicas"))
