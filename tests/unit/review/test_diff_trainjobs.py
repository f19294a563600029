"""`mpigen diff` of Kubeflow Trainer TrainJobs: GPU and slot totals from numNodes,
resourcesPerNode and the runtime the TrainJob references, a new run under GitOps, and the
TrainJob changes Kubernetes refuses to apply in place.

The renders are small hand-written jobs shaped as /work/notes/trainjob-design.md has them
(a TrainingRuntime or ClusterTrainingRuntime with replicated jobs `node` and `launcher`, and
a TrainJob). Expected numbers are worked out by hand from Trainer v2.3.0
(pkg/runtime/core/trainingruntime.go newRuntimeInfo: resourcesPerNode goes into container
`node` of the trainer job, and of job `node` only with runLauncherAsNode; plugins/mpi
EnforceMLPolicy: job `node` runs numNodes pods, max(numNodes-1, 1) with runLauncherAsNode,
and numProcPerNode 1 becomes the GPUs per node; buildHostFileConfigMap: one hostfile line of
numProcPerNode slots per node pod, and for the launcher with runLauncherAsNode)."""

from __future__ import annotations

import json

import pytest

from mpigen.review.diff.compare import compare
from mpigen.review.live import resource_path
from tests.support.golden_edits import keys, only_job

API = "trainer.kubeflow.org/v1alpha1"
ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"


def pod(command: list[str] | None = None, gpus: int = 0, resource: str = "nvidia.com/gpu") -> dict:
    node = {"name": "node", "image": "ghcr.io/acme/train:1"}
    if command:
        node["command"] = command
    if gpus:
        node["resources"] = {"limits": {resource: gpus, "cpu": "16"}}
    return {"template": {"spec": {"parallelism": 1, "completions": 1, "completionMode": "Indexed",
                                  "backoffLimit": 0, "template": {"spec": {"containers": [node]}}}}}


def torch_runtime(gpus: int) -> dict:
    """A runtime without the MPI policy, as the Trainer's torch-distributed: one job `node`, the trainer job."""
    node = {"name": "node", **pod(["torchrun", "train.py"], gpus)}
    node["template"]["metadata"] = {"labels": {ANCESTOR: "trainer"}}
    return {"mlPolicy": {"numNodes": 1, "torch": {"numProcPerNode": "auto"}},
            "template": {"spec": {"replicatedJobs": [node]}}}


def runtime_spec(node_gpus: int = 8, as_node: bool = False, procs: int = 1, resource: str = "nvidia.com/gpu") -> dict:
    node = {"name": "node", "replicas": 1, **pod(["/bin/sh", "/etc/mpigen-ssh/sshd.sh"], node_gpus, resource)}
    launcher = {"name": "launcher", "replicas": 1, "dependsOn": [{"name": "node", "status": "Ready"}], **pod()}
    launcher["template"]["metadata"] = {"labels": {ANCESTOR: "trainer"}}
    policy = {"numNodes": 1, "mpi": {"numProcPerNode": procs, "mpiImplementation": "OpenMPI",
                                     "sshAuthMountPath": "/etc/mpi-ssh-auth", "runLauncherAsNode": as_node}}
    return {"mlPolicy": policy,
            "template": {"spec": {"network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True},
                                  "successPolicy": {"operator": "All", "targetReplicatedJobs": ["launcher"]},
                                  "failurePolicy": {"maxRestarts": 0, "restartStrategy": "Recreate"},
                                  "replicatedJobs": [node, launcher]}}}


def trainjob_spec(runtime: str, kind: str = "TrainingRuntime", nodes: int = 4, procs: int | None = 8,
                  per_node: dict | None = None, **spec) -> dict:
    trainer = {"image": "ghcr.io/acme/train:1", "command": ["mpirun", "-np", str(nodes * (procs or 1)), "python",
                                                           "train.py"], "numNodes": nodes}
    if procs is not None:
        trainer["numProcPerNode"] = procs
    if per_node is not None:
        trainer["resourcesPerNode"] = per_node
    return {"runtimeRef": {"name": runtime, "apiGroup": "trainer.kubeflow.org", "kind": kind},
            "trainer": trainer, **spec}


def obj(kind: str, name: str, spec: dict, job: str, run: str = "", namespace: str | None = "ml") -> str:
    labels = {"app.kubernetes.io/managed-by": "mpigen", "mpigen.dev/job": job,
              **({"mpigen.dev/run": run} if run else {})}
    metadata = {"name": name, "labels": labels, **({"namespace": namespace} if namespace else {})}
    return json.dumps({"apiVersion": API, "kind": kind, "metadata": metadata, "spec": spec})


