"""`mpigen import`, the pod templates: what each role's template says, read field by field.

Each replica's template becomes a role: its MPI container (the first, which every operator
generation edits) and what the blueprint keeps of the pod. A field the blueprint has no
field for goes to the role's podTemplatePatch when the patch accepts it; what neither can
carry, and what the operator itself overwrites, is decided here with the operator's rules
(shared/reference/mpi-operator.md sections 2.5, 2.6, 3.6, 3.7, 4.6, 4.7).
"""

from __future__ import annotations

import copy

from mpigen.blueprint import CONTAINER_FIELDS as PATCHABLE_CONTAINER
from mpigen.blueprint import POD_FIELDS as PATCHABLE_POD
from mpigen.blueprint import is_accelerator
from mpigen.launch import RENDEZVOUS_ENV
from mpigen.render.launcher import HOSTFILE_PATH, KUBEXEC_PATH
from mpigen.render.mpijob import SSHD_ROOT_CAPABILITIES

V1ALPHA2, V1, V2BETA1 = "kubeflow.org/v1alpha2", "kubeflow.org/v1", "kubeflow.org/v2beta1"
# Pod and container fields read into blueprint fields here (or in import_volumes).
POD_READ = {"containers", "volumes", "nodeSelector", "tolerations"}
CONTAINER_READ = {"name", "image", "command", "args", "env", "resources", "volumeMounts"}
# Template metadata the API server writes, which `kubectl get -o yaml` shows: not the user's.
SERVER_TEMPLATE_METADATA = {"creationTimestamp"}
# Label keys the v1alpha2 controller writes over the template's, and mpigen's own.
OPERATOR_POD_LABELS = ("group_name", "mpi_job_name", "mpi_role_type")
MANAGED_BY = "app.kubernetes.io/managed-by"
DEFAULT_CONTAINERS = {"Launcher": "mpi-launcher", "Worker": "mpi-worker"}  # compile's, without mainContainer
# What mpigen (its mpijob target) writes into the launcher's env itself: not the user's.
ADDED_ENV = {"PRTE_MCA_plm_ssh_agent": KUBEXEC_PATH, "PRTE_MCA_prte_default_hostfile": HOSTFILE_PATH}
# The JSON type of each pod and container field that goes to podTemplatePatch (core/v1):
# a value of another type is one the API server refuses, and mpigen's render cannot edit.
_LIST, _MAP, _TEXT, _INT, _BOOL = list, dict, str, int, bool
FIELD_TYPES = {
    **dict.fromkeys(("initContainers", "imagePullSecrets", "hostAliases", "readinessGates", "resourceClaims",
                     "topologySpreadConstraints", "schedulingGates", "ephemeralContainers", "ports", "envFrom",
                     "volumeDevices", "resizePolicy"), _LIST),
    **dict.fromkeys(("affinity", "securityContext", "dnsConfig", "os", "overhead", "lifecycle", "livenessProbe",
                     "readinessProbe", "startupProbe"), _MAP),
    **dict.fromkeys(("schedulerName", "priorityClassName", "dnsPolicy", "serviceAccountName", "serviceAccount",
                     "nodeName", "runtimeClassName", "preemptionPolicy", "imagePullPolicy", "workingDir",
                     "terminationMessagePath", "terminationMessagePolicy", "restartPolicy"), _TEXT),
    **dict.fromkeys(("terminationGracePeriodSeconds", "activeDeadlineSeconds", "priority"), _INT),
    **dict.fromkeys(("hostNetwork", "hostPID", "hostIPC", "shareProcessNamespace", "automountServiceAccountToken",
                     "enableServiceLinks", "setHostnameAsFQDN", "hostUsers", "stdin", "stdinOnce", "tty"), _BOOL),
}
_WORDS = {_LIST: "a list", _MAP: "a mapping", _TEXT: "a string", _INT: "a whole number", _BOOL: "true or false"}
# Label keys a blueprint refuses (validate._check_reserved_metadata): the operator's.
RESERVED_LABELS = ("app", *OPERATOR_POD_LABELS)
MPIGEN_PREFIX = "mpigen.dev/"


