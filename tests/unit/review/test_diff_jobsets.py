"""`mpigen diff` of the `jobset` target's objects: GPU and slot totals of a JobSet, a new
run under GitOps, and the JobSet changes Kubernetes refuses to apply in place.

The renders are small hand-written JobSet jobs shaped as /work/wt/jobset-design.md has them
(ConfigMap `<js>-config` with the hostfile, ServiceAccount/Role/RoleBinding `<js>-ssh-keygen`,
JobSet `<js>` with replicated jobs ssh-keygen, worker and launcher). Expected numbers are
worked out by hand: GPUs = Σ replicas × min(parallelism, completions) × GPUs of one pod,
slots = the hostfile's.
"""

from __future__ import annotations

import json

import pytest

from mpigen.review.diff.compare import compare
from mpigen.review.live import resource_path
from tests.support.golden_edits import keys, only_job

API = "jobset.x-k8s.io/v1alpha2"


def pods(name: str, count: int, container: dict, **spec) -> dict:
    """A replicated job of `count` pods (replicas 1, Indexed, parallelism = completions)."""
    return {"name": name, "groupName": "default", "replicas": 1,
            "template": {"spec": {"completionMode": "Indexed", "parallelism": count, "completions": count,
                                  "backoffLimit": 0,
                                  "template": {"spec": {"restartPolicy": "Never", "containers": [container],
                                                        **spec}}}}}


def jobset(js: str, workers: int, gpus: int, keygen: bool = True, **spec) -> dict:
    worker = {"name": "mpi-worker", "image": "ghcr.io/acme/train:1",
              "command": ["/bin/sh", "/etc/mpigen-ssh/sshd.sh"],
              "resources": {"limits": {"nvidia.com/gpu": gpus, "cpu": "16"}}}
    launcher = {"name": "mpi-launcher", "image": "ghcr.io/acme/train:1", "command": ["mpirun", "python", "train.py"]}
    keygen_job = pods("ssh-keygen", 1, {"name": "publish-key", "image": "registry.k8s.io/kubectl:v1.30.14"},
                      serviceAccountName=f"{js}-ssh-keygen", automountServiceAccountToken=False,
                      initContainers=[{"name": "ssh-keygen", "image": "ghcr.io/acme/train:1"}])
    worker_job = pods("worker", workers, worker)
    launcher_job = pods("launcher", 1, launcher)
    if keygen:
        worker_job["dependsOn"] = [{"name": "ssh-keygen", "status": "Complete"}]
    launcher_job["dependsOn"] = [{"name": "worker", "status": "Ready"}]
    return {"network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True},
            "successPolicy": {"operator": "All", "targetReplicatedJobs": ["launcher"]},
            "startupPolicy": {"startupPolicyOrder": "AnyOrder"},
            "failurePolicy": {"maxRestarts": 0, "restartStrategy": "Recreate"},
            "replicatedJobs": ([keygen_job] if keygen else []) + [worker_job, launcher_job], **spec}


def hostfile(js: str, workers: int, slots: int, style: str = "openmpi") -> str:
    line = "{host} slots={slots}\n" if style == "openmpi" else "{host}:{slots}\n"
    return "".join(line.format(host=f"{js}-worker-0-{i}.{js}", slots=slots) for i in range(workers))


