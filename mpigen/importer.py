"""`mpigen import`: existing MPIJob manifests -> blueprints.

Reads the three generations (kubeflow.org/v1alpha2 with mpiReplicaSpecs, slotsPerWorker
and cleanPodPolicy at the top of spec; the training-operator's kubeflow.org/v1 with
runPolicy; kubeflow.org/v2beta1) and writes what a blueprint says: image, workers,
slots, GPUs, the launch line, env, resources, datasets, placement, run policy. Whatever
a blueprint cannot express is reported with its position, never dropped silently: a
warning, or an error with --strict.

The launch line becomes command, mpirunArgs and framework when rendering them gives the
same line back (checked), and launcherCommand otherwise, so the imported blueprint
renders the launcher the manifest had.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from mpigen.blueprint import is_accelerator
from mpigen.errors import Diagnostic, error, warning
from mpigen.launch import RANK_ENV_SCRIPT, RENDEZVOUS_ENV
from mpigen.render.mpijob import KUEUE_QUEUE_LABEL, SSHD_ROOT_CAPABILITIES
from mpigen.load import Document, Loc, field_path

APIS = ("kubeflow.org/v1alpha2", "kubeflow.org/v1", "kubeflow.org/v2beta1")
IMPLEMENTATIONS = {"OpenMPI": "OpenMPI", "Intel": "IntelMPI", "IntelMPI": "IntelMPI", "MPICH": "MPICH"}
# What the operators, or mpigen itself, add to the launcher: not the user's.
ADDED_ENV = {"PRTE_MCA_plm_ssh_agent", "PRTE_MCA_prte_default_hostfile", "OMPI_MCA_plm_rsh_agent",
             "OMPI_MCA_orte_default_hostfile", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES"}
# Flags taking values, to tell mpirun's own arguments from the program's.
FLAG_VALUES = {"-x": 1, "--mca": 2, "-mca": 2, "--bind-to": 1, "-bind-to": 1, "--map-by": 1, "-map-by": 1,
               "-H": 1, "--host": 1, "-host": 1, "--hostfile": 1, "-hostfile": 1, "-genv": 2, "-env": 2,
               "-genvlist": 1, "-npernode": 1, "--npernode": 1, "-ppn": 1, "-n": 1, "-np": 1}
# Pod and container fields a blueprint carries in its own fields; the others go to
# spec.podTemplatePatch when it accepts them, and are reported as lost when not.
POD_FIELDS = {"containers", "volumes", "nodeSelector", "tolerations", "restartPolicy"}
CONTAINER_FIELDS = {"name", "image", "command", "args", "env", "resources", "volumeMounts"}
OPERATOR_POD_FIELDS = {"hostname", "subdomain"}  # the v2beta1 operator writes them


@dataclass
class Imported:
    blueprint: dict
    diagnostics: list[Diagnostic] = field(default_factory=list)


class _Reader:
    """Reads one MPIJob document, recording what it cannot carry over."""

    def __init__(self, doc: Document, strict: bool):
        self.doc, self.strict, self.problems = doc, strict, []

    def get(self, loc: Loc, default=None):
        return self.doc.get(loc, default)

    def lost(self, loc: Loc, why: str) -> None:
        report = error if self.strict else warning
        self.problems.append(report(self.doc.key_mark(loc), f"{field_path(loc)}: {why}; a blueprint cannot express "
                                                           "it, so the imported blueprint leaves it out"))

    def refuse(self, loc: Loc, why: str) -> None:
        self.problems.append(error(self.doc.value_mark(loc), f"{field_path(loc)}: {why}"))


def import_document(doc: Document, strict: bool = False) -> Imported:
    r = _Reader(doc, strict)
    data = doc.data
    api = data.get("apiVersion") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("kind") != "MPIJob" or api not in APIS:
        r.refuse(("kind",) if isinstance(data, dict) else (), f"not an MPIJob of {', '.join(APIS)}")
        return Imported({}, r.problems)
    spec_loc = ("spec",)
    spec = r.get(spec_loc, {})
    replicas = r.get(spec_loc + ("mpiReplicaSpecs",), {})
    if not isinstance(replicas, dict) or "Launcher" not in replicas:
        r.refuse(spec_loc + ("mpiReplicaSpecs",), "an MPIJob needs mpiReplicaSpecs with a Launcher")
        return Imported({}, r.problems)
    metadata = {"name": r.get(("metadata", "name"))}
    if r.get(("metadata", "namespace")):
        metadata["namespace"] = r.get(("metadata", "namespace"))
    out: dict[str, Any] = {}
    for key in ("labels", "annotations"):
        values = {k: v for k, v in (r.get(("metadata", key)) or {}).items()
                  if not k.startswith("mpigen.dev/") and k != "app.kubernetes.io/managed-by"}
        if key == "labels" and KUEUE_QUEUE_LABEL in values:
            out["scheduling"] = {"queue": values.pop(KUEUE_QUEUE_LABEL)}
        if values:
            metadata[key] = values
    main = spec.get("mainContainer")
    launcher = _role(r, "Launcher", main)
    worker = _role(r, "Worker", main, sshd=api == "kubeflow.org/v2beta1") if "Worker" in replicas else None
    out["image"] = launcher["image"]
    out["workers"] = r.get(spec_loc + ("mpiReplicaSpecs", "Worker", "replicas"), 0) if worker else 0
    if worker and worker["image"] != launcher["image"]:
        r.lost(worker["loc"] + ("image",), "the workers' image differs from the launcher's")
    implementation = IMPLEMENTATIONS.get(spec.get("mpiImplementation") or spec.get("mpiDistribution") or "OpenMPI")
    if implementation is None:
        r.refuse(spec_loc + ("mpiImplementation",), "unknown MPI implementation")
        implementation = "OpenMPI"
    out["mpiImplementation"] = implementation
    out["slotsPerWorker"] = spec.get("slotsPerWorker", 1)
    if worker:
        gpus = {k: v for k, v in worker["limits"].items() if is_accelerator(k)}
        if len(gpus) > 1:
            r.lost(worker["loc"] + ("resources",), "more than one accelerator resource")
        for name, count in list(gpus.items())[:1]:
            out["gpusPerWorker"], out["gpuResource"] = int(str(count)), name
            del worker["limits"][name]
    env = {e["name"]: e.get("value", "") for e in launcher["env"] if e.get("name") not in ADDED_ENV}
    worker_env = {e["name"]: e.get("value", "") for e in worker["env"] if e.get("name") not in ADDED_ENV} if worker else {}
    if RANK_ENV_SCRIPT in launcher["command"]:  # mpigen's PyTorch/DeepSpeed preset sets these on the launcher
        env = {k: v for k, v in env.items() if k not in RENDEZVOUS_ENV or k in worker_env}
    if worker and worker_env != env:
        r.lost(worker["loc"] + ("env",), "the workers' environment differs from the launcher's")
    if env:
        out["env"] = env
    def per_role(key: str) -> dict:
        """{launcher: ..., worker: ...} of a role's part, leaving out empty ones."""
        return {role: part[key] for role, part in (("launcher", launcher), ("worker", worker))
                if part and part[key]}

    if per_role("limits"):
        out["resources"] = per_role("limits")
    datasets = _datasets(r, launcher, worker)
    if datasets:
        out["datasets"] = datasets
    if worker is not None:
        _worker_only_volumes(r, launcher, worker, out)
    if per_role("placement"):
        out["placement"] = per_role("placement")
    policy = {**{k: spec[k] for k in ("cleanPodPolicy", "backoffLimit", "activeDeadlineSeconds") if k in spec},
              **{k: v for k, v in (spec.get("runPolicy") or {}).items()
                 if k in ("cleanPodPolicy", "backoffLimit", "activeDeadlineSeconds", "ttlSecondsAfterFinished")}}
    for key in (spec.get("runPolicy") or {}):
        if key not in ("cleanPodPolicy", "backoffLimit", "activeDeadlineSeconds", "ttlSecondsAfterFinished",
                       "suspend"):
            r.lost(spec_loc + ("runPolicy", key), "not a blueprint run policy")
    if policy:
        out["runPolicy"] = policy
    if (spec.get("runPolicy") or {}).get("suspend") is True:
        out["state"] = "completed"
    if main:
        out["mainContainer"] = main
    _pod_fields(launcher, worker, out)
    if per_role("patch"):
        out["podTemplatePatch"] = per_role("patch")
    if spec.get("sshAuthMountPath") not in (None, "/root/.ssh"):
        out.setdefault("security", {})["sshAuthMountPath"] = spec["sshAuthMountPath"]
    if "launcherCreationPolicy" in spec:
        # The blueprint's default waits for Hydra's workers (IntelMPI, MPICH) and not for Open MPI's.
        waits = spec["launcherCreationPolicy"] != "AtStartup"  # the operator waits for any other value
        if waits != (implementation != "OpenMPI"):
            out["launcher"] = {"waitForWorkers": waits}
    if spec.get("runLauncherAsWorker") not in (None, False):
        r.lost(spec_loc + ("runLauncherAsWorker",), "runLauncherAsWorker (the launcher's template would have to "
                                                    "match the workers'; set spec.launcher.runAsWorker by hand)")
    out.update(_launch(launcher["command"], implementation, out))
    blueprint = {"apiVersion": "mpigen.dev/v1alpha1", "kind": "MPIJobBlueprint", "metadata": metadata, "spec": out}
    return Imported(blueprint, r.problems)