def render(name: str = "llm", run: str = "", runtime: dict | None = None, cluster: bool = False,
           **trainjob) -> dict[str, str]:
    """One job's TrainJob (`<name>-<run>` with run, as under Argo CD and Flux) and, unless
    runtime is None, the runtime mpigen emits for it: a TrainingRuntime named as the
    TrainJob, or with cluster a ClusterTrainingRuntime `mpigen-0123456789`."""
    tj = f"{name}-{run}" if run else name
    files = {}
    if cluster:
        runtime_name, kind = "mpigen-0123456789", "ClusterTrainingRuntime"
        if runtime is not None:
            files[f"cluster/clustertrainingruntime-{runtime_name}.yaml"] = obj(kind, runtime_name, runtime, name,
                                                                              namespace=None)
    else:
        runtime_name, kind = trainjob.pop("runtime_name", tj), trainjob.pop("kind", "TrainingRuntime")
        if runtime is not None:
            files[f"ml/trainingruntime-{runtime_name}.yaml"] = obj(kind, runtime_name, runtime, name, run)
    files[f"ml/trainjob-{tj}.yaml"] = obj("TrainJob", tj, trainjob_spec(runtime_name, kind, **trainjob), name, run)
    return files


def edit_trainjob(files: dict[str, str], change) -> dict[str, str]:
    path = next(path for path in files if "/trainjob-" in path)
    data = json.loads(files[path])
    change(data)
    return {**files, path: json.dumps(data)}


def in_ml(report):
    """The job of the TrainJob (a ClusterTrainingRuntime is a job of no namespace)."""
    return next(job for job in report.jobs if job.namespace == "ml")


# --- GPUs and slots -----------------------------------------------------------------------------

def test_added_trainjob_with_its_runtime_starts_a_run_with_its_gpus_and_slots():
    """The default emitted runtime: 4 node pods x 8 GPUs (the runtime's container `node`), a
    launcher without; the hostfile has 4 lines of slots=8."""
    report = compare({}, render(runtime=runtime_spec(node_gpus=8), nodes=4, procs=8))
    job = only_job(report)
    assert (job.namespace, job.job) == ("ml", "llm")
    assert keys(job.added) == ["TrainJob ml/llm", "TrainingRuntime ml/llm"]
    assert job.gpus == (0, 32) and job.slots == (0, 32)
    assert job.new_run and not job.ends_run and not report.immutable()
    text = report.format("text")
    assert "  GPUs 0 -> 32\n  slots 0 -> 32\n" in text
    assert "  starts a new run: a launcher Job is created\n" in text


# (runtime, TrainJob fields, GPUs, slots)
COUNTS = [
    # launcher as a node: numNodes 4 = 3 node pods + the launcher, each given resourcesPerNode
    (runtime_spec(node_gpus=8, as_node=True), {"nodes": 4, "per_node": {"limits": {"nvidia.com/gpu": 8}}}, 32, 32),
    # ... resourcesPerNode wins over the runtime's own limits, key by key
    (runtime_spec(node_gpus=2, as_node=True), {"nodes": 3, "per_node": {"limits": {"nvidia.com/gpu": 4}}}, 12, 24),
    # one node with the launcher as a node: max(1-1, 1) node pod and the launcher, both hosts
    (runtime_spec(node_gpus=0, as_node=True), {"nodes": 1, "per_node": {"limits": {"nvidia.com/gpu": 2}}}, 4, 16),
    # without runLauncherAsNode, resourcesPerNode goes to the launcher alone (the trainer job)
    (runtime_spec(node_gpus=8), {"nodes": 2, "per_node": {"limits": {"nvidia.com/gpu": 1}}}, 17, 16),
    # numProcPerNode from the runtime; 1 becomes the GPUs per node (requests, else limits)
    (runtime_spec(node_gpus=4, procs=1), {"nodes": 2, "procs": None}, 8, 8),
    (runtime_spec(node_gpus=4, procs=2), {"nodes": 2, "procs": None}, 8, 4),
    (runtime_spec(node_gpus=0, procs=1), {"nodes": 2, "procs": None}, 0, 2),
    # other accelerators count as they do in every job
    (runtime_spec(node_gpus=8, resource="amd.com/gpu"), {"nodes": 2}, 16, 16),
    (runtime_spec(node_gpus=4, resource="habana.ai/gaudi"), {"nodes": 2, "procs": 1}, 8, 2),
    # a runtime without the MPI policy writes no hostfile; its trainer job runs numNodes pods
    (torch_runtime(8), {"nodes": 2}, 16, 0),
    (torch_runtime(8), {"nodes": 3, "per_node": {"limits": {"nvidia.com/gpu": 4}}}, 12, 0),
    # a runtime not among the objects (named; or another namespace's): numNodes x resourcesPerNode
    (None, {"nodes": 4, "per_node": {"limits": {"nvidia.com/gpu": 8}}}, 32, 32),
    (None, {"nodes": 4, "per_node": {"requests": {"nvidia.com/gpu": "2"}}, "procs": None}, 8, 8),
    (None, {"nodes": 4}, 0, 32),
]


