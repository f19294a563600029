"""Hypothesis strategies of MPIJobs for the import round trips (tests/acceptance/importing/).

`mpijobs(api)` draws a valid MPIJob of that API from the fields of its replica specs, pod
templates, containers, volumes and run policy that a blueprint can carry, each in the
forms Kubernetes and the operator accept; `lossy=True` also adds one or more things a
blueprint cannot carry, and returns where each is written (a location in the MPIJob),
where the import must report it.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from hypothesis import strategies as st

V1ALPHA2, V1, V2BETA1 = "kubeflow.org/v1alpha2", "kubeflow.org/v1", "kubeflow.org/v2beta1"
TEMPLATE = ("spec", "mpiReplicaSpecs", "{role}", "template")

DATASETS = {  # (volume source, mount extras) in the forms a blueprint's datasets render
    "pvc": ({"persistentVolumeClaim": {"claimName": "imagenet"}}, {"readOnly": True}),
    "pvc-rw": ({"persistentVolumeClaim": {"claimName": "checkpoints"}}, {}),
    "nfs": ({"nfs": {"server": "fs.example.com", "path": "/exports/x"}}, {"readOnly": True}),
    "host": ({"hostPath": {"path": "/mnt/data", "type": "Directory"}}, {"readOnly": True}),
    "config": ({"configMap": {"name": "train-config"}}, {"readOnly": True}),
    "secret": ({"secret": {"secretName": "wandb"}}, {"readOnly": True}),
    "csi": ({"csi": {"driver": "gcsfuse.csi.storage.gke.io", "readOnly": True,
                     "volumeAttributes": {"bucketName": "shards"}}}, {"readOnly": True}),
}
POD_EXTRAS = {"terminationGracePeriodSeconds": 30, "priorityClassName": "high", "schedulerName": "volcano",
              "securityContext": {"runAsUser": 1000, "fsGroup": 1000}, "dnsPolicy": "ClusterFirst",
              "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                  "nodeSelectorTerms": [{"matchExpressions": [
                      {"key": "zone", "operator": "In", "values": ["a"]}]}]}}}}
CONTAINER_EXTRAS = {"imagePullPolicy": "Always", "workingDir": "/workspace",
                    "ports": [{"containerPort": 2222, "protocol": "TCP"}],
                    "securityContext": {"runAsNonRoot": True},
                    "readinessProbe": {"tcpSocket": {"port": 2222}, "periodSeconds": 5}}
LOSSES = ("restart", "worker_command", "names", "read_only_claim", "sidecar", "value_from",
          "request", "untyped_host_path", "launcher_account", "hostname", "unknown_field", "worker_image",
          "worker_env", "ttl", "worker_restart", "template_name", "claims", "container_field", "shell_line")


def _some(draw, options: dict) -> dict:
    keys = draw(st.lists(st.sampled_from(sorted(options)), unique=True, max_size=3))
    return {k: options[k] for k in sorted(keys)}


class _Shared(NamedTuple):
    """What both roles' replica specs are drawn from: the job's and those the launcher's and
    the workers' pods have in common."""
    api: str
    workers: int
    argv: list
    names: dict
    env: list
    labels: dict
    annotations: dict
    datasets: list
    pull_secrets: bool
    networks: bool
    gpus: int
    shm: str | None
    limits: dict
    requests: bool


@st.composite
def mpijobs(draw, api: str, lossy: bool = False):
    """(mpijob, [locations of what a blueprint cannot carry])"""
    metadata = _metadata(draw, api)
    workers, slots = draw(st.integers(1, 4)), draw(st.sampled_from([None, 1, 2]))
    spec = _job_spec(draw, api, slots)
    implementation = spec.get("mpiDistribution", spec.get("mpiImplementation", "OpenMPI"))
    shared = _shared(draw, api, workers, slots, spec.get("mainContainer"), implementation)
    spec["mpiReplicaSpecs"] = {role: _replica(draw, role, shared) for role in ("Launcher", "Worker")}
    if api == V2BETA1:
        _user_sshd(spec)
    # a copy of its own in every place (shared values would be written as YAML aliases)
    mpijob = json.loads(json.dumps({"apiVersion": api, "kind": "MPIJob", "metadata": metadata, "spec": spec}))
    if not lossy:
        return mpijob, []
    losses = draw(st.lists(st.sampled_from(LOSSES), unique=True, min_size=1, max_size=3))
    return mpijob, [loc for loss in losses for loc in _lose(mpijob, loss, api)]