def read_role(r, role: str) -> dict | None:
    """The role's MPI container and pod, or None (reported) when the template has no
    usable container."""
    loc = ("spec", "mpiReplicaSpecs", role, "template")
    r.mapping(loc)
    meta = r.mapping(loc + ("metadata",))
    for key in meta:
        if key not in ("labels", "annotations") and key not in SERVER_TEMPLATE_METADATA:
            r.lost(loc + ("metadata", key), f"the {role.lower()} template's metadata.{key}")
    pod = r.mapping(loc + ("spec",))
    containers = r.listing(loc + ("spec", "containers"))
    if not containers:
        r.refuse(loc + ("spec", "containers") if "containers" in pod else loc,
                 f"the {role.lower()} pod has no container: the operator creates nothing for it (its event "
                 f"'Resource \"{role}\" is missing in yaml'); add the MPI container")
        return None
    for extra in range(1, len(containers)):
        r.lost(loc + ("spec", "containers", extra), f"an extra container in the {role.lower()} pod (a blueprint "
                                                    "has one container per pod; the operator edits the first)")
    cloc = loc + ("spec", "containers", 0)
    container = r.mapping(cloc)
    name, image = container.get("name"), container.get("image")
    for key, value in (("name", name), ("image", image)):
        if not isinstance(value, str) or not value:
            r.refuse(cloc + (key,) if key in container else cloc,
                     f"the {role.lower()} container needs a{'n' if key == 'image' else ''} {key} (the API server "
                     "refuses the pod without one)")
    part = {"role": role, "loc": loc, "cloc": cloc, "name": name, "image": image,
            "labels": _strings(r, loc + ("metadata", "labels")),
            "annotations": _strings(r, loc + ("metadata", "annotations")),
            "command": _args(r, cloc + ("command",)), "args": _args(r, cloc + ("args",)),
            "env": r.listing(cloc + ("env",)), "mounts": r.listing(cloc + ("volumeMounts",)),
            "volumes": r.listing(loc + ("spec", "volumes")), "vloc": loc + ("spec", "volumes"),
            "placement": {}, "patch": {"pod": {}, "container": {}}}
    _pod_fields(r, part, pod)
    _container_fields(r, part, container)
    _resources(r, part, r.mapping(cloc + ("resources",)))
    return part


def _strings(r, loc) -> dict:
    values = r.mapping(loc)
    for key, value in values.items():
        if not isinstance(value, str):
            r.refuse(loc + (key,), f"{'label' if loc[-1] == 'labels' else 'annotation'} values are strings; "
                                   "quote it")
    return {k: v for k, v in values.items() if isinstance(v, str)}


def _args(r, loc) -> list:
    values = r.listing(loc)
    if any(not isinstance(v, str) for v in values):
        r.refuse(loc, "command and args are lists of strings; quote the numbers")
        return [str(v) for v in values]
    return list(values)


def _pod_fields(r, part: dict, pod: dict) -> None:
    role, loc = part["role"].lower(), part["loc"] + ("spec",)
    for key, value in pod.items():
        if key in POD_READ:
            continue
        if key == "restartPolicy":
            continue  # every operator writes the replica's restartPolicy over it (read with the replica)
        if key in ("hostname", "subdomain") and r.api == V2BETA1:
            continue  # v2beta1 writes them (4.6, 4.7)
        if key in ("serviceAccountName", "serviceAccount") and part["role"] == "Launcher":
            if r.api != V1ALPHA2:  # v1alpha2 writes <job>-launcher over it (2.6)
                r.lost(loc + (key,), f"the launcher's service account {value!r} (a blueprint's launcher runs as "
                                     "<name>-launcher, which its Role is bound to)")
            continue
        if key in PATCHABLE_POD and key not in ("hostname", "subdomain"):
            if not _typed(r, loc + (key,), value):
                continue
            part["patch"]["pod"][key] = value
            r.came_from(("podTemplatePatch", role, "pod", key), loc + (key,))
        else:
            r.lost(loc + (key,), f"the {role} pod's {key}")
    for key in ("nodeSelector", "tolerations"):
        if pod.get(key):
            part["placement"][key] = pod[key]
            r.came_from(("placement", role, key), loc + (key,))


