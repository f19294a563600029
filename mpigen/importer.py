"""`mpigen import`: existing MPIJob manifests -> blueprints.

Reads the three generations (kubeflow.org/v1alpha2 with mpiReplicaSpecs, slotsPerWorker
and cleanPodPolicy at the top of spec; the training-operator's kubeflow.org/v1 with
runPolicy; kubeflow.org/v2beta1), each with its own fields, defaults and validation
(shared/reference/mpi-operator.md sections 2, 3 and 4), and writes what a blueprint says.

The import is lossless: rendering the blueprint gives what the operator makes of the
MPIJob (the v1alpha2 controller's objects under the static target, the same MPIJob under
`--target mpijob` for v1 and v2beta1), outside the contract's exceptions. What a
blueprint cannot carry is reported at its line: a warning, or an error with --strict. An
MPIJob the operator or the API server would refuse, or whose blueprint mpigen would
refuse, is an error at its line. The launch line becomes command, mpirunArgs and
framework when rendering them gives the same line back (checked), else launcherCommand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mpigen.errors import Diagnostic, error, warning
from mpigen.import_pods import V1, V1ALPHA2, V2BETA1, read_env, read_role, template_metadata
from mpigen.import_volumes import dangling_mounts, datasets, worker_only_volumes
from mpigen.launch import RANK_ENV_SCRIPT, RENDEZVOUS_ENV
from mpigen.load import Document, Loc, field_path
from mpigen.render.launcher import HOSTFILE_PATH, KUBEXEC_PATH
from mpigen.render.mpijob import KUEUE_QUEUE_LABEL

APIS = (V1ALPHA2, V1, V2BETA1)
# The fields of each generation's spec and runPolicy (types.go of each; 2.1, 3.1, 4.1).
SPEC_FIELDS = {
    V1ALPHA2: ("slotsPerWorker", "backoffLimit", "activeDeadlineSeconds", "cleanPodPolicy", "mpiReplicaSpecs",
               "mainContainer", "runPolicy", "mpiDistribution"),
    V1: ("slotsPerWorker", "cleanPodPolicy", "mpiReplicaSpecs", "mainContainer", "runPolicy"),
    V2BETA1: ("slotsPerWorker", "runLauncherAsWorker", "runPolicy", "sshAuthMountPath", "launcherCreationPolicy",
              "mpiImplementation", "mpiReplicaSpecs"),
}
RUN_POLICY_FIELDS = {
    V1ALPHA2: ("cleanPodPolicy", "ttlSecondsAfterFinished", "activeDeadlineSeconds", "backoffLimit",
               "schedulingPolicy"),
    V1: ("cleanPodPolicy", "ttlSecondsAfterFinished", "activeDeadlineSeconds", "backoffLimit", "schedulingPolicy",
         "suspend", "managedBy"),
}
RUN_POLICY_FIELDS[V2BETA1] = RUN_POLICY_FIELDS[V1]
IMPLEMENTATION_FIELD = {V1ALPHA2: "mpiDistribution", V2BETA1: "mpiImplementation"}
IMPLEMENTATIONS = {V1ALPHA2: {"OpenMPI": "OpenMPI", "IntelMPI": "IntelMPI", "MPICH": "MPICH"},
                   V2BETA1: {"OpenMPI": "OpenMPI", "Intel": "IntelMPI", "MPICH": "MPICH"}}
# The restart policy each role's pods get from a blueprint (v1alpha2: the static target's
# Job; v1 and v2beta1: the MPIJob the mpijob target writes), and what the MPIJob's own
# says once defaulted (None: whatever it says is overwritten).
RENDERED_RESTART = {V1ALPHA2: {"Launcher": "OnFailure", "Worker": None},
                    V1: {"Launcher": "Never", "Worker": "Never"},
                    V2BETA1: {"Launcher": "OnFailure", "Worker": "Never"}}
# Metadata the API server writes (kubectl get -o yaml shows it), and kubectl's own record.
SERVER_METADATA = {"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "selfLink",
                   "deletionTimestamp", "deletionGracePeriodSeconds"}
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
MANAGED_BY, MPIGEN_PREFIX = "app.kubernetes.io/managed-by", "mpigen.dev/"
DEFAULT_CONTAINERS = {"Launcher": "mpi-launcher", "Worker": "mpi-worker"}  # compile's, without mainContainer
# What mpigen (its mpijob target) writes into the launcher's env itself: not the user's.
ADDED_ENV = {"PRTE_MCA_plm_ssh_agent": KUBEXEC_PATH, "PRTE_MCA_prte_default_hostfile": HOSTFILE_PATH}


@dataclass
class Imported:
    blueprint: dict
    diagnostics: list[Diagnostic] = field(default_factory=list)


class Reader:
    """Reads one MPIJob document: its values, and what cannot be carried over, at its place."""

    def __init__(self, doc: Document, strict: bool, api: str):
        self.doc, self.strict, self.api, self.problems = doc, strict, api, []
        self.refused = False  # an error of the MPIJob itself (not a loss made an error by --strict)
        self.origins: dict[Loc, Loc] = {}  # a blueprint location -> where in the MPIJob it comes from

    def get(self, loc: Loc, default=None):
        return self.doc.get(loc, default)

    def mapping(self, loc: Loc) -> dict:
        return self._typed(loc, dict, "a mapping")

    def listing(self, loc: Loc) -> list:
        return self._typed(loc, list, "a list")

    def _typed(self, loc: Loc, kind: type, words: str):
        value = self.get(loc)
        if value is None:
            return kind()
        if not isinstance(value, kind):
            self.refuse(loc, f"expected {words}")
            return kind()
        return value

    def lost(self, loc: Loc, what: str) -> None:
        self.differs(loc, f"{what}; a blueprint cannot express it, so the imported blueprint leaves it out")

    def differs(self, loc: Loc, message: str) -> None:
        report = error if self.strict else warning
        self.problems.append(report(self.doc.key_mark(loc), f"{field_path(loc)}: {message}"))

    def refuse(self, loc: Loc, why: str) -> None:
        """An error at the value (at the key of a mapping or a list: where it starts)."""
        whole = isinstance(self.get(loc), (dict, list)) and loc
        mark = self.doc.key_mark(loc) if whole else self.doc.value_mark(loc)
        self.problems.append(error(mark, f"{field_path(loc) or 'document'}: {why}"))
        self.refused = True

    def came_from(self, spec_loc: Loc, loc: Loc) -> None:
        self.origins[("spec", *spec_loc) if spec_loc[0] != "metadata" else spec_loc] = loc



def import_document(doc: Document, strict: bool = False) -> Imported:
    data = doc.data
    api = data.get("apiVersion") if isinstance(data, dict) else None
    r = Reader(doc, strict, api)
    if not isinstance(data, dict) or data.get("kind") != "MPIJob" or api not in APIS:
        r.refuse(("kind",) if isinstance(data, dict) else (), f"not an MPIJob of {', '.join(APIS)}")
        return Imported({}, r.problems)
    for key in data:
        if key not in ("apiVersion", "kind", "metadata", "spec", "status"):
            r.lost((key,), f"{key!r} (not a field of an MPIJob)")
    metadata, out = _metadata(r), {}
    spec = r.mapping(("spec",))
    for key in spec:
        if key not in SPEC_FIELDS[api]:
            r.lost(("spec", key), f"not a field of the {api} MPIJob spec (the API server drops it)")
    if not _replicas(r) or r.refused:
        return Imported({}, r.problems)
    launcher, worker = read_role(r, "Launcher"), read_role(r, "Worker")
    if launcher is None or worker is None or r.refused:
        return Imported({}, r.problems)
    queue = metadata.get("labels", {}).pop(KUEUE_QUEUE_LABEL, None)
    if queue is not None:
        out["scheduling"] = {"queue": queue}
    _networks(r, launcher, worker, out)
    template_metadata(r, metadata, [launcher, worker])
    out["image"], out["workers"] = launcher["image"], spec["mpiReplicaSpecs"]["Worker"]["replicas"]
    r.came_from(("image",), launcher["cloc"] + ("image",))
    r.came_from(("workers",), ("spec", "mpiReplicaSpecs", "Worker", "replicas"))
    if worker["image"] != launcher["image"]:
        r.lost(worker["cloc"] + ("image",), "the workers' image, which differs from the launcher's")
    implementation = _implementation(r, spec)
    out["mpiImplementation"] = implementation
    out["slotsPerWorker"] = spec.get("slotsPerWorker", 1)  # never the blueprint's GPU-based default
    r.came_from(("slotsPerWorker",), ("spec", "slotsPerWorker"))
    _gpus(r, worker, out)
    _restart_policies(r)
    _container_names(r, spec, launcher, worker, out)
    argv = launcher["command"] + launcher["args"]
    _env(r, launcher, worker, out, rank_env=RANK_ENV_SCRIPT in argv)
    _worker_command(r, worker)
    for role, part in (("launcher", launcher), ("worker", worker)):
        dangling_mounts(r, part)
        if part["limits"]:
            out.setdefault("resources", {})[role] = part["limits"]
    found = datasets(r, launcher, worker)
    if found:
        out["datasets"] = found
    shm = worker_only_volumes(r, launcher, worker, RANK_ENV_SCRIPT in argv, bool(out.get("gpusPerWorker")))
    if shm is not None:
        out["sharedMemory"] = shm
    placement = {role: part["placement"] for role, part in (("launcher", launcher), ("worker", worker))
                 if part["placement"]}
    if placement:
        out["placement"] = placement
    _run_policy(r, spec, out, queue)
    _pod_fields(launcher, worker, out)
    patch = {role: part["patch"] for role, part in (("launcher", launcher), ("worker", worker)) if part["patch"]}
    if patch:
        out["podTemplatePatch"] = patch
    _v2beta1_fields(r, spec, out, implementation)
    out.update(_launch(r, launcher, argv, implementation, out))
    blueprint = {"apiVersion": "mpigen.dev/v1alpha1", "kind": "MPIJobBlueprint", "metadata": metadata, "spec": out}
    if not r.refused:
        _check_blueprint(r, blueprint)
    failed = any(d.severity == "error" for d in r.problems)
    return Imported({} if failed else blueprint, r.problems)


def _metadata(r: Reader) -> dict:
    meta = r.mapping(("metadata",))
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        r.refuse(("metadata", "name") if "name" in meta else ("metadata",),
                 "an MPIJob needs metadata.name (a blueprint is named after it)")
    for key in meta:
        if key not in ("name", "namespace", "labels", "annotations") and key not in SERVER_METADATA:
            r.lost(("metadata", key), f"the MPIJob's metadata.{key}")
    out: dict[str, Any] = {"name": name}
    r.came_from(("metadata", "name"), ("metadata", "name"))
    if meta.get("namespace") is not None:
        out["namespace"] = meta["namespace"]
        r.came_from(("metadata", "namespace"), ("metadata", "namespace"))
    for kind in ("labels", "annotations"):
        values = {}
        for key, value in r.mapping(("metadata", kind)).items():
            if key.startswith(MPIGEN_PREFIX) or key == MANAGED_BY or key == LAST_APPLIED:
                continue  # mpigen's own from an earlier render, and kubectl apply's record
            if kind == "labels" and key in ("app", "group_name", "mpi_job_name", "mpi_role_type"):
                r.lost(("metadata", kind, key), f"the label {key} (a blueprint cannot take it: the operator writes "
                                                "that key on its objects)")
                continue
            values[key] = value
            r.came_from(("metadata", kind, key), ("metadata", kind, key))
        if values:
            out[kind] = values
    return out


def _replicas(r: Reader) -> bool:
    """The replica specs' shape, as the operator and its API validate it."""
    loc = ("spec", "mpiReplicaSpecs")
    replicas = r.mapping(loc)
    if "Launcher" not in replicas:
        r.refuse(loc if loc[1] in r.mapping(("spec",)) else ("spec",), "an MPIJob needs mpiReplicaSpecs with a "
                                                                      "Launcher")
        return False
    for role, replica in replicas.items():
        if role not in ("Launcher", "Worker"):
            if r.api == V1ALPHA2:
                r.lost(loc + (role,), f"the replica type {role!r} (the operator runs only Launcher and Worker)")
            else:
                r.refuse(loc + (role,), f"{role!r} is not a replica type; the operator accepts Launcher and Worker")
            continue
        for key in r.mapping(loc + (role,)):
            if key not in ("replicas", "template", "restartPolicy"):
                r.lost(loc + (role, key), f"not a field of a replica spec (the API server drops it)")
    count = r.get(loc + ("Launcher", "replicas"), 1)
    if count != 1 or isinstance(count, bool):
        r.refuse(loc + ("Launcher", "replicas"), "an MPIJob has exactly one launcher: replicas must be 1")
    workers = r.get(loc + ("Worker", "replicas"))
    if "Worker" not in replicas or workers is None:
        why = ("the v1alpha2 operator needs Worker.replicas (it fails on a job without it)" if r.api == V1ALPHA2
               else "a blueprint needs at least one worker; a job without workers cannot be imported")
        r.refuse(loc + ("Worker",) if "Worker" in replicas else loc, why)
        return False
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        r.refuse(loc + ("Worker", "replicas"), "Worker.replicas must be a whole number of at least 1")
        return False
    return True