def _user_sshd(spec: dict) -> None:
    """A non-root v2beta1 worker runs an sshd line that starts as its user (the operator's own
    `/usr/sbin/sshd -De` cannot read the image's host keys): mpigen's, as written by hand."""
    pod = spec["mpiReplicaSpecs"]["Worker"]["template"]["spec"]
    if pod.get("securityContext", {}).get("runAsUser", 0) != 0:
        keys = spec.get("sshAuthMountPath", "/root/.ssh")
        pod["containers"][0].update({"command": ["/usr/sbin/sshd"], "args": [
            "-De", "-f", "/dev/null", "-p", "2222", "-h", f"{keys}/id_rsa", "-o",
            f"AuthorizedKeysFile={keys}/authorized_keys", "-o", "PidFile=none", "-o", "StrictModes=no"]})


def _metadata(draw, api: str) -> dict:
    """The MPIJob's metadata: as written, or as `kubectl get -o yaml` shows it."""
    name = draw(st.sampled_from(["train", "bert-large", "j1"]))
    metadata = {"name": name}
    if draw(st.booleans()):
        metadata["namespace"] = draw(st.sampled_from(["default", "ml-team"]))
    if draw(st.booleans()):
        metadata["labels"] = {"team": "vision"}
    if draw(st.booleans()):  # what `kubectl get -o yaml` shows: the server's, and kubectl apply's record
        metadata.update({"uid": "0d6f", "resourceVersion": "42", "creationTimestamp": "2024-01-01T00:00:00Z",
                         "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}",
                                         "owner": "vision@example.com"}})
    queue = api == V2BETA1 and draw(st.booleans())
    if queue:
        metadata.setdefault("labels", {})["kueue.x-k8s.io/queue-name"] = "team-a"
    return metadata


def _job_spec(draw, api: str, slots: int | None) -> dict:
    """The MPIJob's spec less its replica specs: slots, MPI implementation, the generation's
    own fields, run policy, suspension and main container."""
    spec: dict = {}
    if slots is not None:
        spec["slotsPerWorker"] = slots
    implementation = "OpenMPI"
    if api == V1ALPHA2:
        implementation = draw(st.sampled_from([None, "OpenMPI", "IntelMPI", "MPICH"]))
        if implementation:
            spec["mpiDistribution"] = implementation
    elif api == V2BETA1:
        implementation = draw(st.sampled_from([None, "OpenMPI", "Intel", "MPICH"]))
        if implementation:
            spec["mpiImplementation"] = implementation
        for key, values in (("launcherCreationPolicy", ["AtStartup", "WaitForWorkersReady"]),
                            ("sshAuthMountPath", ["/root/.ssh", "/home/mpiuser/.ssh"])):
            if draw(st.booleans()):
                spec[key] = draw(st.sampled_from(values))
    _run_policy(draw, api, spec)
    if api != V1ALPHA2 and draw(st.booleans()):  # suspended: state completed (with a Kueue queue, Kueue's)
        spec.setdefault("runPolicy", {})["suspend"] = True
    main = draw(st.sampled_from([None, "trainer"])) if api != V2BETA1 else None
    if main:
        spec["mainContainer"] = main
    return spec


def _shared(draw, api: str, workers: int, slots: int | None, main: str | None, implementation: str) -> _Shared:
    """The draws the launcher's and the workers' pods share."""
    env = draw(st.sampled_from([[], [{"name": "NCCL_DEBUG", "value": "INFO"}],
                                [{"name": "A", "value": ""}, {"name": "B", "value": "x y"}]]))
    labels = draw(st.sampled_from([{}, {"team": "vision"}, {"tier": "gold", "team": "vision"}]))
    annotations = draw(st.sampled_from([{}, {"sidecar.istio.io/inject": "false"}]))
    datasets = draw(st.lists(st.sampled_from(sorted(DATASETS)), unique=True, max_size=3))
    pull_secrets = draw(st.booleans())
    networks = draw(st.booleans())
    gpus = draw(st.sampled_from([0, 0, 1, 8]))
    shm = draw(st.sampled_from([None, "2Gi"]))
    limits = draw(st.sampled_from([{}, {"cpu": "2", "memory": "8Gi"}, {"cpu": 4}]))
    requests = draw(st.booleans()) and bool(limits)
    # the line mpigen writes for command [python, train.py] (Open MPI's: its --allow-run-as-root and an -x for
    # every variable of the container; Hydra passes the whole environment)
    argv = ["mpirun", "-np", str(workers * (slots or 1))]
    if implementation == "OpenMPI":
        argv += ["--allow-run-as-root", *(word for e in env for word in ("-x", e["name"]))]
    argv += ["python", "train.py"]
    return _Shared(api=api, workers=workers, argv=argv,
                   names=draw(st.sampled_from([{"Launcher": "mpi-launcher", "Worker": "mpi-worker"},
                                               {"Launcher": "launcher", "Worker": "worker"}]))
                   if main is None else {"Launcher": main, "Worker": main},
                   env=env, labels=labels, annotations=annotations, datasets=datasets, pull_secrets=pull_secrets,
                   networks=networks, gpus=gpus, shm=shm, limits=limits, requests=requests)


