"""The states a job goes through, per target, as the objects of each minute (tests.support.alert_series
turns them into series): the names are the controllers' (a test fact, not mpigen's patterns):
a StatefulSet's pod is <set>-<ordinal>, a Job's <job>-<5 characters>, an Indexed Job's
<job>-<index>-<5 characters>; JobSet names a child Job <jobset>-<replicated job>-<index>
(v0.12.0 pkg/util/placement/placement.go GenJobName); the Trainer's JobSet is its TrainJob's name.

Each state says what the controllers hold (tests.support.alert_series cites their code): queued
(Kueue's webhook created the job suspended: only the first step's Job exists, suspended, and a
static job's gated worker pods), inadmissible (queued, and the LocalQueue reports inadmissible
workloads), unschedulable (admitted; the first step's pods fit no node), an image pull failure at
a step (the steps before it done, its pods waiting ImagePullBackOff, the later steps not created
by JobSet's dependsOn, or created and waiting on an operator's launcher), running, idle, restarts
(a JobSet recreating its child Jobs, counted or not against maxRestarts; a launcher container
restarting in place under restartPolicy OnFailure, which the Job controller counts; a worker
container restarting, which no budget counts), completed, failed."""

from __future__ import annotations

from dataclasses import dataclass, replace

from tests.support.alert_series import Job, Pod, World

SUFFIX = ("k3y9n", "b4c9d", "q8w2z", "x7k2p")


@dataclass(frozen=True)
class Step:
    name: str
    job: str | None           # its batch Job (None: a StatefulSet's or an operator's pods)
    pods: tuple[str, ...]
    container: str
    init: bool = False        # the image is its init container's (JobSet's keygen step)
    finishes: bool = False    # the step runs to completion before the next (keygen)


@dataclass(frozen=True)
class Run:
    """A job as its controllers run it."""

    target: str
    namespace: str
    jobset: str | None
    steps: tuple[Step, ...]
    queue: str | None
    budget: int
    in_place: bool            # the launcher's pods restart in place (OnFailure)
    gated_workers: bool       # static: the workers' pods exist, gated, while queued
    gpus: int = 0             # nvidia.com/gpu of a worker pod


def run_of(target: str, objects: list[dict], namespace: str, job: str) -> Run:
    mine = [o for o in objects if o["metadata"].get("namespace") == namespace
            and o["metadata"].get("labels", {}).get("mpigen.dev/job") == job]
    top = next(o for o in mine if o["kind"] == {"static": "Job", "jobset": "JobSet", "trainjob": "TrainJob",
                                                 "mpijob": "MPIJob"}[target])
    name, queue = top["metadata"]["name"], top["metadata"]["labels"].get("kueue.x-k8s.io/queue-name")
    return replace(_run_of(target, mine, top, name, queue, namespace), gpus=_gpus(mine))


def _gpus(objects) -> int:
    """The nvidia.com/gpu limit of a container of the objects (the workers')."""
    if isinstance(objects, dict):
        found = [int(objects.get("limits", {}).get("nvidia.com/gpu", 0))] if "limits" in objects else []
        return max([*found, 0, *(_gpus(value) for value in objects.values())])
    return max([_gpus(item) for item in objects] + [0]) if isinstance(objects, list) else 0


def _run_of(target: str, mine: list[dict], top: dict, name: str, queue: str | None, namespace: str) -> Run:
    if target == "static":
        workers = next(o["metadata"]["name"] for o in mine if o["kind"] == "StatefulSet")
        steps = (Step("worker", None, (f"{workers}-0", f"{workers}-1"), "worker"),
                 Step("launcher", name, (f"{name}-{SUFFIX[3]}",), "mpi-launcher"))
        in_place = top["spec"]["template"]["spec"]["restartPolicy"] == "OnFailure"
        return Run(target, namespace, None, steps, queue, top["spec"]["backoffLimit"], in_place, True)
    if target == "mpijob":
        steps = (Step("worker", None, (f"{name}-worker-0", f"{name}-worker-1"), "worker"),
                 Step("launcher", f"{name}-launcher", (f"{name}-launcher-{SUFFIX[3]}",), "launcher"))
        launcher = top["spec"]["mpiReplicaSpecs"]["Launcher"]
        return Run(target, namespace, None, steps, queue, top["spec"]["runPolicy"]["backoffLimit"],
                   launcher.get("restartPolicy") == "OnFailure", False)
    spec = top["spec"] if target == "jobset" else next(
        o for o in mine if o["kind"] == "TrainingRuntime")["spec"]["template"]["spec"]
    steps = []
    for rj in spec["replicatedJobs"]:
        count = rj["template"]["spec"].get("parallelism", 1)
        if target == "trainjob" and rj["name"] == "node":  # the Trainer sizes the node job by the TrainJob's numNodes
            count = top["spec"]["trainer"]["numNodes"]
        pods = tuple(f"{name}-{rj['name']}-0-{p}-{SUFFIX[(p + 1) % 4 if rj['name'] != 'launcher' else 3]}"
                     for p in range(count))
        keygen = rj["name"] == "keygen"
        steps.append(Step(rj["name"], f"{name}-{rj['name']}-0", pods, "keygen" if keygen else rj["name"],
                          init=keygen, finishes=keygen))
    return Run(target, namespace, name, tuple(steps), queue, spec["failurePolicy"]["maxRestarts"], False, False)


