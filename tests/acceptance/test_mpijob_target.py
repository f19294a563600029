"""Target mpijob: the MPIJob resource, checked against the operators' own rules
(shared/reference/mpi-operator.md: v2beta1 in section 4.1, the training-operator's v1 in
section 3.1) and its pod templates against the Kubernetes schema."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from tests.support.blueprints import blueprint_text, example_blueprints
from tests.support.command_line import run_mpigen
from tests.support.kubernetes_schema import validate
from tests.support.golden import MPIJOB_REFUSED
from tests.support.paths import GOLDEN, ROOT
from tests.support.rendering import extra_objects

DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
KUEUE_QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


def golden_objects(api: str) -> list[dict]:
    """Everything in golden/mpijob-<api>.yaml: the MPIJobs and mpigen's own objects next to them."""
    return [d for d in yaml.safe_load_all((GOLDEN / f"mpijob-{api}.yaml").read_text()) if d]


def golden(api: str) -> list[dict]:
    """The MPIJobs of golden/mpijob-<api>.yaml."""
    return [d for d in golden_objects(api) if d["kind"] == "MPIJob"]


def render(tmp_path, *args: str, **spec) -> list[dict]:
    (tmp_path / "job.yaml").write_text(blueprint_text("train", namespace="ml", **spec))
    done = run_mpigen("render", "job.yaml", "--stdout", "--target", "mpijob", *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return [d for d in yaml.safe_load_all(done.stdout) if d]


def check_v2beta1(job: dict, blueprint: dict) -> None:
    """pkg/apis/kubeflow/validation/validation.go (MO@caa3c47), and the defaults written out
    (or the blueprint's own value)."""
    spec = job["spec"]
    replicas = spec["mpiReplicaSpecs"]
    workers = replicas["Worker"]["replicas"]
    last = f"{job['metadata']['name']}-worker-{max(workers, 1) - 1}"
    assert DNS1035.match(last) and len(last) <= 63
    assert spec["slotsPerWorker"] >= 0
    assert spec["sshAuthMountPath"] == blueprint["spec"].get("security", {}).get("sshAuthMountPath", "/root/.ssh")
    assert spec["mpiImplementation"] in ("OpenMPI", "Intel", "MPICH")
    assert spec["launcherCreationPolicy"] in ("AtStartup", "WaitForWorkersReady")
    assert spec["runLauncherAsWorker"] is blueprint["spec"].get("launcher", {}).get("runAsWorker", False)
    policy = spec["runPolicy"]
    assert policy["cleanPodPolicy"] in ("None", "Running", "All")
    if KUEUE_QUEUE_LABEL in job["metadata"].get("labels", {}):
        # Kueue's webhook suspends a queued job and Kueue resumes it: no value in Git to fight it
        assert "suspend" not in policy
    else:
        assert policy["suspend"] in (True, False)
    assert all(policy.get(k, 0) >= 0 for k in ("ttlSecondsAfterFinished", "activeDeadlineSeconds", "backoffLimit"))
    assert replicas["Launcher"]["replicas"] == 1 and workers >= 1
    assert replicas["Launcher"]["restartPolicy"] == "OnFailure" and replicas["Worker"]["restartPolicy"] == "Never"
    for replica in replicas.values():
        assert replica["restartPolicy"] in ("Never", "OnFailure") and replica["template"]["spec"]["containers"]


def check_v1(job: dict, blueprint: dict) -> None:
    """pkg/apis/kubeflow.org/v1/mpi_validation.go and mpi_defaults.go (TO@v1.9.0)."""
    replicas = job["spec"]["mpiReplicaSpecs"]
    assert set(replicas) == {"Launcher", "Worker"} and replicas["Launcher"]["replicas"] == 1
    for replica in replicas.values():
        assert replica["restartPolicy"] == "Never"
        for container in replica["template"]["spec"]["containers"]:
            assert container["name"] and container["image"]
    assert job["spec"]["runPolicy"]["cleanPodPolicy"] in ("None", "Running", "All")


@pytest.mark.parametrize("api, check", [("v2beta1", check_v2beta1), ("v1", check_v1)])
def test_golden_mpijobs_pass_the_operators_validation(api, check):
    examples = example_blueprints()
    jobs = golden(api)
    assert jobs and all(j["apiVersion"] == f"kubeflow.org/{api}" and j["kind"] == "MPIJob" for j in jobs)
    for job in jobs:
        check(job, examples[job["metadata"]["labels"]["mpigen.dev/job"]])
    # Next to the MPIJobs, only mpigen's own objects of those jobs (<job>-mpigen, <job>-identity;
    # no PodGroup: the operator creates it), each valid for Kubernetes.
    others = [o for o in golden_objects(api) if o["kind"] != "MPIJob"]
    assert sorted((o["kind"], o["metadata"]["name"]) for o in others) == sorted(
        (kind, job["metadata"]["name"] + suffix) for job in jobs
        for kind, suffix in extra_objects(examples[job["metadata"]["labels"]["mpigen.dev/job"]], "mpijob"))
    for obj in others:
        validate(obj)


@pytest.mark.parametrize("api", ["v2beta1", "v1"])
def test_pod_templates_validate_against_kubernetes(api):
    for job in golden(api):
        for role, replica in job["spec"]["mpiReplicaSpecs"].items():
            validate({"apiVersion": "v1", "kind": "PodTemplate",
                      "metadata": {"name": f"{job['metadata']['name']}-{role.lower()}", "namespace": "x"},
                      "template": replica["template"]})


def test_every_example_is_rendered_as_a_v2beta1_mpijob():
    refused = {yaml.safe_load((ROOT / path).read_text())["metadata"]["name"] for path in MPIJOB_REFUSED}
    examples = {name: data for name, data in example_blueprints().items() if name not in refused}
    names = {j["metadata"]["labels"]["mpigen.dev/job"] for j in golden("v2beta1")}
    assert names == set(examples) and refused  # the refused ones: test_failure_policy_example.py
    implementations = {j["metadata"]["name"]: j["spec"]["mpiImplementation"] for j in golden("v2beta1")}
    # the blueprint's mpiImplementation (default OpenMPI) as v2beta1 spells it: IntelMPI is Intel
    expected = {}
    for name, data in examples.items():
        implementation = data["spec"].get("mpiImplementation", "OpenMPI")
        expected[name] = "Intel" if implementation == "IntelMPI" else implementation
    assert implementations == expected
    assert set(implementations.values()) == {"OpenMPI", "Intel", "MPICH"}


def test_the_blueprint_is_carried_over(tmp_path):
    job, = render(tmp_path, workers=3, gpusPerWorker=4, image="reg.example.com/t:1", env={"A": "1"},
                  runPolicy={"cleanPodPolicy": "Running", "backoffLimit": 2, "activeDeadlineSeconds": 60},
                  datasets=[{"name": "d", "mountPath": "/d", "pvc": "claim"}])
    spec = job["spec"]
    assert spec["slotsPerWorker"] == 4 and spec["mpiReplicaSpecs"]["Worker"]["replicas"] == 3
    assert spec["runPolicy"] == {"cleanPodPolicy": "Running", "backoffLimit": 2, "activeDeadlineSeconds": 60,
                                 "suspend": False}
    launcher = spec["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]
    worker = spec["mpiReplicaSpecs"]["Worker"]["template"]["spec"]
    assert launcher["containers"][0]["command"][:3] == ["mpirun", "-np", "12"]
    assert launcher["containers"][0]["env"] == [{"name": "A", "value": "1"},
                                                {"name": "PRTE_MCA_prte_default_hostfile",
                                                 "value": "/etc/mpi/hostfile"}]
    assert "command" not in worker["containers"][0]  # the operator runs sshd in the workers
    assert worker["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "4"
    assert "nvidia.com/gpu" not in launcher["containers"][0].get("resources", {}).get("limits", {})
    # and a GPU job's /dev/shm: 1Gi per GPU (no worker memory limit to cap it at half)
    assert worker["volumes"] == [{"name": "d", "persistentVolumeClaim": {"claimName": "claim"}},
                                 {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "4Gi"}}]


def test_v1_keeps_main_container_and_both_prte_variables(tmp_path):
    job, = render(tmp_path, "--mpijob-api", "kubeflow.org/v1", mainContainer="trainer")
    assert job["spec"]["mainContainer"] == "trainer"
    env = job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["env"]
    assert env == [{"name": "PRTE_MCA_plm_ssh_agent", "value": "/etc/mpi/kubexec.sh"},
                   {"name": "PRTE_MCA_prte_default_hostfile", "value": "/etc/mpi/hostfile"}]
    assert "mpiImplementation" not in job["spec"] and "sshAuthMountPath" not in job["spec"]


def test_v1_refuses_hydra_implementations_at_the_blueprint_line(tmp_path):
    text = blueprint_text("train", mpiImplementation="MPICH")
    (tmp_path / "job.yaml").write_text(text)
    done = run_mpigen("render", "job.yaml", "--stdout", "--target", "mpijob", "--mpijob-api", "kubeflow.org/v1",
                      cwd=tmp_path)
    line = next(i for i, l in enumerate(text.splitlines(), 1) if '"mpiImplementation"' in l)
    column = text.splitlines()[line - 1].index('"MPICH"') + 1
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().startswith(f"job.yaml:{line}:{column}: error: spec.mpiImplementation: MPICH cannot")


def test_v1_refuses_a_queue_kueue_would_not_keep(tmp_path):
    """Kueue manages only the v2beta1 MPIJob (kubernetes-sigs/kueue v0.19.2
    pkg/controller/jobs/mpijob/mpijob_controller.go imports mpi-operator's pkg/apis/kubeflow/v2beta1;
    pkg/controller/jobs/kubeflow/jobs/ has no MPIJob): a v1 MPIJob with the queue label would run
    at once. Refused at the queue's line; v2beta1 takes it."""
    document = json.loads(blueprint_text("train"))
    document["spec"]["scheduling"] = {"queue": "team-gpus"}
    text = json.dumps(document, indent=1)
    (tmp_path / "job.yaml").write_text(text)
    done = run_mpigen("render", "job.yaml", "--stdout", "--target", "mpijob", "--mpijob-api", "kubeflow.org/v1",
                      cwd=tmp_path)
    line = next(i for i, l in enumerate(text.splitlines(), 1) if '"queue"' in l)
    column = text.splitlines()[line - 1].index('"team-gpus"') + 1
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().startswith(f"job.yaml:{line}:{column}: error: spec.scheduling.queue with "
                                           "--mpijob-api kubeflow.org/v1: Kueue manages only")
    taken = run_mpigen("render", "job.yaml", "--stdout", "--target", "mpijob", cwd=tmp_path)
    assert taken.returncode == 0, taken.stderr


def test_completed_suspends_and_archived_removes(tmp_path):
    job, = render(tmp_path, state="completed")
    assert job["spec"]["runPolicy"]["suspend"] is True
    assert render(tmp_path, state="archived") == []


def test_gitops_profiles_name_the_mpijob_per_run(tmp_path):
    first, = render(tmp_path, "--gitops", "argocd", image="a:1")
    labelled = json.loads(blueprint_text("train", namespace="ml", image="a:1"))
    labelled["metadata"]["labels"] = {"team": "vision"}
    (tmp_path / "job.yaml").write_text(json.dumps(labelled))
    done = run_mpigen("render", "job.yaml", "--stdout", "--target", "mpijob", "--gitops", "argocd", cwd=tmp_path)
    relabelled, = [d for d in yaml.safe_load_all(done.stdout) if d]
    assert relabelled["metadata"]["labels"]["team"] == "vision"
    assert "metadata" not in relabelled["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]
    second, = render(tmp_path, "--gitops", "argocd", image="a:2")
    run = first["metadata"]["labels"]["mpigen.dev/run"]
    assert first["metadata"]["name"] == f"train-{run}" and re.fullmatch(r"[0-9a-f]{6}", run)
    assert relabelled["metadata"]["name"] == first["metadata"]["name"]
    assert second["metadata"]["name"] != first["metadata"]["name"]


def test_diff_counts_gpus_and_slots_of_mpijobs_and_sees_runs():
    from mpigen.review.diff.compare import compare

    root = GOLDEN / "mpijob-v2beta1"
    old = {p.relative_to(root).as_posix(): p.read_text() for p in root.rglob("*.yaml")}
    path = "ml-team/mpijob-resnet50-imagenet.yaml"
    new = dict(old, **{path: old[path].replace("replicas: 4\n", "replicas: 2\n")})
    job, = compare(old, new).jobs
    assert job.gpus == (32, 16) and job.slots == (32, 16)  # 4 -> 2 workers x 8 GPUs and slots
    assert not job.new_run and not job.immutable
    suspended = dict(old, **{path: old[path].replace("suspend: false", "suspend: true")})
    job, = compare(old, suspended).jobs
    assert job.gpus == (32, 0) and job.slots == (32, 0)
    renamed = {p: t for p, t in old.items() if p != path}
    renamed["ml-team/mpijob-resnet50-imagenet-abc123.yaml"] = old[path].replace(
        "name: resnet50-imagenet\n", "name: resnet50-imagenet-abc123\n")
    job, = compare(old, renamed).jobs
    assert job.new_run and job.ends_run and not job.immutable


def test_the_crd_goes_only_where_an_environment_renders_mpijobs(tmp_path):
    """Issue 30, item 5: mpigen.yaml's withCRD with overlays on several targets: the CRD is in
    the folder of each mpijob environment alone (an environment's Application or Kustomization
    owns and prunes what its folder holds), whichever target mpigen.yaml names."""
    (tmp_path / "blueprints").mkdir()
    (tmp_path / "blueprints" / "job.yaml").write_text(blueprint_text("train", namespace="ml"))
    overlays = {"dev": "mpijob", "prod": "jobset", "staging": "trainjob"}
    for name, target in overlays.items():
        (tmp_path / "overlays" / name).mkdir(parents=True)
        (tmp_path / "overlays" / name / "overlay.yaml").write_text(
            f"apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\ntarget: {target}\n")
    for default in ("mpijob", "jobset"):
        (tmp_path / "mpigen.yaml").write_text("apiVersion: mpigen.dev/v1alpha1\nkind: Config\noutput: out\n"
                                              f"overlays: [dev, prod, staging]\ntarget: {default}\nwithCRD: true\n")
        done = run_mpigen("render", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        crds = sorted(p.relative_to(tmp_path / "out").as_posix()
                      for p in (tmp_path / "out").rglob("customresourcedefinition-*.yaml"))
        assert crds == ["dev/_cluster/customresourcedefinition-mpijobs.kubeflow.org.yaml"], default
