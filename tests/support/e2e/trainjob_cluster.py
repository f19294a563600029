"""The pretend cluster running a rendered TrainJob as Kubeflow Trainer v2.3.0 would: the TrainJob
and its runtime expanded by the port of the Trainer's controller (tests/support/e2e/trainer) into
the Secret `<trainjob>-mpi-ssh-auth`, the ConfigMap `<trainjob>-mpi-hostfile` and the JobSet,
which the JobSet cluster (jobset_cluster.py) runs. The Secret is in the API server's store and
the ConfigMaps among the cluster's objects before the JobSet starts, as the Trainer applies
them together (its JobSet's pods would wait for their volumes otherwise). The launcher's init
containers run to completion once its pod is created (the launcher's main container is the
test's to run: run_launcher). The workers are the replicated job `node`."""

from __future__ import annotations

from dataclasses import dataclass

from tests.support.e2e.errors import CommandFailed
from tests.support.e2e.jobset_cluster import JobSetCluster
from tests.support.e2e.pods import Pod, find
from tests.support.e2e.trainer.expand import RUNTIME_KINDS, expand, runtime_of

NODE_JOB = "node"


def expand_rendered(objects: list[dict], version: str = "v2.3") -> tuple[dict, list[dict]]:
    """(the TrainJob, the objects a cluster holds once the Trainer has expanded it): the
    rendered objects other than the TrainJob and runtimes, then the Trainer's."""
    trainjob = find(objects, "TrainJob")
    made = expand(trainjob, runtime_of(trainjob, objects), version=version)
    kept = [o for o in objects if o["kind"] not in ("TrainJob", *RUNTIME_KINDS)]
    return trainjob, [*kept, *made]


@dataclass
class TrainJobCluster(JobSetCluster):
    def workers(self) -> list[Pod]:
        return self.jobs[NODE_JOB]

    def start(self, **start) -> None:
        for secret in (o for o in self.objects if o["kind"] == "Secret"):
            self.store.put(secret)
        super().start(**start)
        self._run_init_containers(self.launcher(), start.get("job_timeout", 60))

    def _run_init_containers(self, pod: Pod, timeout: float) -> None:
        self.running[pod.name] = []
        for init in pod.spec.get("initContainers", []):
            process = self.run_container(pod, init)
            if process is None or process.wait(timeout) != 0:
                raise CommandFailed(f"init container {init['name']} of pod {pod.name} failed:\n"
                                    + self.logs(pod, init["name"]))