def _restart_policies(r: Reader) -> None:
    for role, rendered in RENDERED_RESTART[r.api].items():
        loc = ("spec", "mpiReplicaSpecs", role, "restartPolicy")
        value = r.get(loc)
        if value is not None and not isinstance(value, str):
            r.refuse(loc, "a restart policy is a string: Never, OnFailure, Always or ExitCode")
            continue
        if r.api == V2BETA1 and value not in (None, "Never", "OnFailure"):
            r.refuse(loc, f"the v2beta1 operator accepts Never and OnFailure, not {value!r}")
            continue
        if r.api == V1ALPHA2 and role == "Launcher" and value != "Never":
            continue  # the v1alpha2 default: OnFailure unless Never
        if rendered is not None and value not in (None, rendered):
            r.lost(loc, f"the {role.lower()}'s restart policy {value} (a blueprint's {role.lower()} pods restart "
                        f"{rendered})")


def _implementation(r: Reader, spec: dict) -> str:
    key = IMPLEMENTATION_FIELD.get(r.api)
    if key is None or spec.get(key) is None:
        return "OpenMPI"
    known = IMPLEMENTATIONS[r.api]
    if spec[key] not in known:
        r.refuse(("spec", key), f"unknown MPI implementation; the operator knows {', '.join(known)}")
        return "OpenMPI"
    r.came_from(("mpiImplementation",), ("spec", key))
    return known[spec[key]]