def _replica(draw, role: str, shared: _Shared) -> dict:
    """One role's replica spec: its pod template, replicas and restart policy."""
    container = _container(draw, role, shared)
    pod = _pod(draw, role, container, shared)
    _mount_datasets(draw, role, container, pod, shared)
    template: dict = {"spec": pod}
    meta = _template_metadata(draw, role, shared)
    if meta:
        template["metadata"] = meta
    replica: dict = {"template": template}
    if role == "Launcher" and draw(st.booleans()):
        replica["replicas"] = 1
    if role == "Worker":
        replica["replicas"] = shared.workers
    policy = draw(st.sampled_from(_restart_policies(shared.api, role)))
    if policy:
        replica["restartPolicy"] = policy
    return replica


def _container(draw, role: str, shared: _Shared) -> dict:
    """One role's main container, less its volume mounts: the launcher's runs mpirun."""
    container: dict = {"name": shared.names[role], "image": "registry.example.com/train:2"}
    argv = shared.argv
    if role == "Launcher":
        style = draw(st.sampled_from(["joined", "split"]))
        container.update({"joined": {"command": argv}, "split": {"command": argv[:1], "args": argv[1:]}}[style])
    elif shared.api != V2BETA1:
        container.update(draw(st.sampled_from([{}, {"command": []}, {"args": ["--ignored"]}])))
    if shared.env:
        container["env"] = [dict(e) for e in shared.env]
    role_limits = dict(shared.limits) if role == "Worker" or draw(st.booleans()) else {}
    if role == "Worker" and shared.gpus:
        role_limits["nvidia.com/gpu"] = shared.gpus
    if role_limits:
        container["resources"] = {"limits": role_limits}
        if shared.requests:
            container["resources"]["requests"] = dict(role_limits)
    container.update(_some(draw, CONTAINER_EXTRAS))
    return container


def _pod(draw, role: str, container: dict, shared: _Shared) -> dict:
    """One role's pod spec around its main container, less its volumes."""
    pod: dict = {"containers": [container]}
    pod.update(_some(draw, POD_EXTRAS))
    if shared.pull_secrets:
        pod["imagePullSecrets"] = [{"name": "registry"}]
    if role == "Worker" and draw(st.booleans()):
        pod.update({"serviceAccountName": "reader", "hostNetwork": True,
                    "dnsPolicy": "ClusterFirstWithHostNet"})
    if role == "Launcher" and shared.api == V1ALPHA2 and draw(st.booleans()):
        pod["serviceAccountName"] = "ignored"  # the controller writes <job>-launcher over it
    if role == "Launcher" and draw(st.booleans()):
        pod["initContainers"] = [{"name": "fetch", "image": "busybox:1", "command": ["true"]}]
    if draw(st.booleans()):
        pod["nodeSelector"] = {"pool": "cpu" if role == "Launcher" else "gpu"}
    if draw(st.booleans()):
        pod["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": "ml", "effect": "NoSchedule"}]
    return pod


def _mount_datasets(draw, role: str, container: dict, pod: dict, shared: _Shared) -> None:
    """The datasets' volumes in the pod, mounted in its main container, and the workers'
    shared memory."""
    volumes, mounts = [], []
    for index, kind in enumerate(shared.datasets):
        source, extra = DATASETS[kind]
        volumes.append({"name": f"data{index}", **source})
        mounts.append({"name": f"data{index}", "mountPath": f"/data/{index}", **extra})
    if role == "Worker" and (shared.shm or (shared.gpus and draw(st.booleans()))):
        volumes.append({"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": shared.shm or "1Gi"}})
        mounts.append({"name": "dshm", "mountPath": "/dev/shm"})
    if mounts:
        container["volumeMounts"], pod["volumes"] = mounts, volumes