def _container_fields(r, part: dict, container: dict) -> None:
    role, cloc = part["role"].lower(), part["cloc"]
    patch = part["patch"]["container"]
    for key, value in container.items():
        if key in CONTAINER_READ:
            continue
        if key in PATCHABLE_CONTAINER:
            if not _typed(r, cloc + (key,), value):
                continue
            patch[key] = value
            r.came_from(("podTemplatePatch", role, "container", key), cloc + (key,))
        else:
            r.lost(cloc + (key,), f"the {role} container's {key}")
    if isinstance(patch.get("securityContext"), dict):
        context = _without_least_privilege(patch["securityContext"], sshd=r.api == V2BETA1 and role == "worker")
        if context:
            patch["securityContext"] = context
        else:
            del patch["securityContext"]


def _typed(r, loc, value) -> bool:
    """Whether a field has its Kubernetes type (else refused: the API server would refuse it)."""
    kind = FIELD_TYPES.get(loc[-1])
    if kind is not None and not (isinstance(value, kind) and (kind is bool or not isinstance(value, bool))):
        r.refuse(loc, f"expected {_WORDS[kind]}")
        return False
    if loc[-1] == "securityContext" and "capabilities" in value:
        capabilities = value["capabilities"]
        if not isinstance(capabilities, dict) or not all(isinstance(capabilities.get(k, []), list)
                                                         for k in ("add", "drop")):
            r.refuse(loc + ("capabilities",), "expected a mapping whose add and drop are lists")
            return False
    return True


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


def _resources(r, part: dict, resources: dict) -> None:
    """Limits, as the blueprint writes them (requests equal to the limits are what
    Kubernetes sets from limits anyway); accelerators are the workers' gpusPerWorker."""
    role, rloc = part["role"].lower(), part["cloc"] + ("resources",)
    for key in resources:
        if key not in ("limits", "requests"):
            r.lost(rloc + (key,), f"the {role} container's resources.{key}")
    limits = {k: _quantity(v) for k, v in r.mapping(rloc + ("limits",)).items()}
    for name, value in r.mapping(rloc + ("requests",)).items():
        if name not in limits:
            r.lost(rloc + ("requests", name), "a request without a limit (a blueprint sets limits, and Kubernetes "
                                              "sets each request to its limit)")
        elif limits[name] != _quantity(value):
            r.lost(rloc + ("requests", name), "a request different from its limit (a blueprint sets limits, and "
                                              "Kubernetes sets each request to its limit)")
    part["gpus"] = {}
    for name in list(limits):
        if is_accelerator(name):
            if part["role"] == "Worker":
                part["gpus"][name] = limits.pop(name)
            else:
                limits.pop(name)
                r.lost(rloc + ("limits", name), f"the launcher's accelerator {name} (a blueprint's launcher only "
                                                "runs mpirun and gets none)")
        else:
            r.came_from(("resources", role, name), rloc + ("limits", name))
    part["limits"] = limits


def _quantity(value) -> str:
    from mpigen.blueprint import _number_to_string

    value = _number_to_string(value)
    return value if isinstance(value, str) else str(value)


def read_env(r, part: dict) -> list[tuple[str, str, tuple]]:
    """(name, value, where) of each plain env entry; what else an entry says is reported."""
    out = []
    for index, entry in enumerate(part["env"]):
        loc = part["cloc"] + ("env", index)
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"]:
            r.refuse(loc, "an env entry needs a name")
            continue
        for key in entry:
            if key not in ("name", "value"):
                r.lost(loc + (key,), f"the env variable {entry['name']}'s {key} (a blueprint's env has plain "
                                     "values; spec.podTemplatePatch.<role>.container.envFrom takes whole "
                                     "ConfigMaps and Secrets)")
        if "valueFrom" in entry:
            continue
        value = entry.get("value", "")
        if not isinstance(value, str):
            r.refuse(loc + ("value",), "env values are strings; quote it")
            continue
        out.append((entry["name"], value, loc))
    return out


