"""The pretend cluster running a rendered JobSet (jobset.x-k8s.io/v1alpha2), as the JobSet and
Job controllers and the kubelet would (reference targets.md 1.4-1.6):

- the replicatedJobs are created in the JobSet's order, each only once its dependsOn is
  reached: `Complete` when every pod of the named Job exited 0 (a failed pod fails the
  JobSet: JobSetFailed, and nothing after it starts); `Ready` when every pod of the named Job
  passes its readinessProbe (readiness.py; NotReady after `ready_timeout`, where the JobSet
  would wait on);
- a pod (jobset_pods.py: names, labels with the JobSet's uid, DNS) runs its initContainers one
  after the other, each to exit 0, then its containers, each with its image (image.py), its
  volumes (volumes.py: Secrets from the cluster's store, so a pod needing a Secret the keygen job
  has not made cannot start) and securityContext (container.py); their output goes to logs();
- the launcher's pod is created once its own dependsOn is reached (without one, after the jobs
  before it: it would wait for its Secret volume until then); the test runs its container
  (run_launcher, cluster.py).
The kubectl containers reach the API server (api_server.py) at a socket in a folder every pod
can reach, with the token of their projected serviceAccountToken volume.
`before` runs a test's change before a replicatedJob starts (e.g. replacing the Secret);
`delays` starts a pod's containers seconds late (None: never); restart_job() runs a Job's pods
again as a restarted attempt (jobset_pods.next_attempt).
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from tests.support.e2e.cluster import PretendCluster
from tests.support.e2e.container import container_argv
from tests.support.e2e.errors import CommandFailed
from tests.support.e2e.image import command_of, is_kubectl_image, kubectl_image_env, model_image
from tests.support.e2e.jobset_pods import jobset_pods, next_attempt
from tests.support.e2e.network import add_bridge
from tests.support.e2e.pods import Pod, find
from tests.support.e2e.readiness import wait_ready


class JobSetFailed(CommandFailed):
    """A Job the others depend on failed: the JobSet fails and its dependants never start."""


class NotReady(CommandFailed):
    """A Job's pods did not become Ready in time: its dependants would wait on."""