def _gpus(r: Reader, worker: dict, out: dict) -> None:
    gpus = worker["gpus"]
    loc = worker["cloc"] + ("resources", "limits")
    for extra in list(gpus)[1:]:
        r.lost(loc + (extra,), f"a second accelerator, {extra} (a container gets one accelerator type)")
    for name, count in list(gpus.items())[:1]:
        if not count.isdigit():
            r.refuse(loc + (name,), f"{name} is an extended resource: a whole number, not {count!r}")
        elif int(count) == 0:
            r.lost(loc + (name,), f"{name}: 0 (a blueprint without GPUs writes no accelerator limit)")
        else:
            out["gpusPerWorker"], out["gpuResource"] = int(count), name
            r.came_from(("gpusPerWorker",), loc + (name,))
            r.came_from(("gpuResource",), loc + (name,))


def _container_names(r: Reader, spec: dict, launcher: dict, worker: dict, out: dict) -> None:
    """A blueprint names the MPI containers mpi-launcher and mpi-worker, or both
    spec.mainContainer (which, before v2beta1, also makes kubexec.sh exec --container it)."""
    main = spec.get("mainContainer") if r.api != V2BETA1 else None
    names = {part["role"]: part["name"] for part in (launcher, worker)}
    if main is None and names == DEFAULT_CONTAINERS:
        return
    if main is None and names["Launcher"] == names["Worker"]:
        main = names["Launcher"]
        if r.api != V2BETA1:
            r.differs(launcher["cloc"] + ("name",),
                      f"both MPI containers are named {main!r}; a blueprint keeps the names only as spec.mainContainer,"
                      f" which the imported blueprint sets, so kubexec.sh also runs kubectl exec --container {main} "
                      "(the same container)")
    if main is not None:
        out["mainContainer"] = main
        r.came_from(("mainContainer",), ("spec", "mainContainer") if "mainContainer" in spec
                    else launcher["cloc"] + ("name",))
    for part in (launcher, worker):
        wanted = main if main is not None else DEFAULT_CONTAINERS[part["role"]]
        if part["name"] != wanted:
            r.differs(part["cloc"] + ("name",), f"the {part['role'].lower()} container {part['name']!r} is renamed "
                                                f"{wanted!r}: a blueprint names its MPI containers "
                                                + ("spec.mainContainer" if main is not None else
                                                   "mpi-launcher and mpi-worker (or both spec.mainContainer)"))