@pytest.mark.parametrize("runtime, fields, gpus, slots", COUNTS)
def test_trainjob_totals(runtime, fields, gpus, slots):
    job = only_job(compare({}, render(runtime=runtime, **fields)))
    assert (job.gpus[1], job.slots[1]) == (gpus, slots)


def test_cluster_runtime_shared_by_two_jobs_counts_for_each():
    """A ClusterTrainingRuntime is found by name whatever the TrainJob's namespace."""
    spec = runtime_spec(node_gpus=8)
    files = {**render("a", runtime=spec, cluster=True, nodes=2), **render("b", runtime=spec, cluster=True, nodes=3)}
    report = compare({}, files)
    assert len(files) == 3  # one runtime, written once
    totals = {(job.namespace, job.job): (job.gpus[1], job.slots[1]) for job in report.jobs}
    # the cluster-scoped runtime is listed apart (no namespace), and runs nothing itself
    assert totals == {("ml", "a"): (16, 16), ("ml", "b"): (24, 24), ("", "b"): (0, 0)}


def test_runtime_of_another_namespace_or_kind_is_not_used():
    runtime = json.loads(obj("TrainingRuntime", "llm", runtime_spec(node_gpus=8), "llm", namespace="other"))
    files = {"other/rt.yaml": json.dumps(runtime), **render(nodes=2)}
    assert only_job(compare({}, {k: v for k, v in files.items() if "/trainjob-" in k})).gpus == (0, 0)
    report = compare({}, files)
    assert {job.job: job.gpus[1] for job in report.jobs} == {"llm": 0}
    # the ClusterTrainingRuntime the TrainJob does not name (it names a TrainingRuntime)
    cluster = render(runtime=runtime_spec(node_gpus=8), cluster=True, nodes=2)
    path = next(p for p in cluster if "/trainjob-" in p)
    data = json.loads(cluster[path])
    data["spec"]["runtimeRef"]["kind"] = "TrainingRuntime"
    assert in_ml(compare({}, {**cluster, path: json.dumps(data)})).gpus == (0, 0)


def test_runtime_ref_defaults_to_a_cluster_runtime():
    files = render(runtime=runtime_spec(node_gpus=8), cluster=True, nodes=2)
    files = edit_trainjob(files, lambda d: [d["spec"]["runtimeRef"].pop(k) for k in ("kind", "apiGroup")])
    assert in_ml(compare({}, files)).gpus == (0, 16)


def test_completed_suspends_the_trainjob_releasing_gpus_and_slots():
    """state: completed renders `suspend: true`: a change the API server applies in place."""
    old = render(runtime=runtime_spec(node_gpus=8), nodes=2)
    new = edit_trainjob(old, lambda d: d["spec"].update(suspend=True))
    report = compare(old, new)
    job = only_job(report)
    assert job.gpus == (16, 0) and job.slots == (16, 0)
    assert not report.immutable() and not job.new_run and not job.ends_run
    assert [(str(c.key), [(f.path, f.op, f.new) for f in c.fields]) for c in job.changed] == [
        ("TrainJob ml/llm", [("spec.suspend", "add", True)])]


# --- a new run ----------------------------------------------------------------------------------

def test_new_run_under_gitops_replaces_the_trainjob_and_runtime_and_is_not_immutable():
    old = render(run="3f2a1c", runtime=runtime_spec(node_gpus=8), nodes=2)
    new = render(run="9b0e47", runtime=runtime_spec(node_gpus=8), nodes=4)
    report = compare(old, new)
    job = only_job(report)
    assert keys(job.added) == ["TrainJob ml/llm-9b0e47", "TrainingRuntime ml/llm-9b0e47"]
    assert keys(job.removed) == ["TrainJob ml/llm-3f2a1c", "TrainingRuntime ml/llm-3f2a1c"]
    assert job.changed == [] and not report.immutable()
    assert job.new_run and job.ends_run
    assert job.gpus == (16, 32) and job.slots == (16, 32)
    text = report.format("text")
    assert "  starts a new run: a launcher Job is created\n  ends the run: a launcher Job is deleted\n" in text
    assert "| ml/llm |  | +2 −2 ~0 | **2 → 4** | **16 → 32** |  | new run, ends run |" in report.format("markdown")