@dataclass
class JobSetCluster(PretendCluster):
    helpers: list[Path] = field(default_factory=list)  # MPI launch helpers of the image (image.py)
    jobs: dict[str, list[Pod]] = field(default_factory=dict)
    running: dict[str, list[subprocess.Popen]] = field(default_factory=dict)  # pod name -> its containers
    timers: list[threading.Timer] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    closed: bool = False

    def launcher(self) -> Pod:
        return self.jobs["launcher"][0]

    def workers(self) -> list[Pod]:
        return self.jobs["worker"]

    def jobset(self) -> dict:
        return find(self.objects, "JobSet")

    # -- start ----------------------------------------------------------------------------------
    def start(self, *, before: dict[str, Callable] | None = None, delays: dict[str, float | None] | None = None,
              ready_timeout: float = 20, job_timeout: float = 60) -> None:
        jobset = self.jobset()
        self.jobs = jobset_pods(jobset, self.workdir)
        self.store.owners.append(jobset)
        self.bridge = f"{jobset['metadata']['name']}-net"
        add_bridge(self.netns, self.bridge)
        self.start_api()
        for rj in jobset["spec"]["replicatedJobs"]:
            for dependency in rj.get("dependsOn", []):
                self._reach(dependency, ready_timeout, job_timeout)
            if before and rj["name"] in before:
                before[rj["name"]](self)
            for pod in self.jobs[rj["name"]]:
                self._create_pod(pod)
                if rj["name"] != "launcher":
                    self._run_pod(pod, (delays or {}).get(pod.hostname, 0))

    def _reach(self, dependency: dict, ready_timeout: float, job_timeout: float) -> None:
        pods = self.jobs[dependency["name"]]
        if dependency["status"] == "Complete":
            for pod in pods:
                failed = self.wait_pod(pod, job_timeout)
                if failed:
                    raise JobSetFailed(f"Job {dependency['name']} failed, so the JobSet fails: {failed}")
            return
        deadline = time.monotonic() + ready_timeout
        for pod in pods:
            if not wait_ready(pod, pod.container, deadline):
                raise NotReady(f"pod {pod.name} of Job {dependency['name']} is not Ready after {ready_timeout} s")

    def _create_pod(self, pod: Pod) -> None:
        model_image(pod, self.helpers)
        self.pods[pod.name] = pod
        self._start_pod(pod, len(self.pods))

    def _run_pod(self, pod: Pod, delay: float | None) -> None:
        """Its init containers in order (each must exit 0), then its containers, in a thread
        when delayed (None: the containers never start)."""
        self.running[pod.name] = []
        if delay is None:
            return
        if delay:
            timer = threading.Timer(delay, self._run_containers, args=(pod,))
            self.timers.append(timer)
            timer.start()
        else:
            self._run_containers(pod)

    def _run_containers(self, pod: Pod) -> None:
        for init in pod.spec.get("initContainers", []):
            process = self.run_container(pod, init)
            if process is None or process.wait() != 0:
                return
        for container in pod.spec["containers"]:
            self.run_container(pod, container)

    def run_container(self, pod: Pod, container: dict, command: list[str] | None = None) -> subprocess.Popen | None:
        with self.lock:
            if self.closed:
                return None
            log = open(self.log_path(pod, container["name"]), "ab")
            process = subprocess.Popen(
                container_argv(pod, command or command_of(container), self.env_of(container), container=container),
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            log.close()
            self.processes.append(process)
            self.running[pod.name].append(process)
            return process

    def argv(self, pod: Pod, command: list[str]) -> list[str]:
        """`command` in the pod's first container, for a test to run."""
        return container_argv(pod, command, self.env_of(pod.container))

    def env_of(self, container: dict) -> dict[str, str]:
        if is_kubectl_image(container.get("image", "")):
            return kubectl_image_env(self.public, self.api.path)
        return self.image_env

    # -- observe --------------------------------------------------------------------------------
    def log_path(self, pod: Pod, container: str) -> Path:
        return pod.root / f"{container}.log"

    def logs(self, pod: Pod, container: str | None = None) -> str:
        path = self.log_path(pod, container or pod.container["name"])
        return path.read_text(errors="replace") if path.exists() else ""

    def wait_log(self, pod: Pod, pattern: re.Pattern, timeout: float = 10) -> bool:
        """Whether the pod's first container logs a line matching `pattern` within `timeout`."""
        deadline = time.monotonic() + timeout
        while not pattern.search(self.logs(pod)):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def sshd_capabilities(self, pod: Pod) -> int:
        """CapEff of the pod's listening sshd."""
        return int(self.sshd_status(pod)["CapEff"], 16)

    def sshd_status(self, pod: Pod) -> dict[str, str]:
        """/proc/PID/status of the pod's listening sshd (the one whose parent is no sshd)."""
        for pid in self.processes_inside():
            try:
                status = dict(line.split(":\t", 1) for line in open(f"/proc/{pid}/status").read().splitlines())
                parent = open(f"/proc/{status['PPid'].strip()}/comm").read().strip()
                if os.stat(f"/proc/{pid}/ns/net").st_ino == pod.netns_inode and status["Name"].strip() == "sshd" \
                        and parent != "sshd":
                    return status
            except (OSError, KeyError, ValueError):
                continue
        raise CommandFailed(f"no sshd runs in pod {pod.name}")

    def wait_pod(self, pod: Pod, timeout: float) -> str | None:
        """None once every container of the pod exited 0, else what failed (with its log)."""
        deadline = time.monotonic() + timeout
        containers = [*pod.spec.get("initContainers", []), *pod.spec["containers"]]
        while len(self.running.get(pod.name, [])) < len(containers) or \
                any(p.poll() is None for p in self.running[pod.name]):
            failed = [p for p in self.running.get(pod.name, []) if p.poll() not in (None, 0)]
            if failed or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        for container, process in zip(containers, self.running.get(pod.name, [])):
            if process.poll() != 0:
                return f"container {container['name']} of pod {pod.name} exited {process.poll()}:\n" + \
                    self.logs(pod, container["name"])
        if len(self.running.get(pod.name, [])) < len(containers):
            return f"pod {pod.name} did not run all its containers within {timeout} s"
        return None

    def restart_job(self, name: str, timeout: float = 60) -> list[Pod]:
        """The Job's pods again, as the JobSet's next attempt recreates them; returns them once
        they finished (wait_pod tells how)."""
        pods = [next_attempt(pod, 100 + len(self.pods)) for pod in self.jobs[name]]
        for pod in pods:
            self._create_pod(pod)
            self._run_pod(pod, 0)
        self.jobs[name] = pods
        return pods

    # -- stop -----------------------------------------------------------------------------------
    def close(self) -> None:
        with self.lock:
            self.closed = True
        for timer in self.timers:
            timer.cancel()
        super().close()