def _role(r: _Reader, role: str, main: str | None, sshd: bool = False) -> dict:
    """The MPI container of a replica and what a blueprint keeps of its pod."""
    loc = ("spec", "mpiReplicaSpecs", role, "template")
    from mpigen.blueprint import CONTAINER_FIELDS as PATCHABLE_CONTAINER
    from mpigen.blueprint import POD_FIELDS as PATCHABLE_POD

    pod = r.get(loc + ("spec",), {}) or {}
    patch: dict = {"pod": {}, "container": {}}
    for key in pod:
        if key in POD_FIELDS or key in OPERATOR_POD_FIELDS:
            continue
        if key in PATCHABLE_POD and not (role == "Launcher" and key in ("serviceAccountName", "serviceAccount")):
            patch["pod"][key] = pod[key]
        else:
            r.lost(loc + ("spec", key), f"the {role.lower()} pod's {key}")
    for key in (r.get(loc + ("metadata",), {}) or {}):
        if key not in ("labels", "annotations"):
            r.lost(loc + ("metadata", key), f"the {role.lower()} template's {key}")
    containers = pod.get("containers") or [{}]
    index = next((i for i, c in enumerate(containers) if main and c.get("name") == main), 0)
    for extra in range(len(containers)):
        if extra != index:
            r.lost(loc + ("spec", "containers", extra), f"an extra container in the {role.lower()} pod")
    container = containers[index]
    cloc = loc + ("spec", "containers", index)
    for key in container:
        if key in CONTAINER_FIELDS:
            continue
        if key in PATCHABLE_CONTAINER:
            patch["container"][key] = container[key]
        else:
            r.lost(cloc + (key,), f"the {role.lower()} container's {key}")
    if isinstance(patch["container"].get("securityContext"), dict):
        context = _without_least_privilege(patch["container"]["securityContext"], sshd)
        if context:
            patch["container"]["securityContext"] = context
        else:
            del patch["container"]["securityContext"]
    resources = container.get("resources") or {}
    limits = dict(resources.get("limits") or {})
    for name, value in (resources.get("requests") or {}).items():
        if str(limits.get(name)) != str(value):
            r.lost(cloc + ("resources", "requests", name), "a request different from its limit")
    placement = {k: pod[k] for k in ("nodeSelector", "tolerations") if pod.get(k)}
    return {"loc": cloc, "image": container.get("image"), "env": container.get("env") or [],
            "command": list(container.get("command") or []) + list(container.get("args") or []),
            "limits": {k: str(v) for k, v in limits.items()}, "mounts": container.get("volumeMounts") or [],
            "volumes": pod.get("volumes") or [], "vloc": loc + ("spec", "volumes"), "placement": placement,
            "patch": {k: v for k, v in patch.items() if v}}