def render(name: str = "llm", run: str = "", workers: int = 2, gpus: int = 8, slots: int = 8,
           style: str = "openmpi", keygen: bool = True, **spec) -> dict[str, str]:
    """One job's files; with run, named `<name>-<run>` as under Argo CD and Flux."""
    js = f"{name}-{run}" if run else name
    labels = {"app.kubernetes.io/managed-by": "mpigen", "mpigen.dev/job": name, **({"mpigen.dev/run": run} if run else {})}

    def obj(api: str, kind: str, obj_name: str, **body) -> str:
        return json.dumps({"apiVersion": api, "kind": kind,
                           "metadata": {"name": obj_name, "namespace": "ml", "labels": labels}, **body})

    files = {f"ml/configmap-{js}-config.yaml": obj("v1", "ConfigMap", f"{js}-config",
                                                    data={"hostfile": hostfile(js, workers, slots, style)}),
             f"ml/jobset-{js}.yaml": obj(API, "JobSet", js, spec=jobset(js, workers, gpus, keygen, **spec))}
    if keygen:
        files[f"ml/serviceaccount-{js}-ssh-keygen.yaml"] = obj("v1", "ServiceAccount", f"{js}-ssh-keygen")
        files[f"ml/role-{js}-ssh-keygen.yaml"] = obj(
            "rbac.authorization.k8s.io/v1", "Role", f"{js}-ssh-keygen",
            rules=[{"apiGroups": [""], "resources": ["secrets"], "verbs": ["create"]},
                   {"apiGroups": [""], "resources": ["secrets"], "verbs": ["delete"], "resourceNames": [f"{js}-ssh"]}])
        files[f"ml/rolebinding-{js}-ssh-keygen.yaml"] = obj(
            "rbac.authorization.k8s.io/v1", "RoleBinding", f"{js}-ssh-keygen",
            roleRef={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": f"{js}-ssh-keygen"},
            subjects=[{"kind": "ServiceAccount", "name": f"{js}-ssh-keygen", "namespace": "ml"}])
    return files


def edit_jobset(files: dict[str, str], change) -> dict[str, str]:
    """A copy of files with change(JobSet object) applied to the one JobSet."""
    path = next(path for path in files if "/jobset-" in path)
    data = json.loads(files[path])
    change(data)
    return {**files, path: json.dumps(data)}


def worker_pod(data: dict) -> dict:
    return next(job for job in data["spec"]["replicatedJobs"] if job["name"] == "worker")["template"]["spec"]["template"]


# --- GPUs and slots -----------------------------------------------------------------------------

def test_added_jobset_job_starts_a_run_with_its_gpus_and_slots():
    report = compare({}, render(workers=4, gpus=8, slots=8))
    job = only_job(report)
    assert (job.namespace, job.job) == ("ml", "llm")
    assert keys(job.added) == ["ConfigMap ml/llm-config", "JobSet ml/llm", "Role ml/llm-ssh-keygen",
                               "RoleBinding ml/llm-ssh-keygen", "ServiceAccount ml/llm-ssh-keygen"]
    # 4 workers x 8 GPUs; the ssh-keygen and launcher pods have none; 4 hosts x slots=8.
    assert job.gpus == (0, 32) and job.slots == (0, 32)
    assert job.new_run and not job.ends_run and not report.immutable()
    text = report.format("text")
    assert "  GPUs 0 -> 32\n  slots 0 -> 32\n" in text
    assert "  starts a new run: a launcher Job is created\n" in text


@pytest.mark.parametrize("style", ["openmpi", "intelmpi"])
def test_both_hostfile_styles_are_counted(style):
    # `llm-worker-0-0.llm slots=4` (Open MPI) and `llm-worker-0-0.llm:4` (Intel MPI, MPICH)
    job = only_job(compare({}, render(workers=3, gpus=4, slots=4, style=style, keygen=False)))
    assert job.gpus == (0, 12) and job.slots == (0, 12)


def counted(replicated_jobs: list[dict], **spec) -> int:
    data = {"apiVersion": API, "kind": "JobSet", "metadata": {"name": "x", "labels": {"app": "x"}},
            "spec": {"replicatedJobs": replicated_jobs, **spec}}
    return only_job(compare({}, {"x.yaml": json.dumps(data)})).gpus[1]


def rj(gpus: int, replicas=None, **job_spec) -> dict:
    pod = {"spec": {"containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": gpus}}}]}}
    return {"name": f"rj{gpus}", **({} if replicas is None else {"replicas": replicas}),
            "template": {"spec": {**job_spec, "template": pod}}}


@pytest.mark.parametrize("replicated_jobs, spec, gpus", [
    ([rj(2, replicas=3, parallelism=4, completions=4)], {}, 24),   # 3 Jobs x 4 pods x 2
    ([rj(2, parallelism=4, completions=4)], {}, 8),                # replicas defaults to 1
    ([rj(2, replicas=2, parallelism=4, completions=2)], {}, 8),    # min(parallelism, completions) pods at once
    ([rj(2, replicas=2, completions=5)], {}, 4),                   # parallelism defaults to 1, as a Job's
    ([rj(2, replicas=2, parallelism="3")], {}, 12),                # no completions: parallelism pods
    ([rj(1, replicas=2, parallelism=2, completions=2), rj(8, parallelism=1, completions=1)], {}, 12),
    ([rj(2, replicas=3, parallelism=4, completions=4)], {"suspend": True}, 0),  # suspended: nothing runs
    ([rj(2, replicas=3, parallelism=4, completions=4)], {"suspend": False}, 24),
])
def test_jobset_gpu_totals(replicated_jobs, spec, gpus):
    assert counted(replicated_jobs, **spec) == gpus