def _env(r: Reader, launcher: dict, worker: dict, out: dict, rank_env: bool) -> None:
    """The blueprint's env is set on both roles, in its order: the launcher's entries,
    each one the workers have too, in the same order."""
    entries = {}
    for part in (launcher, worker):
        kept = []
        for name, value, loc in read_env(r, part):
            if part is launcher and ADDED_ENV.get(name) == value:
                continue  # mpigen's own (its mpijob target writes it)
            if part is launcher and rank_env and name in RENDEZVOUS_ENV:
                continue  # mpigen's PyTorch/DeepSpeed preset sets these on the launcher
            kept.append((name, value, loc))
        entries[part["role"]] = kept
    env: dict[str, str] = {}
    for name, value, loc in entries["Launcher"]:
        if name in env:
            r.differs(loc, f"{name} is set twice; the imported env keeps the last value, once")
        env[name] = value
        r.came_from(("env", name), loc)
    ours = [(n, v) for n, v, _ in entries["Launcher"]]
    theirs = [(n, v) for n, v, _ in entries["Worker"]]
    if ours != theirs:
        for name, value, loc in entries["Worker"]:
            if env.get(name) != value:
                r.lost(loc, f"the workers' {name}={value!r}, which the launcher does not set so (a blueprint's env "
                            "is the same on both)")
        missing = [loc for name, _, loc in entries["Launcher"] if (name, env[name]) not in theirs]
        if missing or not any(env.get(n) != v for n, v in theirs):
            r.differs(missing[0] if missing else worker["cloc"] + ("env",),
                      "the workers' env is not the launcher's, in the same order; a blueprint's env is set on both, "
                      "so the workers get the launcher's")
    if env:
        out["env"] = env


