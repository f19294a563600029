"""What the MPI Operator makes of an MPIJob, written from shared/reference/mpi-operator.md
(not from mpigen's code), for the import round trips of tests/acceptance/importing/:

- `controller_objects`: the objects the v1alpha2 controller (MO@c5c0c3e, section 2)
  creates for a kubeflow.org/v1alpha2 MPIJob, before any API server defaulting, without
  ownerReferences (no UID), with the operator's default kubectl-delivery image;
- `defaulted`: a kubeflow.org/v1 or v2beta1 MPIJob with every default its operator applies
  written out (sections 3.1 and 4.1), which is what mpigen's mpijob target writes;
- `comparable`: rendered objects less the differences the contract allows (section 2:
  mpigen's own labels, the blueprint's labels and annotations on every object, Open MPI
  5's PRTE_ variables, least privilege in mpigen's containers), and both sides written the
  same way where Kubernetes reads them the same (requests equal to limits, command and
  args joined, volumes and mounts by name, quantities as strings).
"""

from __future__ import annotations

import copy

KUBEXEC = ('#!/bin/sh\nset -x\nPOD_NAME=$1\nwhile [ ${POD_NAME%${POD_NAME#?}} = "-" ]\ndo\nshift\nPOD_NAME=$1\n'
           'done\nshift\n/opt/kube/kubectl cp /opt/kube/hosts ${POD_NAME}:/etc/hosts_of_nodes\n'
           '/opt/kube/kubectl exec ${POD_NAME}{container} -- /bin/sh -c "cat /etc/hosts_of_nodes >> /etc/hosts && $*"')
DELIVERY_RESOURCES = {"cpu": "100m", "memory": "512Mi", "ephemeral-storage": "5Gi"}
ENV_NAMES = {"IntelMPI": ("I_MPI_HYDRA_BOOTSTRAP_EXEC", "I_MPI_HYDRA_HOST_FILE"),
             "MPICH": ("HYDRA_LAUNCHER_EXEC", "HYDRA_HOST_FILE")}
OPENMPI_ENV = ("OMPI_MCA_plm_rsh_agent", "OMPI_MCA_orte_default_hostfile")
LEAST_PRIVILEGE = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
TOKEN = "automountServiceAccountToken"  # off where mpigen's pods call no API (issue 37)
MPIGEN_LABELS = ("app.kubernetes.io/managed-by",)
# Open MPI 5's names for the launch agent and the hostfile, which mpigen adds (contract 2).
PRTE = ({"name": "PRTE_MCA_plm_ssh_agent", "value": "/etc/mpi/kubexec.sh"},
        {"name": "PRTE_MCA_prte_default_hostfile", "value": "/etc/mpi/hostfile"})
SSHD_ROOT_CAPABILITIES = ["AUDIT_WRITE", "KILL", "NET_BIND_SERVICE", "SETGID", "SETUID", "SYS_CHROOT"]


def _role_labels(name: str, role: str) -> dict:
    return {"group_name": "kubeflow.org", "mpi_job_name": name, "mpi_role_type": role}


def _template(template: dict, labels: dict) -> tuple[dict, dict]:
    template = copy.deepcopy(template)
    meta = template.setdefault("metadata", {})
    meta["labels"] = {**(meta.get("labels") or {}), **labels}  # the controller's values win (0.1)
    return template, template.setdefault("spec", {})


def controller_objects(mpijob: dict, delivery_image: str = "mpioperator/kubectl-delivery:latest") -> dict:
    """{kind: object} of what the v1alpha2 controller creates (2.2-2.6), gang scheduling off."""
    name, spec = mpijob["metadata"]["name"], mpijob["spec"]
    namespace = mpijob["metadata"].get("namespace", "default")
    return {**_config_objects(name, namespace, spec),
            "StatefulSet": _worker_set(name, namespace, spec),
            "Job": _launcher_job(name, namespace, spec, delivery_image)}


def _meta(object_name: str, namespace: str, labels: dict) -> dict:
    return {"name": object_name, "namespace": namespace, "labels": labels}


def _hostfile(name: str, spec: dict) -> str:
    """One line per worker pod, in the form of the MPI distribution's launcher."""
    workers = spec["mpiReplicaSpecs"]["Worker"]["replicas"]
    slots = spec.get("slotsPerWorker", 1)
    hydra = spec.get("mpiDistribution") in ("IntelMPI", "MPICH")
    return "".join(f"{name}-worker-{i}:{slots}\n" if hydra else f"{name}-worker-{i} slots={slots}\n"
                   for i in range(workers))


