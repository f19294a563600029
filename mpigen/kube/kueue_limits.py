"""What the environment's Kueue version (`versions.kueue`, mpigen.formats.versions) allows a
queued job: the pod sets of one Workload.

Kueue makes one Workload of each object it manages as a job, with the pod sets its
integration builds (the `pod_sets` fact of the kind, mpigen.render.kinds). The Workload API
takes at most so many (`spec.podSets`, `+kubebuilder:validation:MaxItems` in
apis/kueue/v1beta1 and v1beta2 workload_types.go, and `jobframework.MaxPodSets`,
pkg/controller/jobframework/constants.go, which the pod-group and Ray integrations check):

| Kueue | MaxItems | read at |
|---|---|---|
| v0.17 | 8 | v0.17.8 (no MaxPodSets constant yet) |
| v0.18 | 10 | v0.18.6 |
| v0.19 | 18 | v0.19.2 |
| v0.20 | 18 | v0.20.0-devel and main |

Over it, the API server refuses the Workload Kueue creates, so the job is never admitted and
its webhook keeps it suspended: the job waits for ever. mpigen's targets write at most three
pod sets per Workload (a JobSet's keygen, worker and launcher), so no job of theirs is over the
smallest limit; the check holds every object that carries a queue label to it all the same,
so that a target, or a runtime of the render, with more replicated jobs is refused at the
blueprint line that queues it.
"""

from __future__ import annotations

from mpigen.errors import Diagnostic, Mark, error

MAX_POD_SETS = {"v0.17": 8, "v0.18": 10, "v0.19": 18, "v0.20": 18}


def pod_set_errors(counted: list[tuple[dict, int]], kueue_version: str, queue: Mark) -> list[Diagnostic]:
    """An error at `queue` (the blueprint's spec.scheduling.queue) for each queued object whose
    Workload would have more pod sets than the Kueue version takes; `counted` gives each queued
    object with its pod sets (mpigen.render.targets.kueue_pod_sets)."""
    limit = MAX_POD_SETS[kueue_version]
    return [error(queue, f"spec.scheduling.queue: Kueue would make the {obj['kind']} {obj['metadata']['name']} one "
                         f"Workload of {count} pod sets, and Kueue {kueue_version} takes at most {limit} (the "
                         "Workload API's spec.podSets, MaxPodSets): the API server refuses the Workload and the job "
                         "stays suspended for ever; run it without a queue, or on a cluster whose Kueue takes "
                         f"{count} (versions.kueue: v0.19 takes {MAX_POD_SETS['v0.19']})")
            for obj, count in counted if count > limit]
