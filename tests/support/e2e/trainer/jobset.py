"""The JobSet the Trainer's JobSet plugin builds (pkg/runtime/framework/plugins/jobset/jobset.go
Build and builder.go at v2.3.0): each PodSet written back into its replicatedJob (by index:
volumes upserted; per container, by index, a non-empty command and image replace the
template's, env, ports and volume mounts upserted; init containers likewise, appended when the
PodSet has more), then the Builder: Trainer() gives the trainer ancestor's container `node` the
TrainJob's image, command and args (replicas 1), and its env (upserted) to that container and,
with runLauncherAsNode, to the `node` job's; the JobSet carries the template's labels and
annotations, the TrainJob's suspend and the TrainJob as controller owner.
Initializer() (dataset and model initializers) and pod labels of gang scheduling are not
modelled: a TrainJob with spec.initializer, or a runtime with podGroupPolicy, is refused.
Trainer v2.4 also gives the `node` job's container `node` the TrainJob's image (#4301, per the
v2.4.0 release notes, not read in source; modelled as kubeflow/trainer#4050 describes it: the
image only, not the command)."""

from __future__ import annotations

import copy

from tests.support.e2e.errors import Unsupported
from tests.support.e2e.trainer.apply import upsert_env, upsert_ports, upsert_volume_mounts, upsert_volumes
from tests.support.e2e.trainer.info import ANCESTOR_LABEL, NODE, TRAINER, Info
from tests.support.e2e.trainer.mpi import TRAINER_API

JOBSET_API = "jobset.x-k8s.io/v1alpha2"


def _write_back(target: dict, container: dict) -> None:
    if container.get("command"):
        target["command"] = copy.deepcopy(container["command"])
    if container.get("image"):
        target["image"] = container["image"]
    for key, upsert in (("env", upsert_env), ("ports", upsert_ports), ("volumeMounts", upsert_volume_mounts)):
        if container.get(key):
            upsert(target.setdefault(key, []), *container[key])


def _pod_sets_into_spec(info: Info) -> None:
    jobs = info.spec["replicatedJobs"]
    if len(jobs) < len(info.pod_sets):
        raise Unsupported(f"runtime template has {len(jobs)} replicatedJobs but runtime info has "
                          f"{len(info.pod_sets)} podSets")
    for ps, rjob in zip(info.pod_sets, jobs):
        pod = rjob["template"]["spec"]["template"]["spec"]
        if ps.volumes:
            upsert_volumes(pod.setdefault("volumes", []), *ps.volumes)
        for index, container in enumerate(ps.containers):
            _write_back(pod["containers"][index], container)
        for index, container in enumerate(ps.init_containers):
            inits = pod.setdefault("initContainers", [])
            if index >= len(inits):
                inits.append({"name": container["name"]})
            _write_back(inits[index], container)


def _trainer(info: Info, trainjob: dict, version: str) -> None:
    """Builder.Trainer."""
    trainer = trainjob["spec"].get("trainer")
    launcher_as_node = bool((info.mpi or {}).get("runLauncherAsNode"))
    for rjob in info.spec["replicatedJobs"]:
        ancestor = rjob["template"].get("metadata", {}).get("labels", {}).get(ANCESTOR_LABEL, "")
        containers = rjob["template"]["spec"]["template"]["spec"]["containers"]
        if ancestor == TRAINER:
            rjob["replicas"] = 1
            for container in containers:
                if container["name"] == NODE and trainer:
                    for key in ("image", "command", "args"):
                        if trainer.get(key) is not None:
                            container[key] = copy.deepcopy(trainer[key])
        if version == "v2.4" and rjob["name"] == NODE and trainer and trainer.get("image") is not None:
            for container in containers:
                if container["name"] == NODE:
                    container["image"] = trainer["image"]
        if ancestor == TRAINER or (launcher_as_node and rjob["name"] == NODE):
            for container in containers:
                if container["name"] == NODE and trainer:
                    upsert_env(container.setdefault("env", []), *trainer.get("env", []))


def build_jobset(info: Info, trainjob: dict, version: str = "v2.3") -> dict:
    if trainjob["spec"].get("initializer"):
        raise Unsupported("TrainJob spec.initializer: the initializer jobs are not modelled")
    if info.pod_group_policy:
        raise Unsupported("runtime podGroupPolicy: the PodGroup and its pod labels are not modelled")
    _pod_sets_into_spec(info)
    _trainer(info, trainjob, version)
    spec = info.spec
    if trainjob["spec"].get("suspend") is not None:
        spec["suspend"] = trainjob["spec"]["suspend"]
    meta = trainjob["metadata"]
    metadata = {"name": meta["name"], "namespace": meta.get("namespace", "default")}
    if info.labels:
        metadata["labels"] = dict(info.labels)
    if info.annotations:
        metadata["annotations"] = dict(info.annotations)
    metadata["ownerReferences"] = [{"apiVersion": TRAINER_API, "kind": "TrainJob", "name": meta["name"],
                                    "uid": meta["uid"], "controller": True, "blockOwnerDeletion": True}]
    return {"apiVersion": JOBSET_API, "kind": "JobSet", "metadata": metadata, "spec": spec}