def _template_metadata(draw, role: str, shared: _Shared) -> dict:
    """One role's pod template metadata (empty: none)."""
    meta = {k: v for k, v in (("labels", dict(shared.labels)), ("annotations", dict(shared.annotations))) if v}
    if role == "Worker" and shared.networks:
        meta.setdefault("annotations", {})["k8s.v1.cni.cncf.io/networks"] = "sriov-ib0,ml/roce"
    for kind, key in (("labels", "only-here"), ("annotations", "role-note")):
        if draw(st.booleans()):  # one role's own (spec.podTemplatePatch.<role>.metadata)
            meta.setdefault(kind, {})[key] = role.lower()
    if draw(st.booleans()):
        meta["creationTimestamp"] = None  # as kubectl shows a template
    return meta


def _run_policy(draw, api: str, spec: dict) -> None:
    policy = {}
    for key, values in (("backoffLimit", [0, 3]), ("activeDeadlineSeconds", [600]),
                        ("cleanPodPolicy", ["None", "Running", "All"]), ("ttlSecondsAfterFinished", [60])):
        if api == V1ALPHA2 and key == "ttlSecondsAfterFinished":
            continue  # the v1alpha2 operator ignores it (reported; see the lossy cases)
        if draw(st.booleans()):
            top = api == V1ALPHA2 or (api == V1 and key == "cleanPodPolicy")
            if top and (key == "cleanPodPolicy" or draw(st.booleans())):
                spec[key] = draw(st.sampled_from(values))
            elif key != "cleanPodPolicy" or api != V1ALPHA2:
                policy[key] = draw(st.sampled_from(values))
    if policy:
        spec["runPolicy"] = policy


def _restart_policies(api: str, role: str) -> list:
    """Policies a blueprint renders the same: what each operator turns them into."""
    if api == V1ALPHA2:
        return [None, "OnFailure", "Always"] if role == "Launcher" else [None, "Never", "OnFailure", "Always"]
    if api == V1:
        return [None, "Never"]
    return [None, "OnFailure"] if role == "Launcher" else [None, "Never"]


def _lose(mpijob: dict, loss: str, api: str) -> list[tuple]:
    """Change mpijob by one thing a blueprint cannot carry; where it must be reported.
    Each loss is in one of the groups (none where it does not apply to the api)."""
    for lose in (_lose_in_spec, _lose_in_pods, _lose_in_containers):
        where = lose(mpijob["spec"], loss, api)
        if where:
            return where
    return []


def _roles(spec: dict) -> tuple[dict, dict, dict]:
    """Each role's location of its pod template, its pod spec and its main container."""
    loc = {role: tuple(p.format(role=role) for p in TEMPLATE) for role in ("Launcher", "Worker")}
    pods = {role: spec["mpiReplicaSpecs"][role]["template"]["spec"] for role in loc}
    mains = {role: pods[role]["containers"][0] for role in loc}
    return loc, pods, mains


def _lose_in_spec(spec: dict, loss: str, api: str) -> list[tuple]:
    """_lose for the losses in the MPIJob's spec, its replica specs and pod template metadata."""
    loc, _, _ = _roles(spec)
    if loss == "restart":
        spec["mpiReplicaSpecs"]["Launcher"]["restartPolicy"] = {V1ALPHA2: "Never", V1: "OnFailure",
                                                                V2BETA1: "Never"}[api]
        return [("spec", "mpiReplicaSpecs", "Launcher", "restartPolicy")]
    if loss == "unknown_field":  # a field of another generation, which this one's API server drops
        key, value = {V2BETA1: ("mpiDistribution", "IntelMPI"), V1: ("runLauncherAsWorker", True),
                      V1ALPHA2: ("sshAuthMountPath", "/x")}[api]
        spec[key] = value
        return [("spec", key)]
    if loss == "ttl" and api == V1ALPHA2:
        spec.setdefault("runPolicy", {})["ttlSecondsAfterFinished"] = 60
        return [("spec", "runPolicy", "ttlSecondsAfterFinished")]
    if loss == "worker_restart" and api != V1ALPHA2:
        spec["mpiReplicaSpecs"]["Worker"]["restartPolicy"] = "OnFailure"
        return [("spec", "mpiReplicaSpecs", "Worker", "restartPolicy")]
    if loss == "template_name":
        spec["mpiReplicaSpecs"]["Worker"]["template"].setdefault("metadata", {})["name"] = "pod"
        return [loc["Worker"] + ("metadata", "name")]
    return []


