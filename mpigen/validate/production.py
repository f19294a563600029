"""Checks for what production jobs get wrong, which the operator and Kubernetes discover
only at run time or never (shared/reference/user-needs.md, sections 8b and 9): GPU types,
slots, shared memory against the memory limit, host network, storage that is not shared,
gang scheduling that cannot start, privileges set behind the blueprint's back.

Each check reads a document's raw data through validate._Fields (and runs only when the
fields it reads are themselves valid), and reports at the line of the field to change.
"""

from __future__ import annotations

from mpigen.kube.accelerators import is_accelerator
from mpigen.errors import Diagnostic, error, warning
from mpigen.kube.quantity import MAX as MAX_QUANTITY, parse

MPIRUN_NP_FLAGS = ("-np", "--np", "-n", "--n", "-c")
# Fields of podTemplatePatch that a blueprint field also writes: setting both would let the
# patch silently win over the field.
# Blueprint fields that only reach rank pods (the launcher only with launcher.runAsWorker),
# and those that only reach the launcher.
RANK_ONLY = {("placement", "worker", "onePodPerNode"), ("network", "hostNetwork"), ("security", "capabilities"),
             ("security", "privileged"), ("network", "rdma")}
LAUNCHER_ONLY = {("datasets", "*", "download")}
POD_PATCH_FIELDS = {
    "affinity": (("placement", "{role}", "affinity"), ("placement", "worker", "onePodPerNode"),
                 ("network", "hostNetwork")),
    "priorityClassName": (("placement", "{role}", "priorityClassName"),),
    "hostNetwork": (("network", "hostNetwork"),),
    "dnsPolicy": (("network", "hostNetwork"),),
    "securityContext": (("security", "runAsUser"), ("security", "runAsGroup"), ("security", "fsGroup"),
                        ("security", "runAsNonRoot")),
    "imagePullSecrets": (("imagePullSecrets",),),
    "serviceAccountName": (("serviceAccount", "name"), ("serviceAccount", "annotations")),
    "schedulerName": (("scheduling", "gang"),),
    "initContainers": (("datasets", "*", "download"),),  # a patch replaces the list: the downloads would go
}
CONTAINER_PATCH_FIELDS = {
    "securityContext": (("security", "capabilities"), ("security", "privileged"), ("network", "rdma")),
}


def production_checks(f, out: list[Diagnostic]) -> None:
    _check_accelerators(f, out)
    _check_slots(f, out)
    _check_mpirun_args(f, out)
    _check_shared_memory(f, out)
    _check_hugepages(f, out)
    _check_host_network(f, out)
    _check_launcher_placement(f, out)
    _check_storage(f, out)
    _check_gang(f, out)
    _check_patch_overlap(f, out)


def _spec(f) -> dict:
    spec = f.doc.data.get("spec") if isinstance(f.doc.data, dict) else None
    return spec if isinstance(spec, dict) else {}


def _run_as_worker(f) -> bool:
    return bool(f.get(("spec", "launcher", "runAsWorker"), False)) if f.ok(("spec", "launcher")) else False


def _check_accelerators(f, out) -> None:
    gpu = ("spec", "gpuResource")
    if not f.ok(gpu):
        return
    gpu_resource = f.get(gpu, "nvidia.com/gpu")
    for role in ("worker", "launcher"):
        loc = ("spec", "resources", role)
        if not f.ok(loc):
            continue
        for name in f.get(loc, {}):
            if name == gpu_resource or not is_accelerator(name):
                continue  # the GPU resource itself is reported by validate._check_resources
            if role == "worker":
                message = (f"spec.resources.worker: {name!r} is an accelerator, and a container can use one "
                           f"accelerator type (the device plugins give no mix, MIG slices included); request it "
                           f"with gpuResource: {name} and gpusPerWorker instead")
            else:
                message = (f"spec.resources.launcher: {name!r} is an accelerator; the launcher only runs mpirun, "
                           "so it gets none; set spec.launcher.runAsWorker: true to run ranks on it")
            out.append(error(f.doc.key_mark(loc + (name,)), message))
    rdma = ("spec", "network", "rdma", "resource")
    if f.ok(rdma) and f.get(rdma) is not None:
        name = f.get(rdma)
        if is_accelerator(name) or name == gpu_resource:
            out.append(error(f.doc.value_mark(rdma), f"spec.network.rdma.resource: {name!r} is an accelerator, "
                                                     "not an RDMA device; request it with gpuResource"))
        elif "/" not in name:
            out.append(error(f.doc.value_mark(rdma), f"spec.network.rdma.resource: {name!r} is not an extended "
                                                     "resource; RDMA devices have a domain-prefixed name such as "
                                                     "rdma/hca or vpc.amazonaws.com/efa"))
        elif f.ok(("spec", "resources", "worker")) and name in f.get(("spec", "resources", "worker"), {}):
            out.append(error(f.doc.key_mark(("spec", "resources", "worker", name)),
                             f"spec.resources.worker: {name!r} is also set by spec.network.rdma; set it in one "
                             "place (spec.network.rdma)"))