def _worker_command(r: Reader, worker: dict) -> None:
    """The operator runs `sleep 365d` (v2beta1: sshd) in a worker whose command is empty
    (v2beta1: command and args); a blueprint's workers always get that."""
    cloc = worker["cloc"]
    if worker["command"]:
        idle = "/usr/sbin/sshd -De" if r.api == V2BETA1 else "sleep 365d"
        r.lost(cloc + ("command",), f"the workers' command {worker['command']!r}, which the operator keeps as "
                                    f"written (it runs {idle} only when there is none); a blueprint's workers run "
                                    f"{idle}")
    elif worker["args"] and r.api == V2BETA1:
        r.lost(cloc + ("args",), "the workers' args, which the v2beta1 operator keeps (it runs /usr/sbin/sshd -De "
                                 "only when command and args are both empty); a blueprint's workers run sshd")


def _networks(r: Reader, launcher: dict, worker: dict, out: dict) -> None:
    """The workers' Multus annotation, which rendering writes from spec.network."""
    import re

    from mpigen.compile import MULTUS_NETWORKS

    value = worker["annotations"].get(MULTUS_NETWORKS)
    if value is None or MULTUS_NETWORKS in launcher["annotations"]:
        return
    names = value.split(",")
    if all(re.fullmatch(r"([a-z0-9]([-a-z0-9]*[a-z0-9])?/)?[a-z0-9]([-a-z0-9]*[a-z0-9])?", n) for n in names):
        out["network"] = {"secondaryNetworks": names}
        r.came_from(("network",), worker["loc"] + ("metadata", "annotations", MULTUS_NETWORKS))
        del worker["annotations"][MULTUS_NETWORKS]


def _run_policy(r: Reader, spec: dict, out: dict, queue) -> None:
    loc = ("spec", "runPolicy")
    policy = r.mapping(loc)
    for key in policy:
        if key not in RUN_POLICY_FIELDS[r.api]:
            r.lost(loc + (key,), f"not a field of the {r.api} runPolicy (the API server drops it)")
    result: dict[str, Any] = {}
    for key in ("backoffLimit", "activeDeadlineSeconds", "ttlSecondsAfterFinished", "cleanPodPolicy"):
        top = key in spec and key in SPEC_FIELDS[r.api]
        if key in policy and not (r.api == V1ALPHA2 and key in ("ttlSecondsAfterFinished", "cleanPodPolicy")):
            result[key] = policy[key]
            r.came_from(("runPolicy", key), loc + (key,))
        elif top:
            result[key] = spec[key]
            r.came_from(("runPolicy", key), ("spec", key))
    if r.api == V1ALPHA2:
        if "ttlSecondsAfterFinished" in policy:
            r.lost(loc + ("ttlSecondsAfterFinished",), "the v1alpha2 operator ignores runPolicy.ttlSecondsAfterFinished")
        if "cleanPodPolicy" in policy and policy["cleanPodPolicy"] != result.get("cleanPodPolicy", "None"):
            r.lost(loc + ("cleanPodPolicy",), "the v1alpha2 operator reads spec.cleanPodPolicy, not this one")
    if "schedulingPolicy" in policy:
        r.lost(loc + ("schedulingPolicy",), "gang scheduling (which scheduler is the operator's --gang-scheduling "
                                            "flag; set spec.scheduling.gang by hand)")
    if policy.get("managedBy") not in (None, "", "kubeflow.org/mpi-operator"):
        r.lost(loc + ("managedBy",), f"runPolicy.managedBy {policy['managedBy']!r}")
    if policy.get("suspend") is True and queue is None:  # with a Kueue queue, suspend is Kueue's
        out["state"] = "completed"
        r.came_from(("state",), loc + ("suspend",))
    if result:
        out["runPolicy"] = result