def queued(run: Run, inadmissible: bool = False) -> World:
    """Suspended by Kueue: a JobSet's first step's Job alone (suspended), an operator's or the
    static target's launcher Job suspended; the static target's worker pods gated."""
    world = World(inadmissible=int(inadmissible))
    if run.jobset is not None:
        world.jobs.append(Job(run.steps[0].job, 0, suspended=True))
        return world
    launcher = run.steps[-1]
    world.jobs.append(Job(launcher.job, 0, suspended=True))
    if run.gated_workers:
        world.pods += [Pod(pod, "Pending", scheduled=False, gpus=_requests(run, run.steps[0]))
                       for pod in run.steps[0].pods]
    return world


def admitted(run: Run, upto: int, blocked: str | None = None, created: int = 0, restarts: int = 0,
             gpu: float = 90.0) -> World:
    """Admitted (resumed); the steps before `upto` done or running, step `upto` blocked as
    `blocked` says (None: running; `unschedulable`; a waiting reason), the later steps as their
    controller has them (JobSet: not created; the operators': created, their pods pending)."""
    world = World(inadmissible=0)
    for i, step in enumerate(run.steps):
        if i > upto and run.jobset is not None:
            break
        if step.job is not None:
            world.jobs.append(Job(step.job, created, suspended=False, complete=step.finishes and i < upto))
        for pod in step.pods:
            world.pods.append(_pod(run, step, pod, i, upto, blocked, created, restarts, gpu))
    return world


def _pod(run: Run, step: Step, pod: str, i: int, upto: int, blocked: str | None, created: int, restarts: int,
         gpu: float) -> Pod:
    if i < upto or (i == upto and blocked is None):
        phase = "Succeeded" if step.finishes else "Running"
        counted = {step.container: restarts} if step is run.steps[-1] and run.in_place else {}
        util = gpu if step.name in ("worker", "node") else None
        return Pod(pod, phase, created=created, restarts=counted or {step.container: 0}, gpu_util=util,
                   gpus=_requests(run, step))
    if i == upto and blocked == "unschedulable":
        return Pod(pod, "Pending", scheduled=False, created=created, gpus=_requests(run, step))
    if i == upto:
        waiting = {step.container: blocked}
        return Pod(pod, "Pending", created=created, waiting={} if step.init else waiting, gpus=_requests(run, step),
                   init_waiting=waiting if step.init else {})
    # a later step's pod an operator made: waits on its workers
    return Pod(pod, "Pending", created=created, gpus=_requests(run, step))


def _requests(run: Run, step: Step) -> dict[str, int]:
    """The GPUs a pod of the step requests: the workers' (a pod's requests are its limits)."""
    return {step.container: run.gpus} if run.gpus and step.name in ("worker", "node") else {}


def running(run: Run, **kw) -> World:
    return admitted(run, len(run.steps) - 1, None, **kw)


def restarted(run: Run, at: int, counted: int, now: int, worker_restart: bool = False) -> World:
    """Running after a restart at minute `at`: a JobSet recreated its child Jobs then (absent
    the minute of the deletion), `counted` of its restarts counting towards maxRestarts; a
    launcher restarting in place (`counted` restarts); or a worker container restarting once."""
    if run.jobset is not None:  # status.restarts counts every restart, restartsCountTowardsMax the counted ones
        before, after = max(counted - 1, 0), counted
        if now == at:
            return World(inadmissible=0, set_restarts=before, set_all_restarts=before)
        world = running(run, created=at if now > at else 0)
        world.set_restarts = after if now > at else before
        world.set_all_restarts = max(after, 1) if now > at else before
        return world
    world = running(run, restarts=counted if now >= at and not worker_restart else 0)
    if worker_restart and now >= at:
        world.pods = [replace(p, restarts={"worker": 1}) if p.name in run.steps[0].pods else p for p in world.pods]
    return world


def completed(run: Run) -> World:
    """The launcher succeeded: its Job Complete, its pod Succeeded; the workers let go (a JobSet's
    completion counted by its controller)."""
    world = World(inadmissible=0, jobset_completed=int(run.jobset is not None))
    launcher = run.steps[-1]
    world.jobs.append(Job(launcher.job, 0, suspended=False, complete=True) if launcher.job else None)
    world.jobs = [j for j in world.jobs if j is not None]
    world.pods.append(Pod(launcher.pods[0], "Succeeded"))
    return world


def failed(run: Run) -> World:
    """The job failed: a JobSet counted failed by its controller; a launcher Job failed with
    BackoffLimitExceeded (its pod Failed)."""
    world = World(inadmissible=0, jobset_failed=int(run.jobset is not None), set_restarts=run.budget,
                  set_all_restarts=run.budget)
    launcher = run.steps[-1]
    if launcher.job is not None:
        world.jobs.append(Job(launcher.job, 0, suspended=False, failed=run.budget + 1,
                              failed_reason="BackoffLimitExceeded"))
    world.pods.append(Pod(launcher.pods[0], "Failed"))
    return world


def completed_workers_kept(run: Run) -> World:
    """The launcher succeeded and the worker pods still run (a static job's StatefulSet, an
    operator's workers under cleanPodPolicy None): completed, with the workers' pods Running."""
    world = completed(run)
    workers = next(step for step in run.steps if step.name in ("worker", "node"))
    world.pods += [Pod(pod, "Running", gpu_util=0, gpus=_requests(run, workers)) for pod in workers.pods]
    return world