def test_completed_suspends_the_jobset_releasing_gpus_and_slots():
    """state: completed renders `suspend: true`: a change the API server applies in place."""
    old = render(workers=2, gpus=8, slots=8)
    new = edit_jobset(old, lambda data: data["spec"].update(suspend=True))
    report = compare(old, new)
    job = only_job(report)
    assert job.gpus == (16, 0) and job.slots == (16, 0)
    assert not report.immutable() and not job.new_run and not job.ends_run
    assert [(str(c.key), [(f.path, f.op, f.new) for f in c.fields]) for c in job.changed] == [
        ("JobSet ml/llm", [("spec.suspend", "add", True)])]
    assert "  GPUs 16 -> 0\n  slots 16 -> 0\n" in report.format("text")


# --- a new run ----------------------------------------------------------------------------------

def test_new_run_under_gitops_replaces_every_object_and_is_not_immutable():
    """Argo CD and Flux: a new run is the JobSet `<name>-<run>` and its companions under a new
    run hash; the job is still one (the mpigen.dev/job label), the old run's objects go."""
    old = render(run="3f2a1c", workers=2, gpus=8)
    new = render(run="9b0e47", workers=4, gpus=8)
    report = compare(old, new)
    job = only_job(report)
    assert (job.namespace, job.job) == ("ml", "llm")
    assert keys(job.added) == ["ConfigMap ml/llm-9b0e47-config", "JobSet ml/llm-9b0e47", "Role ml/llm-9b0e47-ssh-keygen",
                               "RoleBinding ml/llm-9b0e47-ssh-keygen", "ServiceAccount ml/llm-9b0e47-ssh-keygen"]
    assert keys(job.removed) == ["ConfigMap ml/llm-3f2a1c-config", "JobSet ml/llm-3f2a1c",
                                 "Role ml/llm-3f2a1c-ssh-keygen", "RoleBinding ml/llm-3f2a1c-ssh-keygen",
                                 "ServiceAccount ml/llm-3f2a1c-ssh-keygen"]
    assert job.changed == [] and not report.immutable()
    assert job.new_run and job.ends_run and not job.restarts_workers
    assert job.gpus == (16, 32) and job.slots == (16, 32)
    text = report.format("text")
    assert text.splitlines()[0] == "job ml/llm"
    assert "  starts a new run: a launcher Job is created\n  ends the run: a launcher Job is deleted\n" in text
    assert "| ml/llm |  | +5 −5 ~0 | **2 → 4** | **16 → 32** |  | new run, ends run |" in report.format("markdown")
    data = json.loads(report.format("json"))["jobs"][0]
    assert (data["newRun"], data["endsRun"], data["immutable"]) == (True, True, [])


def test_removed_jobset_ends_the_run():
    job = only_job(compare(render(keygen=False), {}))
    assert job.ends_run and not job.new_run and job.gpus == (16, 0) and job.slots == (16, 0)


# --- changes Kubernetes refuses -----------------------------------------------------------------

def test_more_workers_in_place_is_immutable():
    """Without GitOps the JobSet keeps its name: a new worker count is refused by the webhook."""
    old = render(workers=2)
    new = render(workers=3)
    report = compare(old, new)
    job = only_job(report)
    assert job.gpus == (16, 24) and job.slots == (16, 24)
    assert [(str(f.key), f.path) for f in job.immutable] == [("JobSet ml/llm", "spec.replicatedJobs[worker]")]
    assert not job.new_run and not job.ends_run
    text = report.format("text")
    assert ("IMMUTABLE: Kubernetes refuses to change spec.replicatedJobs[worker] of JobSet ml/llm: Argo CD and "
            "Flux will fail to sync it; delete and recreate the object (give the run a new name) instead\n") in text
    paths = [f.path for f in next(c for c in job.changed if c.key.kind == "JobSet").fields]
    assert paths == ["spec.replicatedJobs[worker].template.spec.completions",
                     "spec.replicatedJobs[worker].template.spec.parallelism"]
    markdown = report.format("markdown")
    assert "> - ⚠️ Kubernetes refuses to change spec.replicatedJobs\\[worker\\] of JobSet ml/llm" in markdown
    assert json.loads(report.format("json"))["jobs"][0]["immutable"][0]["path"] == "spec.replicatedJobs[worker]"


def launcher_image(data: dict) -> None:
    launcher = next(job for job in data["spec"]["replicatedJobs"] if job["name"] == "launcher")
    launcher["template"]["spec"]["template"]["spec"]["containers"][0]["image"] = "ghcr.io/acme/train:2"


def drop_keygen(data: dict) -> None:
    data["spec"]["replicatedJobs"] = data["spec"]["replicatedJobs"][1:]


