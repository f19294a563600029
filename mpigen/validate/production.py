"""Rules for what production jobs get wrong, which the operator and Kubernetes discover
only at run time or never (shared/reference/user-needs.md, sections 8b and 9): slots,
mpirun's process count, shared memory against the memory limit, host network, a launcher
on GPU nodes. (Accelerators and hugepages are in mpigen.validate.resources, storage in
mpigen.validate.datasets, privileges set behind the blueprint's back in
mpigen.validate.pod_patch, gang scheduling that cannot start in mpigen.validate.gang.)

Each rule reads a document's raw data through mpigen.validate.fields.Fields (and runs only
when the fields it reads are themselves valid), and reports at the line of the field to
change.
"""

from __future__ import annotations

from mpigen.errors import Diagnostic, error, warning
from mpigen.kube.quantity import parse
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