def _check_slots(f, out) -> None:
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


def _check_mpirun_args(f, out) -> None:
    loc = ("spec", "mpirunArgs")
    if not f.ok(loc):
        return
    for index, arg in enumerate(f.get(loc, [])):
        if arg in MPIRUN_NP_FLAGS or any(arg.startswith(flag + "=") for flag in ("--np", "--n")):
            out.append(error(f.doc.value_mark(loc + (index,)),
                             f"spec.mpirunArgs[{index}]: {arg!r} sets the number of processes, which mpigen writes "
                             "as -np <rank hosts x slotsPerWorker>; remove it and set workers or slotsPerWorker"))


def _check_shared_memory(f, out) -> None:
    """/dev/shm is memory: a size at or above the memory limit leaves the program nothing
    (the default is at most half the limit)."""
    shm = ("spec", "sharedMemory")
    if not f.ok(shm, ("spec", "resources")) or f.get(shm) is None or parse(str(f.get(shm))) == 0:
        return
    size = str(f.get(shm))
    roles = ("worker", "launcher") if _run_as_worker(f) else ("worker",)
    for role in roles:
        memory = (f.get(("spec", "resources", role), {}) or {}).get("memory")
        if memory is not None and parse(size) >= parse(str(memory)):
            out.append(error(f.doc.value_mark(shm),
                             f"spec.sharedMemory: /dev/shm of {size} counts against the {role} memory limit of "
                             f"{memory}, which leaves nothing for the program; raise spec.resources.{role}.memory "
                             "or lower spec.sharedMemory"))
            return


def _check_hugepages(f, out) -> None:
    for role in ("worker", "launcher"):
        loc = ("spec", "resources", role)
        if not f.ok(loc):
            continue
        resources = f.get(loc, {})
        for name in resources:
            if name.startswith("hugepages-") and "cpu" not in resources and "memory" not in resources:
                out.append(error(f.doc.key_mark(loc + (name,)),
                                 f"spec.resources.{role}: {name} needs a cpu or memory limit as well (the API server "
                                 "refuses hugepages alone); add memory"))


def _check_host_network(f, out) -> None:
    host, one = ("spec", "network", "hostNetwork"), ("spec", "placement", "worker", "onePodPerNode")
    if not f.ok(host, one):
        return
    if f.get(host) is True and f.get(one) is False:
        out.append(error(f.doc.value_mark(one),
                         "spec.placement.worker.onePodPerNode: false with hostNetwork: two workers on one node "
                         "share its ports and the second cannot start; remove onePodPerNode"))


def _check_launcher_placement(f, out) -> None:
    """A launcher on a GPU node holds a node's worth of capacity for a process that needs a
    CPU (user-needs 7.3); warn when its placement is the workers' GPU pool."""
    locs = (("spec", "placement"), ("spec", "gpusPerWorker"), ("spec", "gpuResource"), ("spec", "launcher"))
    if not f.ok(*locs) or not f.get(("spec", "gpusPerWorker"), 0) or _run_as_worker(f):
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