def _config_objects(name: str, namespace: str, spec: dict) -> dict:
    """The ConfigMap and the launcher's ServiceAccount, Role and RoleBinding."""
    workers = spec["mpiReplicaSpecs"]["Worker"]["replicas"]
    main = spec.get("mainContainer")
    app = {"app": name}
    pods = [f"{name}-worker-{i}" for i in range(workers)]
    return {
        "ConfigMap": {"apiVersion": "v1", "kind": "ConfigMap",
                      "metadata": _meta(f"{name}-config", namespace, dict(app)),
                      "data": {"hostfile": _hostfile(name, spec),
                               "kubexec.sh": KUBEXEC.replace("{container}", f" --container {main}" if main else "")}},
        "ServiceAccount": {"apiVersion": "v1", "kind": "ServiceAccount",
                           "metadata": _meta(f"{name}-launcher", namespace, dict(app))},
        "Role": {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                 "metadata": _meta(f"{name}-launcher", namespace, dict(app)),
                 "rules": [{"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["pods"]},
                           {"verbs": ["create"], "apiGroups": [""], "resources": ["pods/exec"], "resourceNames": pods}]},
        "RoleBinding": {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                        "metadata": _meta(f"{name}-launcher", namespace, dict(app)),
                        "subjects": [{"kind": "ServiceAccount", "name": f"{name}-launcher", "namespace": namespace}],
                        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                    "name": f"{name}-launcher"}},
    }


def _worker_set(name: str, namespace: str, spec: dict) -> dict:
    """The workers' StatefulSet."""
    workers = spec["mpiReplicaSpecs"]["Worker"]["replicas"]
    labels = _role_labels(name, "worker")
    template, pod = _template(spec["mpiReplicaSpecs"]["Worker"].get("template", {}), labels)
    pod["restartPolicy"] = "Always"
    container = pod["containers"][0]
    if not container.get("command"):  # 2.5: only an empty command is replaced
        container["command"], container["args"] = ["sleep"], ["365d"]
    container["volumeMounts"] = (container.get("volumeMounts") or []) + [{"name": "mpi-job-config",
                                                                         "mountPath": "/etc/mpi"}]
    pod["volumes"] = (pod.get("volumes") or []) + [{"name": "mpi-job-config", "configMap": {
        "name": f"{name}-config", "items": [{"key": "kubexec.sh", "path": "kubexec.sh", "mode": 365}]}}]
    return {
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": _meta(f"{name}-worker", namespace, dict(labels)),
        "spec": {"podManagementPolicy": "Parallel", "replicas": workers, "selector": {"matchLabels": dict(labels)},
                 "serviceName": f"{name}-worker", "template": template}}


def _launcher_job(name: str, namespace: str, spec: dict, delivery_image: str) -> dict:
    """The launcher's Job."""
    backoff, deadline = spec.get("backoffLimit", 6), spec.get("activeDeadlineSeconds")  # 2.1 defaults
    if spec.get("runPolicy") is not None:  # 2.6: its non-nil values win
        backoff = spec["runPolicy"].get("backoffLimit", backoff)
        deadline = spec["runPolicy"].get("activeDeadlineSeconds", deadline)
    labels = _role_labels(name, "launcher")
    template, pod = _template(spec["mpiReplicaSpecs"]["Launcher"].get("template", {}), labels)
    _launcher_pod(pod, name, namespace, spec, delivery_image)
    job_spec = {"backoffLimit": backoff, "template": template}
    if deadline is not None:
        job_spec["activeDeadlineSeconds"] = deadline
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": _meta(f"{name}-launcher", namespace, dict(labels)),
            "spec": job_spec}


def _launcher_pod(pod: dict, name: str, namespace: str, spec: dict, delivery_image: str) -> None:
    """What the controller writes into the launcher's pod spec: its ServiceAccount, the
    kubectl-delivery init container, the launch agent's and hostfile's variables and files."""
    pod["serviceAccountName"] = f"{name}-launcher"
    pod["initContainers"] = (pod.get("initContainers") or []) + [{
        "name": "kubectl-delivery", "image": delivery_image, "imagePullPolicy": "IfNotPresent",
        "env": [{"name": "TARGET_DIR", "value": "/opt/kube"}, {"name": "NAMESPACE", "value": namespace}],
        "volumeMounts": [{"name": "mpi-job-kubectl", "mountPath": "/opt/kube"},
                         {"name": "mpi-job-config", "mountPath": "/etc/mpi"}],
        "resources": {"limits": dict(DELIVERY_RESOURCES), "requests": dict(DELIVERY_RESOURCES)}}]
    container = pod["containers"][0]
    rsh, hosts = ENV_NAMES.get(spec.get("mpiDistribution"), OPENMPI_ENV)
    container["env"] = (container.get("env") or []) + [
        {"name": rsh, "value": "/etc/mpi/kubexec.sh"}, {"name": hosts, "value": "/etc/mpi/hostfile"},
        {"name": "NVIDIA_VISIBLE_DEVICES"}, {"name": "NVIDIA_DRIVER_CAPABILITIES"}]
    container["volumeMounts"] = (container.get("volumeMounts") or []) + [
        {"name": "mpi-job-kubectl", "mountPath": "/opt/kube"}, {"name": "mpi-job-config", "mountPath": "/etc/mpi"}]
    restart = spec["mpiReplicaSpecs"]["Launcher"].get("restartPolicy")
    pod["restartPolicy"] = "Never" if restart == "Never" else "OnFailure"
    pod["volumes"] = (pod.get("volumes") or []) + [
        {"name": "mpi-job-kubectl", "emptyDir": {}},
        {"name": "mpi-job-config", "configMap": {"name": f"{name}-config", "items": [
            {"key": "kubexec.sh", "path": "kubexec.sh", "mode": 365},
            {"key": "hostfile", "path": "hostfile", "mode": 292}]}}]


