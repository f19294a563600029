"""Rules for what production jobs get wrong, which the operator and Kubernetes discover
only at run time or never (shared/reference/user-needs.md, sections 8b and 9): slots,
mpirun's process count, shared memory against the memory limit, host network, a launcher
on GPU nodes, gang scheduling that cannot start. (Accelerators and hugepages are in
mpigen.validate.resources, storage in mpigen.validate.datasets, privileges set behind the
blueprint's back in mpigen.validate.pod_patch.)

Each rule reads a document's raw data through mpigen.validate.fields.Fields (and runs only
when the fields it reads are themselves valid), and reports at the line of the field to
change.
"""

from __future__ import annotations

from mpigen.errors import Diagnostic, error, warning
from mpigen.kube.quantity import MAX as MAX_QUANTITY, parse
from mpigen.validate.fields import Fields, run_as_worker

MPIRUN_NP_FLAGS = ("-np", "--np", "-n", "--n", "-c")


def check_slots(f: Fields, out: list[Diagnostic]) -> None:
    slots, gpus = ("spec", "slotsPerWorker"), ("spec", "gpusPerWorker")
    if not f.ok(slots, gpus, ("spec", "framework")) or f.get(slots) is None:
        return
    count, gpu_count = f.get(slots), f.get(gpus, 0)
    if gpu_count and count != gpu_count and f.get(("spec", "framework"), "custom") != "custom":
        use = "share GPUs" if count > gpu_count else f"leave {gpu_count - count} of them idle"
        out.append(warning(f.doc.value_mark(slots),
                           f"spec.slotsPerWorker: {count} ranks per worker on {gpu_count} GPUs: the ranks {use} "
                           f"(one rank per GPU is what {f.get(('spec', 'framework'))} expects); remove "
                           "slotsPerWorker to get one rank per GPU, or use framework: custom for another layout"))


def check_mpirun_args(f: Fields, out: list[Diagnostic]) -> None:
    loc = ("spec", "mpirunArgs")
    if not f.ok(loc):
        return
    for index, arg in enumerate(f.get(loc, [])):
        if arg in MPIRUN_NP_FLAGS or any(arg.startswith(flag + "=") for flag in ("--np", "--n")):
            out.append(error(f.doc.value_mark(loc + (index,)),
                             f"spec.mpirunArgs[{index}]: {arg!r} sets the number of processes, which mpigen writes "
                             "as -np <rank hosts x slotsPerWorker>; remove it and set workers or slotsPerWorker"))


def check_shared_memory(f: Fields, out: list[Diagnostic]) -> None:
    """/dev/shm is memory: a size at or above the memory limit leaves the program nothing
    (the default is at most half the limit)."""
    shm = ("spec", "sharedMemory")
    if not f.ok(shm, ("spec", "resources")) or f.get(shm) is None or parse(str(f.get(shm))) == 0:
        return
    size = str(f.get(shm))
    roles = ("worker", "launcher") if run_as_worker(f) else ("worker",)
    for role in roles:
        memory = (f.get(("spec", "resources", role), {}) or {}).get("memory")
        if memory is not None and parse(size) >= parse(str(memory)):
            out.append(error(f.doc.value_mark(shm),
                             f"spec.sharedMemory: /dev/shm of {size} counts against the {role} memory limit of "
                             f"{memory}, which leaves nothing for the program; raise spec.resources.{role}.memory "
                             "or lower spec.sharedMemory"))
            return


def check_host_network(f: Fields, out: list[Diagnostic]) -> None:
    host, one = ("spec", "network", "hostNetwork"), ("spec", "placement", "worker", "onePodPerNode")
    if not f.ok(host, one):
        return
    if f.get(host) is True and f.get(one) is False:
        out.append(error(f.doc.value_mark(one),
                         "spec.placement.worker.onePodPerNode: false with hostNetwork: two workers on one node "
                         "share its ports and the second cannot start; remove onePodPerNode"))