def test_removed_trainjob_ends_the_run():
    job = only_job(compare(render(runtime=runtime_spec(node_gpus=8), nodes=2), {}))
    assert job.ends_run and not job.new_run and job.gpus == (16, 0) and job.slots == (16, 0)


# --- changes Kubernetes refuses -----------------------------------------------------------------

def test_more_nodes_in_place_is_immutable():
    """Without GitOps the TrainJob keeps its name: trainer is immutable as a whole."""
    old = render(runtime=runtime_spec(node_gpus=8), nodes=2)
    new = render(runtime=runtime_spec(node_gpus=8), nodes=3)
    report = compare(old, new)
    job = only_job(report)
    assert job.gpus == (16, 24) and job.slots == (16, 24)
    assert [(str(f.key), f.path) for f in job.immutable] == [("TrainJob ml/llm", "spec.trainer")]
    assert not job.new_run and not job.ends_run
    text = report.format("text")
    assert ("IMMUTABLE: Kubernetes refuses to change spec.trainer of TrainJob ml/llm: Argo CD and "
            "Flux will fail to sync it; delete and recreate the object (give the run a new name) instead\n") in text
    markdown = report.format("markdown")
    assert "> - ⚠️ Kubernetes refuses to change spec.trainer of TrainJob ml/llm" in markdown
    assert json.loads(report.format("json"))["jobs"][0]["immutable"][0]["path"] == "spec.trainer"


def image(data: dict) -> None:
    data["spec"]["trainer"]["image"] = "ghcr.io/acme/train:2"


def patches(*entries: dict) -> list[dict]:
    return [{"manager": manager, **({"time": time} if time else {}),
             "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [
                 {"name": name, "template": {"spec": {"template": {"spec": pod_spec}}}}
                 for name, pod_spec in jobs.items()]}}}}
            for manager, time, jobs in entries]


BLUEPRINT = "mpigen.dev/blueprint"
KUEUE = "kueue.x-k8s.io/manager"
PATCHED = patches((BLUEPRINT, None, {"node": {"nodeSelector": {"pool": "h100"},
                                              "volumes": [{"name": "data", "emptyDir": {}}]},
                                     "launcher": {"nodeSelector": {"pool": "cpu"}}}))


def set_patches(entries: list[dict], suspend: bool | None = None):
    def change(data: dict) -> None:
        data["spec"]["runtimePatches"] = entries
        if suspend is not None:
            data["spec"]["suspend"] = suspend
    return change


def node_patch(**pod_spec) -> list[dict]:
    return patches((BLUEPRINT, None, {"node": {"nodeSelector": {"pool": "h100"},
                                               "volumes": [{"name": "data", "emptyDir": {}}], **pod_spec},
                                      "launcher": {"nodeSelector": {"pool": "cpu"}}}))


JOB_PATH = f"spec.runtimePatches[{BLUEPRINT}].trainingRuntimeSpec.template.spec.replicatedJobs[node]"