def _lose_in_pods(spec: dict, loss: str, api: str) -> list[tuple]:
    """_lose for the losses in the pod specs: volumes, containers besides the main one, fields."""
    loc, pods, mains = _roles(spec)
    if loss == "read_only_claim":
        for role in loc:
            pods[role].setdefault("volumes", []).append({"name": "ro", "persistentVolumeClaim": {
                "claimName": "shared", "readOnly": True}})
            mains[role].setdefault("volumeMounts", []).append({"name": "ro", "mountPath": "/ro"})
        index = len(pods["Launcher"]["volumes"]) - 1
        return [loc["Launcher"] + ("spec", "volumes", index, "persistentVolumeClaim", "readOnly")]
    if loss == "sidecar":
        pods["Launcher"]["containers"].append({"name": "proxy", "image": "envoy:1"})
        return [loc["Launcher"] + ("spec", "containers", 1)]
    if loss == "untyped_host_path":
        for role in loc:
            pods[role].setdefault("volumes", []).append({"name": "scratch", "hostPath": {"path": "/scratch"}})
            mains[role].setdefault("volumeMounts", []).append({"name": "scratch", "mountPath": "/scratch"})
        return [loc["Launcher"] + ("spec", "volumes", len(pods["Launcher"]["volumes"]) - 1, "hostPath")]
    if loss == "launcher_account" and api != V1ALPHA2:  # v1alpha2 writes <job>-launcher over it
        pods["Launcher"]["serviceAccountName"] = "mine"
        return [loc["Launcher"] + ("spec", "serviceAccountName")]
    if loss == "hostname" and api != V2BETA1:  # v2beta1 writes its own over it
        pods["Launcher"]["hostname"] = "fixed"
        return [loc["Launcher"] + ("spec", "hostname")]
    return []


def _lose_in_containers(spec: dict, loss: str, api: str) -> list[tuple]:
    """_lose for the losses in the main containers."""
    loc, _, mains = _roles(spec)
    if loss == "worker_command":
        mains["Worker"].pop("args", None)
        mains["Worker"]["command"] = [""]
        return [loc["Worker"] + ("spec", "containers", 0, "command")]
    if loss == "names" and "mainContainer" in spec:  # a name other than the mainContainer both have
        mains["Worker"]["name"] = "worker"
        return [loc["Worker"] + ("spec", "containers", 0, "name")]
    if loss == "value_from":
        out = []
        for role in loc:
            env = mains[role].setdefault("env", [])
            env.append({"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}})
            out.append(loc[role] + ("spec", "containers", 0, "env", len(env) - 1, "valueFrom"))
        return out
    if loss == "request":
        mains["Launcher"]["resources"] = {"limits": {"memory": "4Gi"}, "requests": {"memory": "1Gi"}}
        return [loc["Launcher"] + ("spec", "containers", 0, "resources", "requests", "memory")]
    if loss == "worker_image":
        mains["Worker"]["image"] = "other:1"
        return [loc["Worker"] + ("spec", "containers", 0, "image")]
    if loss == "worker_env":
        env = mains["Worker"].setdefault("env", [])
        env.append({"name": "ONLY_WORKERS", "value": "1"})
        return [loc["Worker"] + ("spec", "containers", 0, "env", len(env) - 1)]
    if loss == "claims":
        mains["Worker"].setdefault("resources", {})["claims"] = [{"name": "gpu"}]
        return [loc["Worker"] + ("spec", "containers", 0, "resources", "claims")]
    if loss == "shell_line":  # its -np frozen in launcherCommand: reported at the script that holds it
        mains["Launcher"]["command"] = ["/bin/sh", "-c", " ".join(mains["Launcher"].pop("command")
                                                                  + mains["Launcher"].pop("args", []))]
        return [loc["Launcher"] + ("spec", "containers", 0, "command", 2)]
    if loss == "container_field":
        mains["Launcher"]["lifecycles"] = {}
        return [loc["Launcher"] + ("spec", "containers", 0, "lifecycles")]
    return []