def defaulted(mpijob: dict) -> dict:
    """A kubeflow.org/v1 or v2beta1 MPIJob as a manifest (without what the API server and
    kubectl apply write into metadata) with its operator's defaults written out (3.1,
    4.1), a v1 worker's args dropped where the operator replaces them (3.6), and backoffLimit 6 (the Kubernetes Job's default, which v2beta1 passes on) and
    suspend false where unset, as mpigen's mpijob target writes every default."""
    job = copy.deepcopy(mpijob)
    spec, api = job["spec"], job["apiVersion"]
    job.pop("status", None)
    meta = job["metadata"]
    for key in ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"):
        meta.pop(key, None)  # the API server's, which no manifest applies
    meta.get("annotations", {}).pop("kubectl.kubernetes.io/last-applied-configuration", None)  # kubectl apply's
    meta.setdefault("namespace", "default")
    spec.setdefault("slotsPerWorker", 1)
    policy = spec.setdefault("runPolicy", {})
    policy.setdefault("cleanPodPolicy", spec.pop("cleanPodPolicy", "None"))
    policy.setdefault("backoffLimit", 6)
    if "kueue.x-k8s.io/queue-name" in meta.get("labels", {}):
        policy.pop("suspend", None)  # Kueue's to set (its webhook suspends, it admits), not Git's
    else:
        policy.setdefault("suspend", False)
    replicas = spec["mpiReplicaSpecs"]
    replicas["Launcher"].setdefault("replicas", 1)
    if api == "kubeflow.org/v2beta1":
        for key, value in (("runLauncherAsWorker", False), ("launcherCreationPolicy", "AtStartup"),
                           ("mpiImplementation", "OpenMPI"), ("sshAuthMountPath", "/root/.ssh")):
            spec.setdefault(key, value)
        replicas["Launcher"].setdefault("restartPolicy", "OnFailure")
        replicas["Worker"].setdefault("restartPolicy", "Never")
    else:
        replicas["Launcher"].setdefault("restartPolicy", "Never")
        replicas["Worker"].setdefault("restartPolicy", "Never")
        worker = replicas["Worker"]["template"]["spec"]["containers"][0]
        if not worker.get("command"):  # 3.6: the operator writes sleep 365d over command and args
            worker.pop("args", None)
    return job


def _quantity(value):
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return value


def _container(container: dict, launcher_main: bool) -> None:
    for key in ("command", "args", "env"):
        if container.get(key) == []:  # Go's omitempty: an empty list is not written
            del container[key]
    for entry in container.get("env", []):
        if entry.get("value") == "":  # reference 0.1: an empty value is not written
            del entry["value"]
    resources = container.get("resources")
    if resources:
        for part in ("limits", "requests"):
            if part in resources:
                resources[part] = {k: _quantity(v) for k, v in resources[part].items()}
        if resources.get("requests") == resources.get("limits"):  # Kubernetes sets requests from limits
            resources.pop("requests", None)
    if launcher_main and container.get("command"):
        container["command"] = container["command"] + container.pop("args", [])
    if "volumeMounts" in container:
        container["volumeMounts"] = sorted((_omit_false(m) for m in container["volumeMounts"]),
                                           key=lambda m: m["name"])


def _omit_false(mapping: dict) -> dict:
    """Go's `readOnly bool json:",omitempty"`: false is not written; a configMap or secret
    volume without defaultMode gets the API server's 420 (reference 0.1)."""
    return {k: v for k, v in mapping.items() if not (k == "readOnly" and v is False or k == "defaultMode" and v == 420)}


def _pod(pod: dict, launcher: bool) -> None:
    for index, container in enumerate(pod.get("containers", [])):
        _container(container, launcher and index == 0)
    if "volumes" in pod:
        pod["volumes"] = sorted(({k: _omit_false(v) if isinstance(v, dict) else v for k, v in volume.items()}
                                 for volume in pod["volumes"]), key=lambda v: v["name"])