def _without_least_privilege(context: dict, sshd: bool) -> dict:
    """A container's securityContext less what mpigen writes anyway (compile.least_privilege,
    and a v2beta1 worker's root sshd capabilities), so the blueprint keeps only what differs."""
    from mpigen.compile import least_privilege

    written = least_privilege([])
    context = copy.deepcopy(context)
    if context.get("allowPrivilegeEscalation") == written["allowPrivilegeEscalation"]:
        del context["allowPrivilegeEscalation"]
    capabilities = context.get("capabilities")
    if isinstance(capabilities, dict):
        if capabilities.get("drop") == written["capabilities"]["drop"]:
            del capabilities["drop"]
        if sshd and isinstance(capabilities.get("add"), list):
            capabilities["add"] = [c for c in capabilities["add"] if c not in SSHD_ROOT_CAPABILITIES]
        for key in [k for k, v in capabilities.items() if not v]:
            del capabilities[key]
        if not capabilities:
            del context["capabilities"]
    return context


def _datasets(r: _Reader, launcher: dict, worker: dict | None) -> list[dict]:
    datasets = []
    for index, volume in enumerate(launcher["volumes"]):
        name = volume.get("name")
        mount = next((m for m in launcher["mounts"] if m.get("name") == name), None)
        source = None
        if "persistentVolumeClaim" in volume:
            source = {"pvc": volume["persistentVolumeClaim"].get("claimName")}
        elif "nfs" in volume:
            source = {"nfs": {"server": volume["nfs"].get("server"), "path": volume["nfs"].get("path")}}
        elif "hostPath" in volume and volume["hostPath"].get("type", "Directory") == "Directory":
            source = {"hostPath": volume["hostPath"].get("path")}
        if source is None or mount is None:
            r.lost(launcher["vloc"] + (index,), f"the volume {name!r} (only mounted PVC, NFS and hostPath "
                                                "Directory volumes are datasets)")
            continue
        dataset = {"name": name, "mountPath": mount.get("mountPath"), **source}
        if not mount.get("readOnly", False):
            dataset["readOnly"] = False
        if worker is not None and (volume not in worker["volumes"] or mount not in worker["mounts"]):
            r.lost(worker["vloc"], f"the workers do not mount {name!r} as the launcher does")
        datasets.append(dataset)
    return datasets