def _v2beta1_fields(r: Reader, spec: dict, out: dict, implementation: str) -> None:
    if r.api != V2BETA1:
        return  # the others have none of these (an API server drops them: reported as unknown)
    if spec.get("sshAuthMountPath") not in (None, "/root/.ssh"):
        out.setdefault("security", {})["sshAuthMountPath"] = spec["sshAuthMountPath"]
        r.came_from(("security",), ("spec", "sshAuthMountPath"))
    if True:
        # The blueprint's default waits for Hydra's workers (IntelMPI, MPICH) and not for Open MPI's;
        # the operator's default is AtStartup, and it waits for any other value.
        waits = spec.get("launcherCreationPolicy", "AtStartup") != "AtStartup"
        if waits != (implementation != "OpenMPI"):
            out["launcher"] = {"waitForWorkers": waits}
            r.came_from(("launcher",), ("spec", "launcherCreationPolicy"))
    if spec.get("runLauncherAsWorker") not in (None, False):
        r.lost(("spec", "runLauncherAsWorker"), "runLauncherAsWorker (the launcher's template would have to "
                                                "match the workers'; set spec.launcher.runAsWorker by hand)")


def _pod_fields(launcher: dict, worker: dict, out: dict) -> None:
    """Pod fields that blueprint fields express, out of the roles' patches: pull secrets
    both pods share, and the rank-host anti-affinity mpigen writes for onePodPerNode."""
    from mpigen.compile import EXCLUSIVE_LABEL

    pods = [launcher["patch"]["pod"], worker["patch"]["pod"]]
    secrets = [pod.get("imagePullSecrets") for pod in pods]
    if isinstance(secrets[0], list) and secrets[0] and all(s == secrets[0] for s in secrets) \
            and all(isinstance(s, dict) and set(s) == {"name"} for s in secrets[0]):
        out["imagePullSecrets"] = [s["name"] for s in secrets[0]]
        for pod in pods:
            del pod["imagePullSecrets"]
    pod = worker["patch"]["pod"]
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


def _launch(r: Reader, launcher: dict, argv: list[str], implementation: str, spec: dict) -> dict:
    from mpigen.import_launch import launch_fields

    cloc = launcher["cloc"]
    if not launcher["command"]:
        if not launcher["args"]:
            r.refuse(cloc, "the launcher container has no command, so it runs its image's entrypoint, which a "
                           "blueprint cannot name; write the launcher's command out (a blueprint needs "
                           "spec.command or spec.launcherCommand)")
            return {}
        r.differs(cloc + ("args",), "args without a command run the image's entrypoint with them; a blueprint "
                                    "cannot express that, so the imported launcher runs the args as its command")
    fields = launch_fields(argv, implementation, spec)
    for key in fields:
        r.came_from((key,), cloc + ("command",) if launcher["command"] else cloc + ("args",))
    return fields


def _check_blueprint(r: Reader, blueprint: dict) -> None:
    """What mpigen would refuse in the blueprint, reported where its value came from."""
    from mpigen.emit import dump_object
    from mpigen.load import parse
    from mpigen.validate import validate_document

    doc = parse(dump_object(blueprint), "imported")[0]
    _, diagnostics = validate_document(doc)
    where = {(m.line, m.column): loc for marks in (doc.value_marks, doc.key_marks) for loc, m in marks.items()}
    for diagnostic in diagnostics:
        if diagnostic.severity != "error":
            continue
        loc = where.get((diagnostic.mark.line, diagnostic.mark.column), ())
        origin = next((r.origins[loc[:n]] for n in range(len(loc), 0, -1) if loc[:n] in r.origins), ("spec",))
        r.refuse(origin, f"mpigen cannot take what this says: {diagnostic.message}")
