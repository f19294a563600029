"""`mpigen import`, the pod templates: what each role's template says, read field by field.

Each replica's template becomes a role: its MPI container (the first, which every operator
generation edits) and what the blueprint keeps of the pod. A field the blueprint has no
field for goes to the role's podTemplatePatch when the patch accepts it; what neither can
carry, and what the operator itself overwrites, is decided here with the operator's rules
(shared/reference/mpi-operator.md sections 2.5, 2.6, 3.6, 3.7, 4.6, 4.7).
"""

from __future__ import annotations

from mpigen.compile.api_token import TOKEN, calls_api, names_account
from mpigen.compile.blueprint import least_privilege
from mpigen.compile.mpijob import V1ALPHA2, V2BETA1
from mpigen.compile.root_sshd import STANDARD_ROOT_CAPABILITIES
from mpigen.formats.pod_template_patch import CONTAINER_FIELDS as PATCHABLE_CONTAINER, POD_FIELDS as PATCHABLE_POD
from mpigen.formats.types import number_to_string
from mpigen.kube.accelerators import is_accelerator
from mpigen.kube.data import copy_data

# Pod and container fields read into blueprint fields here (or in mpigen.decompile.volumes).
POD_READ = {"containers", "volumes", "nodeSelector", "tolerations", "affinity"}
CONTAINER_READ = {"name", "image", "command", "args", "env", "resources", "volumeMounts"}
# Template metadata the API server writes, which `kubectl get -o yaml` shows: not the user's.
SERVER_TEMPLATE_METADATA = {"creationTimestamp"}
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
            "placement": {}, "patch": {"pod": {}, "container": {}}, "privileged": False}
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
        if key == TOKEN and value is False and not calls_api(r.api, part["role"]) and not names_account(pod):
            continue  # what mpigen renders there anyway (mpigen.compile.api_token)
        if key in ("serviceAccountName", "serviceAccount") and part["role"] == "Launcher":
            if r.api != V1ALPHA2 and value != r.identity:  # v1alpha2 writes <job>-launcher over it (2.6)
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
    for key in ("nodeSelector", "tolerations", "affinity"):
        if pod.get(key) and (key != "affinity" or _typed(r, loc + (key,), pod[key])):
            part["placement"][key] = copy_data(pod[key])
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
        part["privileged"] = context.pop("privileged", None) is True  # spec.security.privileged on rank pods
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
    written = least_privilege([])
    context = copy_data(context)
    if context.get("allowPrivilegeEscalation") == written["allowPrivilegeEscalation"]:
        del context["allowPrivilegeEscalation"]
    capabilities = context.get("capabilities")
    if isinstance(capabilities, dict):
        if capabilities.get("drop") == written["capabilities"]["drop"]:
            del capabilities["drop"]
        if sshd and isinstance(capabilities.get("add"), list):
            capabilities["add"] = [c for c in capabilities["add"] if c not in STANDARD_ROOT_CAPABILITIES]
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
            if part["role"] == "Worker" or (r.launcher_as_worker and r.get(("spec", "runLauncherAsWorker")) is True):
                part["gpus"][name] = limits.pop(name)  # a launcher that is a worker: mpigen.decompile.own_objects
            else:
                limits.pop(name)
                r.lost(rloc + ("limits", name), f"the launcher's accelerator {name} (a blueprint's launcher only "
                                                "runs mpirun and gets none)")
        else:
            r.came_from(("resources", role, name), rloc + ("limits", name))
    part["limits"] = limits


def _quantity(value) -> str:
    value = number_to_string(value)
    return value if isinstance(value, str) else str(value)


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