def _pod_fields(launcher: dict, worker: dict | None, out: dict) -> None:
    """Pod fields that blueprint fields express, out of the roles' patches: pull secrets
    both pods share, and the rank-host anti-affinity mpigen writes for onePodPerNode."""
    from mpigen.compile import EXCLUSIVE_LABEL

    pods = [launcher["patch"].get("pod", {})] + ([worker["patch"].get("pod", {})] if worker else [])
    secrets = [pod.get("imagePullSecrets") for pod in pods]
    if secrets[0] and all(s == secrets[0] for s in secrets) and all(set(s) == {"name"} for s in secrets[0]):
        out["imagePullSecrets"] = [s["name"] for s in secrets[0]]
        for pod in pods:
            del pod["imagePullSecrets"]
    if worker is None:
        return
    pod = worker["patch"].get("pod", {})
    anti = (pod.get("affinity") or {}).get("podAntiAffinity") or {}
    terms = anti.get("requiredDuringSchedulingIgnoredDuringExecution") or []
    kept = [t for t in terms if EXCLUSIVE_LABEL not in ((t.get("labelSelector") or {}).get("matchLabels") or {})]
    if len(kept) < len(terms):
        out.setdefault("placement", {}).setdefault("worker", {})["onePodPerNode"] = True
        if kept:
            anti["requiredDuringSchedulingIgnoredDuringExecution"] = kept
        else:
            del anti["requiredDuringSchedulingIgnoredDuringExecution"]
            if not anti:
                del pod["affinity"]["podAntiAffinity"]
            if not pod["affinity"]:
                del pod["affinity"]
    for role in (launcher, worker):
        for part in [k for k, v in role["patch"].items() if not v]:
            del role["patch"][part]