def check_launcher_placement(f: Fields, out: list[Diagnostic]) -> None:
    """A launcher on a GPU node holds a node's worth of capacity for a process that needs a
    CPU (user-needs 7.3); warn when its placement is the workers' GPU pool."""
    locs = (("spec", "placement"), ("spec", "gpusPerWorker"), ("spec", "gpuResource"), ("spec", "launcher"))
    if not f.ok(*locs) or not f.get(("spec", "gpusPerWorker"), 0) or run_as_worker(f):
        return
    worker = f.get(("spec", "placement", "worker"), {}) or {}
    launcher = f.get(("spec", "placement", "launcher"), {}) or {}
    gpu_resource = f.get(("spec", "gpuResource"), "nvidia.com/gpu")
    selector = worker.get("nodeSelector") or {}
    same_pool = bool(selector) and launcher.get("nodeSelector") == selector
    gpu_taint = [i for i, t in enumerate(launcher.get("tolerations") or [])
                 if isinstance(t, dict) and (t.get("key") == gpu_resource or (not t.get("key") and t.get("operator") == "Exists"))]
    if same_pool:
        out.append(warning(f.doc.key_mark(("spec", "placement", "launcher", "nodeSelector")),
                           "spec.placement.launcher.nodeSelector is the workers' GPU node pool: the launcher only "
                           "runs mpirun and would take a GPU node's place; select CPU nodes for it, or set "
                           "spec.launcher.runAsWorker: true to make it a rank host"))
    elif gpu_taint:
        out.append(warning(f.doc.value_mark(("spec", "placement", "launcher", "tolerations", gpu_taint[0])),
                           f"spec.placement.launcher.tolerations[{gpu_taint[0]}] lets the launcher onto GPU nodes "
                           f"(it tolerates the {gpu_resource} taint): it only runs mpirun; remove the toleration, or "
                           "set spec.launcher.runAsWorker: true to make it a rank host"))


def check_gang(f: Fields, out: list[Diagnostic]) -> None:
    loc = ("spec", "scheduling", "gang")
    if not f.ok(loc, ("spec", "workers"), ("spec", "launcher")) or not isinstance(f.get(loc), dict):
        return
    gang = f.get(loc)
    scheduler = gang.get("scheduler")
    if gang.get("queue") is not None and scheduler != "volcano":
        out.append(error(f.doc.key_mark(loc + ("queue",)),
                         f"spec.scheduling.gang.queue: {scheduler} PodGroups have no queue (only Volcano's do); "
                         "remove it, or use spec.scheduling.queue for a Kueue queue"))
    if gang.get("scheduleTimeoutSeconds") is not None and scheduler != "scheduler-plugins":
        out.append(error(f.doc.key_mark(loc + ("scheduleTimeoutSeconds",)),
                         f"spec.scheduling.gang.scheduleTimeoutSeconds: only scheduler-plugins PodGroups have it, "
                         f"not {scheduler}'s; remove it"))
    _check_group_resources(f, out, gang)
    members = gang.get("minAvailable")
    pods = f.get(("spec", "workers"), 1) + 1
    if members is not None and members > pods:
        out.append(error(f.doc.value_mark(loc + ("minAvailable",)),
                         f"spec.scheduling.gang.minAvailable: {members} is more than the job's {pods} pods "
                         "(the workers and the launcher), so the group would never start; use at most "
                         f"{pods}"))


def _check_group_resources(f: Fields, out: list[Diagnostic], gang: dict) -> None:
    """A PodGroup's minResources add up the resources of its pods: the sum must still be a
    quantity Kubernetes holds (at most the workers and the launcher count)."""
    resources = ("spec", "resources")
    if gang.get("scheduler") == "kube-batch" or not f.ok(resources):
        return
    workers = f.get(("spec", "workers"), 1)
    worker, launcher = (f.get(resources + (role,), {}) or {} for role in ("worker", "launcher"))
    for name in sorted(set(worker) | set(launcher)):
        total = parse(str(worker.get(name, 0))) * workers + parse(str(launcher.get(name, 0)))
        if total > MAX_QUANTITY:
            role = "worker" if name in worker else "launcher"
            out.append(error(f.doc.value_mark(resources + (role, name)),
                             f"spec.resources.{role}.{name}: the PodGroup's minResources add up {name} over the "
                             f"job's pods ({workers} workers and the launcher), more than the largest quantity "
                             f"Kubernetes holds, 2^63-1; use a smaller value"))
