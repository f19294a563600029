"""`mpigen import`, a TrainJob (trainer.kubeflow.org/v1alpha1) and its runtime seen as the
v2beta1 MPIJob they amount to: the launcher is the runtime's launcher job with the TrainJob's
trainer fields (image, command, env, the launcher's resources), the workers are the node job
(numNodes of them, less the launcher when it is a node), and the run policy is the
TrainJob's and the JobSet template's. Each value keeps where it is written (file, line and
the field's path there), so that the MPIJob decompiler reads it with its own rules and reports
at the TrainJob's or the runtime's line. What mpigen's trainjob target adds to the pods of a
runtime it wrote (the ssh-setup init container, the SSH folder, the workers' sshd command,
port and probe, the launcher's mpirun variables) is left out of the view, since rendering
the blueprint writes it again.

Only a runtime mpigen wrote (label app.kubernetes.io/managed-by: mpigen) is read for its pods:
another runtime is the cluster's, which the blueprint names (spec.runtime) and does not copy;
of it only the sizes are read (mlPolicy numNodes, numProcPerNode, runLauncherAsNode). On either,
the TrainJob's runtimePatches give the pods their fields (mpigen.render.trainjob.patches_view).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mpigen.compile.blueprint import SHM_VOLUME
from mpigen.compile.environment import RANK_ENV_VOLUME, RENDEZVOUS_ENV
from mpigen.compile.launcher_env import NVIDIA_ENV, OPENMPI5_AGENT, SSH_ENV
from mpigen.compile.mpijob import HYDRA, V2BETA1
from mpigen.decompile.own_objects import repels, strip_rank_hosts
from mpigen.decompile.view import View, keep, named, without
from mpigen.kube.accelerators import is_accelerator
from mpigen.kube.data import copy_data
from mpigen.kube.labels import MANAGED_BY
from mpigen.load.document import Document, Loc, value_at
from mpigen.render.parts.failure_policy import read_policy
from mpigen.render.parts.replicated import SSH_PORT_NAME
from mpigen.render.trainjob import hydra
from mpigen.render.trainjob.names import (IMPLEMENTATION_ANNOTATION, LAUNCHER_JOB, NODE_CONTAINER, NODE_JOB,
                                          RUNTIME_KINDS, SSHD_SCRIPT, SSH_SETUP_CONTAINER, SSH_VOLUME,
                                          TRAINER_API)
from mpigen.render.trainjob.patches_view import read_patches

DEFAULT_RUNTIME_KIND = "ClusterTrainingRuntime"  # runtimeRef.kind's default (the TrainJob CRD)
JOB_TEMPLATE = ("template", "spec", "template")  # a replicated job's pod template, from the job
OPENMPI4_AGENT = "OMPI_MCA_plm_rsh_agent"
# What the trainjob target appends to the launcher's env under any Trainer version
# (render/trainjob/pods.launcher_env: the PRRTE agent from v2.4).
ADDED_LAUNCHER_ENV = {OPENMPI4_AGENT, OPENMPI5_AGENT, *NVIDIA_ENV,
                      *(name for names in SSH_ENV.values() for name, _ in names)}
NAMED_HOSTFILE = {"name": "PRTE_MCA_prte_default_hostfile", "value": "/etc/mpi/hostfile"}
IMPLEMENTATIONS = {"OpenMPI": "OpenMPI", "IntelMPI": "Intel", "MPICH": "MPICH"}  # blueprint -> v2beta1's


@dataclass
class TrainJobView(View):
    """The MPIJob a TrainJob amounts to, and what the blueprint takes from the TrainJob beside
    it (its runtime, Kueue, runAsWorker)."""

    runAsWorker: bool = False  # what the TrainJob says beside the MPIJob: the launcher is a node
    ssh_port: int | None = None  # the workers' sshd port, in a runtime mpigen wrote
    guessed: str | None = None  # the MPI implementation, where the TrainJob does not tell MPICH from Intel MPI
    refused: list = field(default_factory=list)  # (path in the TrainJob, why) of what the Trainer refuses


def is_runtime(data) -> bool:
    return isinstance(data, dict) and data.get("apiVersion") == TRAINER_API and data.get("kind") in RUNTIME_KINDS


def is_trainjob(data) -> bool:
    return isinstance(data, dict) and data.get("kind") == "TrainJob"


def written_by_mpigen(runtime: Document | None) -> bool:
    meta = runtime.data.get("metadata") if runtime is not None else None
    labels = meta.get("labels") if isinstance(meta, dict) else None
    return isinstance(labels, dict) and labels.get(MANAGED_BY) == "mpigen"


def replicated_job(runtime: Document, name: str) -> int | None:
    jobs = runtime.get(("spec", "template", "spec", "replicatedJobs"))
    if not isinstance(jobs, list):
        return None
    return next((i for i, job in enumerate(jobs) if isinstance(job, dict) and job.get("name") == name), None)


def mlpolicy(runtime: Document | None, *keys, default=None):
    return runtime.get(("spec", "mlPolicy", *keys), default) if runtime is not None else default


def build_view(trainjob: Document, runtime: Document | None) -> TrainJobView:
    """The MPIJob view of a TrainJob and (when given) its runtime."""
    view = TrainJobView({"apiVersion": V2BETA1, "kind": "MPIJob"})
    view.put(("metadata",), copy_data(trainjob.get(("metadata",), {})), trainjob, ("metadata",))
    ours = written_by_mpigen(runtime)
    view.runAsWorker = mlpolicy(runtime, "mpi", "runLauncherAsNode") is True
    if view.runAsWorker:
        view.put(("spec", "runLauncherAsWorker"), True, runtime, ("spec", "mlPolicy", "mpi", "runLauncherAsNode"))
    for role, job in (("Launcher", LAUNCHER_JOB), ("Worker", NODE_JOB)):
        index = replicated_job(runtime, job) if ours else None
        base = ("spec", "mpiReplicaSpecs", role)
        if index is None:
            name = "mpi-launcher" if role == "Launcher" else "mpi-worker"
            view.put(base + ("template",), {"spec": {"containers": [{"name": name}]}}, trainjob, ("spec", "trainer"))
        else:
            loc = ("spec", "template", "spec", "replicatedJobs", index) + JOB_TEMPLATE
            _pod(view, base + ("template",), runtime, loc, role)
    view.refused = read_patches(view, trainjob, ours)
    if view.runAsWorker or not ours:
        _launcher_as_rank_host(view, node=view.runAsWorker)
    _trainer(view, trainjob, runtime, ours)
    _policies(view, trainjob, runtime)
    return view


def main_container(view: View, role: str) -> dict | None:
    """The MPI container of a role in the view (None when its template has none)."""
    container = value_at(view.data, ("spec", "mpiReplicaSpecs", role, "template", "spec", "containers", 0))
    return container if isinstance(container, dict) else None


def _launcher_as_rank_host(view: View, node: bool) -> None:
    """What a launcher gets from the workers, which rendering gives it again: their
    /dev/shm and rank environment script (on a runtime of the cluster's, whose patches
    give the launcher the ranks' volumes, or when it is a node), and as a node their
    accelerators and onePodPerNode (any other placement of the launcher is its own)."""
    pod = value_at(view.data, ("spec", "mpiReplicaSpecs", "Launcher", "template", "spec"))
    worker = value_at(view.data, ("spec", "mpiReplicaSpecs", "Worker", "template", "spec"))
    container = main_container(view, "Launcher")
    if not isinstance(pod, dict) or not isinstance(worker, dict) or container is None:
        return
    limits = value_at(container, ("resources", "limits"))
    if node and isinstance(limits, dict):
        for name in [n for n in limits if is_accelerator(n)]:
            del limits[name]
    if node and repels(worker.get("affinity")):
        strip_rank_hosts(pod)  # the workers' onePodPerNode, which the launcher gets as a node
    volumes = [pod.get("volumes"), worker.get("volumes")]
    if not all(isinstance(v, list) for v in volumes):
        return
    names = {v["name"] for v in volumes[1] if named(v, (SHM_VOLUME, RANK_ENV_VOLUME)) and v in volumes[0]}
    base = ("spec", "mpiReplicaSpecs", "Launcher", "template", "spec")
    for holder, loc, key in ((pod, base, "volumes"), (container, base + ("containers", 0), "volumeMounts")):
        found = view.where(loc + (key,))
        if names and found is not None:
            doc, origin = found
            without(view, holder, key, loc, doc, origin[:-1], lambda item: named(item, names))


def _pod(view: View, loc: Loc, runtime: Document, origin: Loc, role: str) -> None:
    """A runtime's pod template, less what the trainjob target adds, its container `node`
    first under the MPI container's name."""
    template = copy_data(runtime.get(origin))
    template = template if isinstance(template, dict) else {}
    view.put(loc, template, runtime, origin)
    pod = template.get("spec") if isinstance(template.get("spec"), dict) else {}
    containers = pod.get("containers") if isinstance(pod.get("containers"), list) else []
    main = next((i for i, c in enumerate(containers) if named(c, (NODE_CONTAINER,))), 0)
    order = [main] + [i for i in range(len(containers)) if i != main] if containers else []
    keep(view, loc + ("spec", "containers"), containers, order, runtime, origin + ("spec", "containers"))
    ploc, porigin = loc + ("spec",), origin + ("spec",)
    without(view, pod, "initContainers", ploc, runtime, porigin, lambda c: named(c, (SSH_SETUP_CONTAINER,)))
    without(view, pod, "volumes", ploc, runtime, porigin, lambda v: named(v, (SSH_VOLUME,)))
    if isinstance(runtime.get(("spec", "podGroupPolicy")), dict):
        pod.pop("schedulerName", None)  # the gang's (spec.scheduling.gang), which rendering writes again
    if not pod.get("containers"):
        return
    container, cloc = pod["containers"][0], loc + ("spec", "containers", 0)
    corigin = origin + ("spec", "containers", main)
    if isinstance(container, dict):
        container["name"] = "mpi-launcher" if role == "Launcher" else "mpi-worker"
        without(view, container, "volumeMounts", cloc, runtime, corigin, lambda m: named(m, (SSH_VOLUME,)))
        if role == "Worker":
            _worker_sshd(view, container)
        else:
            without(view, container, "env", cloc, runtime, corigin, lambda e: named(e, ADDED_LAUNCHER_ENV))


def _worker_sshd(view: View, container: dict) -> None:
    """The node container's sshd (command, port, probe), which rendering writes again."""
    if container.get("command") == ["/bin/sh", SSHD_SCRIPT] and not container.get("args"):
        del container["command"]
    ports = container.get("ports")
    if isinstance(ports, list):
        ssh = [p for p in ports if isinstance(p, dict) and p.get("name") == SSH_PORT_NAME]
        if ssh and isinstance(ssh[0].get("containerPort"), int):
            view.ssh_port = ssh[0]["containerPort"]
            ports.remove(ssh[0])
            if not ports:
                del container["ports"]
    probe = container.get("readinessProbe")
    if view.ssh_port is not None and value_at(probe, ("tcpSocket", "port")) == view.ssh_port:
        del container["readinessProbe"]


def _trainer(view: View, trainjob: Document, runtime: Document | None, ours: bool) -> None:
    """The trainer fields: the launcher's image, command and env; the sizes."""
    trainer = ("spec", "trainer")
    launcher = ("spec", "mpiReplicaSpecs", "Launcher", "template", "spec", "containers", 0)
    worker = ("spec", "mpiReplicaSpecs", "Worker", "template", "spec", "containers", 0)
    implementation = _implementation(runtime) if ours else _hydra_line(view, trainjob)
    if implementation != "OpenMPI":
        where = (runtime, ("metadata", "annotations", IMPLEMENTATION_ANNOTATION)) if ours else \
            (trainjob, trainer + ("command",))
        view.put(("spec", "mpiImplementation"), IMPLEMENTATIONS[implementation], *where)
        view.put(("spec", "launcherCreationPolicy"), "WaitForWorkersReady", *where)
    if trainjob.get(trainer + ("image",)) is not None:
        for loc in (launcher, worker):
            view.put(loc + ("image",), trainjob.get(trainer + ("image",)), trainjob, trainer + ("image",))
    command = trainjob.get(trainer + ("command",))
    if isinstance(command, list):
        command = hydra.unwrapped(command)
        if implementation != "OpenMPI" and command[1:2] == ["-localhost"]:
            del command[1:3]  # the launcher's DNS name, which rendering writes for Hydra
        view.put(launcher + ("command",), command, trainjob, trainer + ("command",))
    if trainjob.get(trainer + ("args",)) is not None:
        view.put(launcher + ("args",), trainjob.get(trainer + ("args",)), trainjob, trainer + ("args",))
    _env(view, trainjob, launcher, ours)
    _sizes(view, trainjob, runtime, worker)


def _hydra_line(view: View, trainjob: Document) -> str:
    """The MPI implementation of a TrainJob on a runtime of the cluster's, which says none:
    a launch line with the `-localhost <launcher's DNS name>` mpigen writes for Hydra is
    Intel MPI's when an I_MPI_ variable is set, else MPICH's (a guess the import reports);
    any other is Open MPI's."""
    name = trainjob.get(("metadata", "name"))
    command = trainjob.get(("spec", "trainer", "command"))
    if not isinstance(command, list) or hydra.unwrapped(command)[1:3] != ["-localhost", f"{name}-launcher-0-0.{name}"]:
        return "OpenMPI"
    env = trainjob.get(("spec", "trainer", "env"))
    env = env if isinstance(env, list) else []
    if hydra.implementation_of(env) is not None:  # the hostfile variable mpigen writes names it
        return hydra.implementation_of(env)
    names = [e.get("name") for e in env if isinstance(e, dict)]
    view.guessed = "IntelMPI" if any(isinstance(n, str) and n.startswith("I_MPI_") for n in names) else "MPICH"
    return view.guessed


def _implementation(runtime: Document) -> str:
    value = runtime.get(("metadata", "annotations", IMPLEMENTATION_ANNOTATION), "OpenMPI")
    return value if value in IMPLEMENTATIONS else "OpenMPI"


def _env(view: View, trainjob: Document, launcher: Loc, ours: bool) -> None:
    """The trainer's env on the launcher: as the Trainer merges it, an entry of the runtime's
    launcher with the same name is replaced, the others are added after."""
    entries = trainjob.get(("spec", "trainer", "env"))
    if not isinstance(entries, list):
        return
    container = main_container(view, "Launcher")
    if container is None:
        return
    env = container.setdefault("env", [])
    if not isinstance(env, list):
        return
    for index, entry in enumerate(entries):
        if not ours and (entry == NAMED_HOSTFILE or entry in map(hydra.hostfile_env, HYDRA)):
            continue  # what mpigen adds for Open MPI 5 and Hydra on a runtime it did not write
        name = entry.get("name") if isinstance(entry, dict) else None
        at = next((i for i, e in enumerate(env) if isinstance(e, dict) and name and e.get("name") == name), len(env))
        view.put(launcher + ("env", at), copy_data(entry), trainjob, ("spec", "trainer", "env", index))
        if not ours and name not in RENDEZVOUS_ENV:  # the blueprint's env, on the workers too
            worker = main_container(view, "Worker")
            view.put(("spec", "mpiReplicaSpecs", "Worker", "template", "spec", "containers", 0, "env",
                      len(worker.setdefault("env", []))), copy_data(entry), trainjob, ("spec", "trainer", "env", index))
    if not env:
        del container["env"]


def _sizes(view: View, trainjob: Document, runtime: Document | None, worker: Loc) -> None:
    """Workers from numNodes (less the launcher, a node with runLauncherAsNode), slots from
    numProcPerNode (the TrainJob's, else the runtime's; 1 with GPUs is the GPU count),
    the workers' resources from resourcesPerNode (where the runtime's node container has none)."""
    trainer = ("spec", "trainer")
    resources = trainjob.get(trainer + ("resourcesPerNode",))
    container = main_container(view, "Worker") or {}
    if isinstance(resources, dict) and ("resources" not in container or view.runAsWorker):
        view.put(worker + ("resources",), copy_data(resources), trainjob, trainer + ("resourcesPerNode",))
    nodes, where = trainjob.get(trainer + ("numNodes",)), (trainjob, trainer + ("numNodes",))
    if nodes is None and mlpolicy(runtime, "numNodes") is not None:
        nodes, where = mlpolicy(runtime, "numNodes"), (runtime, ("spec", "mlPolicy", "numNodes"))
    if isinstance(nodes, int) and not isinstance(nodes, bool):
        view.put(("spec", "mpiReplicaSpecs", "Worker", "replicas"), nodes - int(view.runAsWorker), *where)
    slots, where = trainjob.get(trainer + ("numProcPerNode",)), (trainjob, trainer + ("numProcPerNode",))
    if slots is None:
        slots = mlpolicy(runtime, "mpi", "numProcPerNode", default=1)
        where = (runtime, ("spec", "mlPolicy", "mpi", "numProcPerNode")) if runtime is not None else where
        limits = value_at(container, ("resources", "limits"))
        gpus = [v for k, v in limits.items() if is_accelerator(k)] if isinstance(limits, dict) else []
        if slots == 1 and gpus and str(gpus[0]).isdigit() and int(gpus[0]) > 1:
            slots = int(gpus[0])
    view.put(("spec", "slotsPerWorker"), slots, *where)


def _policies(view: View, trainjob: Document, runtime: Document | None) -> None:
    """The run policy: the TrainJob's deadline and suspend, the runtime's restarts and TTL."""
    policy = ("spec", "runPolicy")
    for key in ("activeDeadlineSeconds", "suspend"):
        if trainjob.get(("spec", key)) is not None:
            view.put(policy + (key,), trainjob.get(("spec", key)), trainjob, ("spec", key))
    if not written_by_mpigen(runtime):
        return
    jobset = ("spec", "template", "spec")
    restarts = runtime.get(jobset + ("failurePolicy", "maxRestarts"))
    if restarts is not None:
        view.put(policy + ("backoffLimit",), restarts, runtime, jobset + ("failurePolicy", "maxRestarts"))
    failures = read_policy(runtime.get(jobset) or {}, LAUNCHER_JOB)
    if failures is not None:
        view.put(policy + ("failurePolicy",), failures, runtime, jobset + ("failurePolicy",))
    ttl = runtime.get(jobset + ("ttlSecondsAfterFinished",))
    if ttl is not None:
        view.put(policy + ("ttlSecondsAfterFinished",), ttl, runtime, jobset + ("ttlSecondsAfterFinished",))