def _check_storage(f, out) -> None:
    datasets = f.get(("spec", "datasets"), [])
    if not isinstance(datasets, list) or not f.ok(("spec", "workers")):
        return
    workers = f.get(("spec", "workers"), 1)
    for index, dataset in enumerate(datasets):
        here = ("spec", "datasets", index)
        if not f.ok(here) or not isinstance(dataset, dict):
            continue
        where = f"spec.datasets[{index}]"
        read_only = dataset.get("readOnly", True)
        mode = dataset.get("accessMode")
        if mode in ("ReadWriteOnce", "ReadWriteOncePod"):
            out.append(error(f.doc.value_mark(here + ("accessMode",)),
                             f"{where}.accessMode: a {mode} claim mounts on one {'pod' if mode.endswith('Pod') else 'node'}"
                             f", but the launcher and {workers} worker{'s' if workers > 1 else ''} mount it: the "
                             "pods on other nodes fail with FailedMount; use a ReadWriteMany (or, read-only, "
                             "ReadOnlyMany) claim"))
        elif mode == "ReadOnlyMany" and (not read_only or dataset.get("download")):
            key = "download" if dataset.get("download") else "readOnly"
            out.append(error(f.doc.key_mark(here + (key,)),
                             f"{where}.{key}: the claim is ReadOnlyMany, so nothing can write to it; use a "
                             "ReadWriteMany claim"))
        for source in ("configMap", "secret"):
            if source in dataset and not read_only:
                out.append(error(f.doc.value_mark(here + ("readOnly",)),
                                 f"{where}.readOnly: a {source} volume is always read-only; remove readOnly: false"))
        if dataset.get("download") is not None:
            source = next((s for s in ("hostPath", "configMap", "secret") if s in dataset), None)
            if source:
                out.append(error(f.doc.key_mark(here + ("download",)),
                                 f"{where}.download: the download runs once, on the launcher, and a {source} volume "
                                 "is not shared with the workers; download onto a pvc, nfs or csi dataset"))
            name = dataset.get("name")
            if isinstance(name, str) and len("download-" + name) > 63:
                out.append(error(f.doc.value_mark(here + ("name",)),
                                 f"{where}.name: the download step is the init container download-{name}, longer "
                                 f"than the 63 characters of a container name; use at most 54 characters"))


def _check_gang(f, out) -> None:
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


def _check_group_resources(f, out, gang: dict) -> None:
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


def _check_patch_overlap(f, out) -> None:
    """A podTemplatePatch field that a blueprint field also sets; and privileged containers,
    which only spec.security.privileged may ask for."""
    spec = _spec(f)
    launcher_ranks = _run_as_worker(f)
    for role in ("launcher", "worker"):
        for part, table in (("pod", POD_PATCH_FIELDS), ("container", CONTAINER_PATCH_FIELDS)):
            loc = ("spec", "podTemplatePatch", role, part)
            if not f.ok(loc):
                continue
            patch = f.get(loc, {})
            for key in patch:
                for field in table.get(key, ()):
                    if (field in RANK_ONLY and role == "launcher" and not launcher_ranks) or \
                            (field in LAUNCHER_ONLY and role == "worker"):
                        continue  # the blueprint field does not write this role's pods
                    path = tuple(p.format(role=role) for p in field)
                    value = _dig(spec, path)
                    if value not in (None, False, [], {}):
                        field_name = ".".join(path).replace(".*.", "[].")
                        out.append(error(f.doc.key_mark(loc + (key,)),
                                         f"spec.podTemplatePatch.{role}.{part}.{key} is also written by "
                                         f"spec.{field_name}; set it in one place"))
                        break
            context = patch.get("securityContext") if part == "container" else None
            if isinstance(context, dict) and context.get("privileged") is True:
                out.append(error(f.doc.key_mark(loc + ("securityContext", "privileged")),
                                 f"spec.podTemplatePatch.{role}.container.securityContext.privileged: privileged "
                                 "containers are asked for with spec.security.privileged: true, where a reviewer "
                                 "sees it; prefer spec.security.capabilities"))


def _dig(data, path):
    """The value at path; `*` takes the first list item that has a value there."""
    for index, part in enumerate(path):
        if part == "*":
            items = data if isinstance(data, list) else []
            found = [v for v in (_dig(item, path[index + 1:]) for item in items) if v not in (None, False, [], {})]
            return found[0] if found else None
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


# --- checks that depend on the target -----------------------------------------------------