def normal(obj: dict) -> dict:
    """An object written the way both sides are compared."""
    obj = copy.deepcopy(obj)
    template = obj.get("spec", {}).get("template")
    if obj["kind"] == "MPIJob":
        for role, replica in obj["spec"]["mpiReplicaSpecs"].items():
            _pod(replica.setdefault("template", {}).setdefault("spec", {}), role == "Launcher")
    elif template is not None:
        _pod(template.setdefault("spec", {}), obj["kind"] == "Job")
    return _tidy(obj)


def _metas(obj: dict) -> list[dict]:
    metas = [obj.setdefault("metadata", {})]
    if obj["kind"] == "MPIJob":
        metas += [r.setdefault("template", {}).setdefault("metadata", {})
                  for r in obj["spec"]["mpiReplicaSpecs"].values()]
    elif "template" in obj.get("spec", {}):
        metas.append(obj["spec"]["template"].setdefault("metadata", {}))
    return metas


def _pods(obj: dict) -> list[tuple[str, dict]]:
    if obj["kind"] == "MPIJob":
        return [(role, r["template"]["spec"]) for role, r in obj["spec"]["mpiReplicaSpecs"].items()]
    if "template" in obj.get("spec", {}):
        return [("Launcher" if obj["kind"] == "Job" else "Worker", obj["spec"]["template"]["spec"])]
    return []


def blueprint_metadata(mpijob: dict) -> dict:
    """The labels and annotations a blueprint puts on every object (contract 2, and
    tests/fixtures/*-operator.yaml): the MPIJob's own, and those both pod templates have with
    one value that the MPIJob lacks (a template's other value is its role's own)."""
    out = {}
    templates = [r.get("template", {}).get("metadata", {}) for r in mpijob["spec"]["mpiReplicaSpecs"].values()]
    for kind in ("labels", "annotations"):
        out[kind] = dict(mpijob["metadata"].get(kind) or {})
        first, *others = [t.get(kind) or {} for t in templates]
        out[kind].update({k: v for k, v in first.items()
                          if k not in out[kind] and all(o.get(k) == v for o in others)})
    return out


def comparable(actual: dict, expected: dict, mpijob: dict) -> dict:
    """`actual` (rendered) less what the contract lets mpigen add to `expected`; both normal."""
    from mpigen.kube.merge_patch import merge_patch

    actual, expected = normal(actual), normal(expected)
    ours = blueprint_metadata(mpijob)
    for mine, theirs in zip(_metas(actual), _metas(expected)):
        for kind in ("labels", "annotations"):
            values = mine.get(kind, {})
            for key in list(values):
                blueprint = ours[kind].get(key) == values[key]
                if key in MPIGEN_LABELS or key.startswith("mpigen.dev/") or (
                        blueprint and key not in (theirs.get(kind) or {})):
                    del values[key]
            if kind in mine and not values and kind not in theirs:
                del mine[kind]
    api = expected.get("apiVersion")
    for (role, pod), (_, their_pod) in zip(_pods(actual), _pods(expected)):
        for index, container in enumerate(pod.get("containers", [])):
            theirs = their_pod["containers"][index] if index < len(their_pod.get("containers", [])) else {}
            wanted = theirs.get("securityContext")
            allowed = [LEAST_PRIVILEGE]
            if api == "kubeflow.org/v2beta1" and role == "Worker":  # what a root sshd needs (mpigen.render.mpijob.resource)
                allowed.append({**LEAST_PRIVILEGE, "capabilities": {"drop": ["ALL"], "add": SSHD_ROOT_CAPABILITIES}})
            if any(container.get("securityContext") == merge_patch(added, wanted or {}) for added in allowed):
                if wanted is None:
                    container.pop("securityContext")
                else:
                    container["securityContext"] = wanted
        calls_api = role == "Launcher" and api != "kubeflow.org/v2beta1"  # kubectl-delivery, kubexec.sh
        if not calls_api and pod.get(TOKEN) is False and TOKEN not in their_pod:  # mpigen.compile.api_token
            del pod[TOKEN]
        if role == "Launcher" and "env" in pod["containers"][0]:
            main = pod["containers"][0]
            main["env"] = [e for e in main["env"] if e not in PRTE]
            if not main["env"] and "env" not in their_pod["containers"][0]:
                del main["env"]
    return _tidy(actual)


def _tidy(obj: dict) -> dict:
    """Without empty template metadata (an absent one reads the same)."""
    templates = [r.get("template", {}) for r in obj["spec"]["mpiReplicaSpecs"].values()] \
        if obj["kind"] == "MPIJob" else [obj.get("spec", {}).get("template", {})]
    for template in templates:
        meta = template.get("metadata", {})
        if meta.get("creationTimestamp", 0) is None:  # how Go writes a zero time: none
            del meta["creationTimestamp"]
        if template.get("metadata") == {}:
            del template["metadata"]
    return obj