def template_metadata(r, metadata: dict, roles: list[dict]) -> None:
    """The templates' labels and annotations into the blueprint's metadata, which rendering
    puts on both pod templates (and, as the contract has it, on every object): a value on
    both templates is carried exactly; one on a single template reaches the other role's
    pods too (reported); a conflicting value is left out (reported)."""
    for kind in ("labels", "annotations"):
        blueprint = metadata.setdefault(kind, {})
        keys = sorted({k for part in roles for k in part[kind]})
        for key in keys:
            if key.startswith(MPIGEN_PREFIX) or key == MANAGED_BY:
                continue  # mpigen's own, from an earlier render
            if kind == "labels" and key in OPERATOR_POD_LABELS and r.api == V1ALPHA2:
                continue  # the controller writes its own value over the template's
            holders = [part for part in roles if key in part[kind]]
            if kind == "labels" and key in RESERVED_LABELS:
                for part in holders:
                    r.lost(part["loc"] + ("metadata", kind, key), f"the label {key}, a key the operator writes on "
                                                                  "its own objects")
                continue
            values = {part[kind][key] for part in holders}
            if key in blueprint:
                values.add(blueprint[key])
            where = lambda part: part["loc"] + ("metadata", kind, key)  # noqa: E731
            if len(values) > 1:
                for part in holders:
                    if part[kind][key] != blueprint.get(key):
                        r.lost(where(part), f"the {part['role'].lower()} template's {kind[:-1]} {key} (it differs "
                                            "from the other's, and a blueprint's go on both pod templates)")
                continue
            if key not in blueprint:
                blueprint[key] = values.pop()
                r.came_from(("metadata", kind, key), where(holders[0]))
            if len(holders) < len(roles):
                part = holders[0]
                other = "worker" if part["role"] == "Launcher" else "launcher"
                r.differs(where(part), f"a {kind[:-1]} of the {part['role'].lower()} template only; a blueprint "
                                       f"cannot express that, so the imported blueprint puts it in "
                                       f"metadata.{kind}, which the {other}'s pods get too")
        if not blueprint:
            del metadata[kind]


def gpus(r, worker: dict, out: dict) -> None:
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


def container_names(r, spec: dict, launcher: dict, worker: dict, out: dict) -> None:
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


def env(r, launcher: dict, worker: dict, out: dict, rank_env: bool) -> None:
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
        _env_differences(r, entries, env, worker)
    if env:
        out["env"] = env


def _env_differences(r, entries: dict, env: dict, worker: dict) -> None:
    reported = False
    for name, value, loc in entries["Worker"]:
        if env.get(name) != value:
            now = f"sets to {env[name]!r}" if name in env else "does not set"
            r.lost(loc, f"the workers' {name}={value!r}, which the launcher {now} (a blueprint's env is the same "
                        "on both)")
            reported = True
    names = {name for name, _, _ in entries["Worker"]}
    for name, _, loc in entries["Launcher"]:
        if name not in names:
            r.differs(loc, f"{name} is set on the launcher only; a blueprint cannot express that: its env is set "
                           "on both, so the imported workers get it too")
            reported = True
    if not reported:  # the same variables, in another order
        r.differs(worker["cloc"] + ("env",), "the workers' env lists the launcher's variables in another order; "
                                             "a blueprint cannot express that: its env is set on both in the "
                                             "launcher's order")


def worker_command(r, worker: dict) -> None:
    """The operator runs `sleep 365d` (v2beta1: sshd) in a worker whose command is empty
    (v2beta1: command and args); a blueprint's workers always get that."""
    cloc = worker["cloc"]
    if worker["command"]:
        idle = "/usr/sbin/sshd -De" if r.api == V2BETA1 else "sleep 365d"
        r.differs(cloc + ("command",), f"the operator runs the workers' command {worker['command']!r} as written "
                                       f"(it runs {idle} only when there is none); a blueprint cannot express it: "
                                       f"its workers run {idle}")
    elif worker["args"] and r.api == V2BETA1:
        r.differs(cloc + ("args",), "the v2beta1 operator keeps the workers' args (it runs /usr/sbin/sshd -De only "
                                    "when command and args are both empty); a blueprint cannot express them: its "
                                    "workers run sshd")


def networks(r, launcher: dict, worker: dict, out: dict) -> None:
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