def production_target_checks(doc, blueprint, target: str, mpijob_api: str) -> list[Diagnostic]:
    from mpigen.render.mpijob.resource import V1, V2BETA1

    spec = blueprint.spec
    out: list[Diagnostic] = []
    if spec.launcher.runAsWorker and target == "mpijob" and mpijob_api == V1:
        out.append(error(doc.value_mark(("spec", "launcher", "runAsWorker")),
                         "spec.launcher.runAsWorker: the training-operator's kubeflow.org/v1 MPIJob has no "
                         "runLauncherAsWorker; use --mpijob-api kubeflow.org/v2beta1 or the static target"))
    if spec.launcher.runAsWorker and spec.network.hostNetwork and target == "static":
        out.append(error(doc.value_mark(("spec", "launcher", "runAsWorker")),
                         "spec.launcher.runAsWorker with hostNetwork: a host-network pod has the node's hostname, "
                         "so mpirun cannot tell that the hostfile's <name>-launcher is itself; use the mpijob "
                         "target or keep the launcher off the host network"))
    if target != "mpijob" or mpijob_api != V2BETA1:
        return out
    # v2beta1 reaches the workers over SSH.
    sec = spec.security
    non_root = (sec.runAsUser not in (None, 0)) or sec.runAsNonRoot
    if non_root and (sec.sshAuthMountPath in (None, "/root/.ssh")):
        key = "runAsUser" if sec.runAsUser not in (None, 0) else "runAsNonRoot"
        out.append(error(doc.value_mark(("spec", "security", key)),
                         f"spec.security.{key}: a non-root user cannot read SSH keys mounted at /root/.ssh; set "
                         "spec.security.sshAuthMountPath to its ~/.ssh (the operator's images: "
                         "/home/mpiuser/.ssh)"))
    if spec.network.hostNetwork:
        out.append(warning(doc.value_mark(("spec", "network", "hostNetwork")),
                           "spec.network.hostNetwork: the workers' sshd shares the node's ports, where the node's "
                           "own sshd has 22; the image's sshd must listen on another port (the operator's images "
                           "use 2222, mpi-op#593)"))
    worker_patch = spec.podTemplatePatch.worker.container
    if spec.mpiImplementation != "OpenMPI" and "readinessProbe" not in worker_patch:
        out.append(warning(doc.value_mark(("spec", "mpiImplementation")),
                           f"spec.mpiImplementation: {spec.mpiImplementation} needs the workers' sshd up before "
                           "mpirun starts (mpi-op PR #425): add spec.podTemplatePatch.worker.container."
                           "readinessProbe (tcpSocket on the sshd port, 2222 in the operator's images)"))
    gang = spec.scheduling.gang
    if gang is not None and spec.wait_for_workers and gang.minAvailable is not None \
            and gang.minAvailable > spec.workers:
        out.append(warning(doc.value_mark(("spec", "scheduling", "gang", "minAvailable")),
                           f"spec.scheduling.gang.minAvailable: {gang.minAvailable} counts the launcher, but with "
                           "waitForWorkers the operator creates the launcher only once the workers run, and the "
                           "workers wait for the whole group: nothing starts (mpi-op#608); use "
                           f"minAvailable: {spec.workers}, or remove it"))
    if spec.scheduling.queue is not None and spec.wait_for_workers:
        out.append(warning(doc.value_mark(("spec", "scheduling", "queue")),
                           "spec.scheduling.queue with waitForWorkers: while Kueue keeps the job suspended, the "
                           "operator counts 0 of 0 workers ready and creates the launcher, which then starts "
                           "before the workers when the job is admitted (mpi-op#615); set "
                           "spec.launcher.waitForWorkers: false and rely on the launcher's retries"))
    return out


def production_profile_checks(doc, blueprint, gitops: str) -> list[Diagnostic]:
    """Under a GitOps profile the launcher is applied after the workers are ready (Argo CD
    waves, Flux dependsOn): a gang that counts the launcher never starts."""
    gang = blueprint.spec.scheduling.gang
    if gitops == "none" or gang is None or gang.minAvailable is None or gang.minAvailable <= blueprint.spec.workers:
        return []
    return [error(doc.value_mark(("spec", "scheduling", "gang", "minAvailable")),
                  f"spec.scheduling.gang.minAvailable: {gang.minAvailable} counts the launcher, but with --gitops "
                  f"{gitops} the launcher is applied only once the workers are ready, and the workers wait for the "
                  f"whole group: nothing would start; use minAvailable: {blueprint.spec.workers}, or remove it "
                  "(that is the default)")]