@pytest.mark.parametrize("old_spec, change, immutable", [
    ({}, image, ["spec.trainer"]),
    ({}, lambda d: d["spec"]["trainer"].update(env=[{"name": "NCCL_DEBUG", "value": "INFO"}]), ["spec.trainer"]),
    ({}, lambda d: d["spec"]["runtimeRef"].update(name="other"), ["spec.runtimeRef"]),
    ({}, lambda d: d["spec"]["runtimeRef"].update(kind="ClusterTrainingRuntime"), ["spec.runtimeRef"]),
    ({}, lambda d: d["spec"].update(managedBy="kueue.x-k8s.io/multikueue"), ["spec.managedBy"]),
    ({"activeDeadlineSeconds": 3600}, lambda d: d["spec"].update(activeDeadlineSeconds=7200),
     ["spec.activeDeadlineSeconds"]),
    ({"initializer": {"dataset": {"storageUri": "hf://a"}}},
     lambda d: d["spec"].update(initializer={"dataset": {"storageUri": "hf://b"}}), ["spec.initializer"]),
    ({}, lambda d: (image(d), d["spec"]["runtimeRef"].update(name="other")), ["spec.runtimeRef", "spec.trainer"]),
    # CEL transition rules run only when both sides have the field; defaults are values
    ({}, lambda d: d["spec"].update(activeDeadlineSeconds=3600), []),
    ({"activeDeadlineSeconds": 3600}, lambda d: d["spec"].pop("activeDeadlineSeconds"), []),
    ({}, lambda d: d["spec"].update(managedBy="trainer.kubeflow.org/trainjob-controller"), []),
    ({}, lambda d: d["spec"]["runtimeRef"].pop("apiGroup"), []),
    # what may change on a running TrainJob
    ({}, lambda d: d["spec"].update(suspend=True), []),
    # but not a queue: Kueue v0.19.2 validateUpdateForQueueName (jobframework/validation.go)
    ({}, lambda d: d["metadata"]["labels"].update({"kueue.x-k8s.io/queue-name": "gpus"}),
     ['metadata.labels["kueue.x-k8s.io/queue-name"]']),
    ({}, lambda d: d["metadata"].update(annotations={"argocd.argoproj.io/sync-wave": "0"}), []),
    # runtimePatches: the webhook refuses any change unless the old or the new TrainJob is suspended
    ({}, set_patches(PATCHED), ["spec.runtimePatches"]),
    ({"runtimePatches": PATCHED}, set_patches([]), ["spec.runtimePatches"]),
    ({"runtimePatches": PATCHED}, set_patches(node_patch(nodeSelector={"pool": "a100"})), ["spec.runtimePatches"]),
    ({}, set_patches(PATCHED, suspend=True), []),
    ({"suspend": True}, set_patches(PATCHED, suspend=False), []),
    ({"runtimePatches": PATCHED, "suspend": True}, set_patches(node_patch(nodeSelector={"pool": "a100"})), []),
    ({"runtimePatches": PATCHED, "suspend": True},
     set_patches(PATCHED + patches((KUEUE, "2026-11-24T06:00:00Z", {"node": {"tolerations": []}}))), []),
    # ... and even then CEL keeps a patch's pod volumes, containers, service account, ...
    ({"runtimePatches": PATCHED, "suspend": True},
     set_patches(node_patch(volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": "d"}}])),
     [f"{JOB_PATH}.template.spec.template.spec.volumes"]),
    ({"runtimePatches": node_patch(serviceAccountName="a"), "suspend": True},
     set_patches(node_patch(serviceAccountName="b", imagePullSecrets=[{"name": "r"}])),
     [f"{JOB_PATH}.template.spec.template.spec.serviceAccountName"]),
    # Kueue's own entry on a live, admitted TrainJob (diff --live) is not the render's to change
    ({"runtimePatches": PATCHED + patches((KUEUE, "2026-11-24T06:00:00Z", {"node": {"nodeSelector": {"a": "b"}}}))},
     set_patches(PATCHED), []),
    ({"runtimePatches": patches((KUEUE, "2026-11-24T06:00:00Z", {}))}, set_patches(PATCHED), ["spec.runtimePatches"]),
    # the time the mutating webhook stamps on a live TrainJob is no change
    ({"runtimePatches": PATCHED},
     set_patches([{**PATCHED[0], "time": "2026-11-24T06:00:00Z"}]), []),
])
def test_trainjob_immutable_rules(old_spec, change, immutable):
    old = edit_trainjob(render(runtime=runtime_spec()), lambda d: d["spec"].update(old_spec))
    report = compare(old, edit_trainjob(old, change))
    assert [f.path for f in only_job(report).immutable] == immutable
    assert report.immutable() == bool(immutable)


def test_trainjob_of_another_group_is_not_checked():
    def other(spec: dict) -> dict[str, str]:
        return {"o.yaml": json.dumps({"apiVersion": "example.com/v1", "kind": "TrainJob", "metadata": {"name": "o"},
                                      "spec": spec})}

    report = compare(other({"trainer": {"numNodes": 1}}), other({"trainer": {"numNodes": 2}}))
    assert not report.immutable() and only_job(report).gpus == (0, 0) and not only_job(report).new_run


@pytest.mark.parametrize("kind, namespace, path", [
    ("TrainJob", "ml", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ml/trainjobs/llm"),
    ("TrainingRuntime", "ml", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ml/trainingruntimes/llm"),
    ("ClusterTrainingRuntime", None, "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/llm"),
])
def test_diff_live_reads_trainer_objects_from_their_api_path(kind, namespace, path):
    # resource paths of pkg/apis/trainer/v1alpha1 (+resource:path, scope=Cluster)
    metadata = {"name": "llm", **({"namespace": namespace} if namespace else {})}
    obj = {"apiVersion": API, "kind": kind, "metadata": metadata}
    assert resource_path(obj) == path
