"""The pretend cluster running a rendered MPIJob (kubeflow.org/v2beta1) as the MPI Operator's
controller, the Job controller and the kubelet would: the port of the controller
(mpi_operator.py, kubeflow/mpi-operator@caa3c47 pkg/controller/mpi_job_controller.go) makes the
Service, the ConfigMap `<job>-config` (among the cluster's objects, so the launcher's volume
reads it), the Secret `<job>-ssh` (in the API server's store, so the pods' ssh-auth volumes
read it), the worker pods and the launcher Job, in syncHandler's order; then

- each worker pod starts (the JobSet cluster's pods: jobset_cluster.py, with the example's
  image: example_pods.py, operator_images.py) and runs its container, the operator's `/usr/sbin/sshd -De` when
  the MPIJob gives none;
- the launcher Job's pod is created at once (launcherCreationPolicy AtStartup) or only once every
  worker is Ready (WaitForWorkersReady: syncHandler counts the workers whose Ready condition is
  True, countReadyWorkerPods; readiness.py probes a readinessProbe, a pod without one is Ready
  once its container runs); a worker that never gets Ready raises NotReady where the operator
  would wait on, and the launcher is never created. discover_hosts.sh lists the workers running
  then (updateDiscoverHostsInConfigMap);
- the test runs the launcher's container (run_launcher_job): its rendered command, unchanged,
  again while it fails and the Job's backoffLimit allows (restartPolicy OnFailure: the kubelet
  restarts the container, after a back-off scaled down tenfold).

DNS is modelled as for a JobSet (jobset_pods.dns_lines): each pod resolves every pod of the job
under `<host>.<job>` and the names the search path gives, from its start; the Service publishes
a worker only once it is Ready (publishNotReadyAddresses false), which the Job's restarts
absorb and WaitForWorkersReady makes moot. The launcher pod is `<job>-launcher-<5 random
characters>`, as the Job names it.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass, field

from tests.support.e2e.example_pods import ExampleJobSetCluster
from tests.support.e2e.image import command_of
from tests.support.e2e.jobset_cluster import NotReady
from tests.support.e2e.jobset_pods import dns_lines, pod_suffix
from tests.support.e2e.mpi_operator import DISCOVER_HOSTS, Made, discover_hosts, expand, spec_of
from tests.support.e2e.network import add_bridge
from tests.support.e2e.pods import SUBNET, Pod, find
from tests.support.e2e.readiness import wait_ready

__all__ = ["MPIJobCluster", "NotReady"]


@dataclass
class MPIJobCluster(ExampleJobSetCluster):
    made: Made | None = None
    created: list[str] = field(default_factory=list)  # what the controller created, in order (kind/name)

    def mpijob(self) -> dict:
        return find(self.objects, "MPIJob")

    def start(self, *, delays: dict[str, float | None] | None = None, ready_timeout: float = 20,
              change: dict | None = None) -> None:
        """`change`: the test's edit of what the controller made before anything starts (e.g. a
        wrong hostfile), as {"hostfile": text}."""
        mpijob = self.mpijob()
        spec, name = spec_of(mpijob), mpijob["metadata"]["name"]
        self.made = made = expand(mpijob)
        if change:
            made.config_map["data"].update(change)
        self.objects = [*self.objects, made.service, made.config_map]
        self.store.put(made.secret)
        self.created += [f"Service/{name}", f"ConfigMap/{name}-config", f"Secret/{name}-ssh"]
        self.jobs = self._pods(made)
        self.bridge = f"{name}-net"
        add_bridge(self.netns, self.bridge)
        self.start_api()
        for pod in self.workers():
            self._create_pod(pod)
            self.created.append(f"Pod/{pod.name}")
            self._run_pod(pod, (delays or {}).get(pod.hostname, 0))
        if spec["launcherCreationPolicy"] == "WaitForWorkersReady":
            deadline = time.monotonic() + ready_timeout
            for pod in self.workers():
                if not self._ready(pod, deadline):
                    raise NotReady(f"worker {pod.name} is not Ready after {ready_timeout} s: the operator does not "
                                   "create the launcher")
        running = [p.name for p in self.workers() if any(c.poll() is None for c in self.running.get(p.name, []))]
        made.config_map["data"][DISCOVER_HOSTS] = discover_hosts(name, self.launcher().namespace, spec, running)
        self._create_pod(self.launcher())
        self.created.append(f"Job/{made.launcher['metadata']['name']}")

    def _ready(self, pod: Pod, deadline: float) -> bool:
        """Ready: its containers started and still running (a pod without a readinessProbe is
        Ready once they run; one whose container stopped is not), and its probe succeeded."""
        count = len(pod.spec["containers"])
        while len(self.running.get(pod.name, [])) < count:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return wait_ready(pod, pod.container, deadline) and all(p.poll() is None for p in self.running[pod.name])

    def _pods(self, made: Made) -> dict[str, list[Pod]]:
        """The worker pods and the launcher Job's pod, each with an address and its DNS."""
        workers = [Pod(w["metadata"]["name"], w["spec"]["hostname"], w["spec"]["subdomain"], "",
                       w["metadata"]["namespace"], w["spec"], self.workdir / w["metadata"]["name"],
                       labels=w["metadata"]["labels"]) for w in made.workers]
        job = made.launcher
        template = job["spec"]["template"]
        name = f"{job['metadata']['name']}-{pod_suffix()}"
        launcher = Pod(name, template["spec"]["hostname"], template["spec"]["subdomain"], "",
                       job["metadata"]["namespace"], template["spec"], self.workdir / name,
                       labels=template["metadata"]["labels"])
        every = [*workers, launcher]
        for index, pod in enumerate(every):
            pod.ip = f"{SUBNET}.{10 + index}"
        for pod in every:
            pod.dns = dns_lines(pod, every)
        return {"worker": workers, "launcher": [launcher]}

    def run_launcher_job(self, timeout: float = 90, attempts: int | None = None,
                         backoff: float = 1) -> list[subprocess.CompletedProcess]:
        """The launcher's container, run as the Job runs it: again after each failure while the
        backoffLimit (or `attempts`) allows, after a back-off that doubles each time (the
        kubelet's restart back-off of 10 s, doubling, scaled by `backoff` / 10 s); every
        attempt's result, the last one last."""
        limit = attempts or self.made.launcher["spec"].get("backoffLimit", 6) + 1  # batch/v1's default: 6
        done = []
        while len(done) < limit and (not done or done[-1].returncode != 0):
            if done:
                time.sleep(backoff * 2 ** (len(done) - 1))
            done.append(self.run_launcher(command_of(self.launcher().container), timeout=timeout))
        return done