@pytest.mark.parametrize("change, immutable", [
    (launcher_image, ["spec.replicatedJobs[launcher]"]),
    (drop_keygen, ["spec.replicatedJobs"]),  # a replicated job added or removed: the list as a whole
    (lambda d: d["spec"].update(network={"enableDNSHostnames": True}), ["spec.network"]),
    (lambda d: d["spec"].update(successPolicy={"operator": "Any"}), ["spec.successPolicy"]),
    (lambda d: d["spec"]["failurePolicy"].update(maxRestarts=3), ["spec.failurePolicy"]),
    (lambda d: d["spec"].update(startupPolicy={"startupPolicyOrder": "InOrder"}), ["spec.startupPolicy"]),
    (lambda d: d["spec"].update(managedBy="kueue.x-k8s.io/multikueue"), ["spec.managedBy"]),
    (lambda d: d["spec"].update(volumeClaimPolicies=[{"templates": []}]), ["spec.volumeClaimPolicies"]),
    (lambda d: (launcher_image(d), d["spec"].pop("network")), ["spec.replicatedJobs[launcher]", "spec.network"]),
    # what may change on a running JobSet
    (lambda d: d["spec"].update(ttlSecondsAfterFinished=600), []),
    (lambda d: d["spec"].update(coordinator={"replicatedJob": "launcher"}), []),
    # but not a queue: Kueue v0.19.2 validateUpdateForQueueName (jobframework/validation.go)
    (lambda d: d["metadata"]["labels"].update({"kueue.x-k8s.io/queue-name": "gpus"}),
     ['metadata.labels["kueue.x-k8s.io/queue-name"]']),
    (lambda d: d["metadata"].update(annotations={"argocd.argoproj.io/sync-wave": "0"}), []),
])
def test_jobset_immutable_rules(change, immutable):
    old = render()
    report = compare(old, edit_jobset(old, change))
    assert [f.path for f in only_job(report).immutable] == immutable
    assert report.immutable() == bool(immutable)


def pod_labels(data: dict) -> None:
    worker_pod(data).setdefault("metadata", {})["labels"] = {"team": "llm"}


def pod_annotations(data: dict) -> None:
    worker_pod(data)["metadata"] = {"annotations": {"kueue.x-k8s.io/podset-preferred-topology": "rack"}}


def node_selector(data: dict) -> None:
    worker_pod(data)["spec"]["nodeSelector"] = {"pool": "h100"}


def tolerations(data: dict) -> None:
    worker_pod(data)["spec"]["tolerations"] = [{"key": "gpu", "operator": "Exists"}]


def scheduling_gates(data: dict) -> None:
    worker_pod(data)["spec"]["schedulingGates"] = [{"name": "example.com/gate"}]


def worker_image(data: dict) -> None:
    worker_pod(data)["spec"]["containers"][0]["image"] = "ghcr.io/acme/train:2"


@pytest.mark.parametrize("change", [pod_labels, pod_annotations, node_selector, tolerations, scheduling_gates])
@pytest.mark.parametrize("suspended", ["old", "new", "both", "neither"])
def test_pod_template_scheduling_fields_change_only_while_suspended(change, suspended):
    """The webhook lets Kueue change these while the old or the new JobSet is suspended;
    on a running JobSet they are as immutable as the rest of replicatedJobs."""
    old = render(suspend=suspended in ("old", "both"))
    new = edit_jobset(old, lambda d: (change(d), d["spec"].update(suspend=suspended in ("new", "both"))))
    expected = [] if suspended != "neither" else ["spec.replicatedJobs[worker]"]
    assert [f.path for f in only_job(compare(old, new)).immutable] == expected


def test_suspended_jobset_still_refuses_other_pod_changes():
    old = render(suspend=True)
    new = edit_jobset(old, lambda d: (worker_image(d), pod_labels(d)))
    assert [f.path for f in only_job(compare(old, new)).immutable] == ["spec.replicatedJobs[worker]"]


def test_jobset_of_another_group_is_not_checked():
    """Only jobset.x-k8s.io JobSets follow these rules."""
    def other(spec: dict) -> dict[str, str]:
        return {"o.yaml": json.dumps({"apiVersion": "example.com/v1", "kind": "JobSet", "metadata": {"name": "o"},
                                      "spec": spec})}

    report = compare(other({"network": {"a": 1}}), other({"network": {"a": 2}}))
    assert not report.immutable() and only_job(report).gpus == (0, 0)


def test_diff_live_reads_jobsets_from_their_api_path():
    obj = {"apiVersion": API, "kind": "JobSet", "metadata": {"name": "llm", "namespace": "ml"}}
    assert resource_path(obj) == "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/llm"