def _worker_only_volumes(r: _Reader, launcher: dict, worker: dict, out: dict) -> None:
    """What the workers mount and the launcher does not: /dev/shm as a memory-backed
    emptyDir is spec.sharedMemory; mpigen's own rank-env.sh volume is the preset's; the
    rest cannot be expressed (a dataset is mounted on both)."""
    from mpigen.compile import SHM_MOUNT
    from mpigen.render.additions import RANK_ENV_VOLUME

    shared = {v.get("name") for v in launcher["volumes"]}
    shm = None
    for index, volume in enumerate(worker["volumes"]):
        name = volume.get("name")
        mount = next((m for m in worker["mounts"] if m.get("name") == name), None)
        if name in shared or name == RANK_ENV_VOLUME or name == "mpi-job-config":
            continue
        empty_dir = volume.get("emptyDir")
        if mount and mount.get("mountPath") == SHM_MOUNT and isinstance(empty_dir, dict) \
                and empty_dir.get("medium") == "Memory" and empty_dir.get("sizeLimit") is not None:
            shm = str(empty_dir["sizeLimit"])
            continue
        r.lost(worker["vloc"] + (index,), f"the workers' volume {name!r} (only the launcher's volumes, mounted on "
                                          "both, become datasets; /dev/shm as a sized Memory emptyDir becomes "
                                          "sharedMemory)")
    if shm is not None:
        out["sharedMemory"] = shm
    elif out.get("gpusPerWorker"):
        out["sharedMemory"] = "0"  # the MPIJob has none; mpigen's default would add one


# Single-dash long options of older examples, which Open MPI 5 rejects (openmpi5-notes 2).
TWO_DASH = {"-bind-to": "--bind-to", "-map-by": "--map-by", "-mca": "--mca"}


def _launch(argv: list[str], implementation: str, spec: dict) -> dict:
    """command, mpirunArgs and framework that render exactly argv; else launcherCommand.
    mpirun's single-dash long options are written with two dashes, as mpigen always does."""
    from mpigen.blueprint import Spec
    from mpigen.launch import launcher_command

    if argv[:1] == ["mpirun"] and implementation == "OpenMPI":
        argv = [TWO_DASH.get(arg, arg) if i < _program_start(argv) else arg for i, arg in enumerate(argv)]

    if argv[:1] == ["mpirun"]:
        # Hydra jobs get no framework flags, so their framework cannot be told: custom.
        frameworks = ("horovod", "pytorch", "custom") if implementation == "OpenMPI" else ("custom",)
        if RANK_ENV_SCRIPT in argv:  # the PyTorch/DeepSpeed preset: the script is mpigen's, not the program
            frameworks = ("pytorch",)
        plain = [arg for arg in argv if arg != RANK_ENV_SCRIPT]
        for framework in frameworks:
            for split in _splits(plain):
                candidate = {"framework": framework, "mpirunArgs": plain[split[0]:split[1]], "command": plain[split[1]:]}
                try:
                    rendered = launcher_command(Spec.model_validate(
                        {**{k: v for k, v in spec.items() if k in ("image", "workers", "slotsPerWorker", "env",
                                                                   "gpusPerWorker", "mpiImplementation")},
                         **candidate}))
                except Exception:  # a candidate the model refuses is simply not this one
                    continue
                if rendered == argv:
                    if framework == "custom":
                        del candidate["framework"]
                    return {k: v for k, v in candidate.items() if v}
    return {"launcherCommand": argv} if argv else {}


def _program_start(argv: list[str]) -> int:
    return _splits(argv)[-1][1] if len(argv) > 1 else len(argv)


def _splits(argv: list[str]):
    """(start of mpirunArgs, start of the program) candidates: after `mpirun -np N` and any
    prefix of flags, the program starts at the first argument that is not a flag or a
    flag's value."""
    i = 3 if argv[1:2] == ["-np"] else 1
    starts = [i]
    while i < len(argv) and argv[i].startswith("-"):
        i += 1 + FLAG_VALUES.get(argv[i], 0)
        starts.append(i)
    i = min(i, len(argv))
    program = min(i, len(argv))
    return [(start, program) for start in starts if start <= program]
