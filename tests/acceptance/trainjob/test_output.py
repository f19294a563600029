"""What --target trainjob writes, against what the Kubeflow Trainer v2.3.0 reads
(shared/reference/targets.md 2.1-2.7): a TrainJob whose runtimeRef names the runtime, the
trainer fields the Trainer writes over the runtime (image, command, env on the launcher;
numNodes and numProcPerNode sizing the node job and the hostfile), and a runtime with the
MPI policy, the replicated jobs `node` then `launcher` (the trainer ancestor), and the main
container of both named `node`: the MPI plugin mounts the key and hostfile only there."""

from __future__ import annotations

import json
import subprocess

import pytest
import yaml

from tests.support.blueprints import blueprint_text
from tests.support.command_line import run_mpigen
from tests.support.rendering import by_kind, render_text
from tests.support.text import pos, write

ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"
RESERVED = {"OMPI_MCA_orte_default_hostfile", "OMPI_MCA_plm_rsh_args", "OMPI_MCA_orte_keep_fqdn_hostnames",
            "OMPI_MCA_orte_set_default_slots"}  # TR:pkg/constants MPIReservedEnvNames


def render(**spec) -> dict[str, dict]:
    return by_kind(render_text(blueprint_text(**spec), target="trainjob"))


def jobs(runtime: dict) -> dict[str, dict]:
    return {job["name"]: job for job in runtime["spec"]["template"]["spec"]["replicatedJobs"]}


def pod(runtime: dict, job: str) -> dict:
    return jobs(runtime)[job]["template"]["spec"]["template"]["spec"]


def test_a_trainjob_references_the_runtime_mpigen_writes_for_it():
    objects = render(workers=3, gpusPerWorker=2, env={"NCCL_DEBUG": "INFO"})
    trainjob, runtime = objects["TrainJob"], objects["TrainingRuntime"]
    assert trainjob["apiVersion"] == runtime["apiVersion"] == "trainer.kubeflow.org/v1alpha1"
    assert trainjob["spec"]["runtimeRef"] == {"name": "job", "apiGroup": "trainer.kubeflow.org",
                                              "kind": "TrainingRuntime"}
    assert runtime["metadata"]["namespace"] == trainjob["metadata"]["namespace"] == "default"
    trainer = trainjob["spec"]["trainer"]
    assert trainer["image"] == "example.com/train:1"
    assert trainer["command"][:3] == ["mpirun", "-np", "6"] and trainer["command"][-2:] == ["python", "train.py"]
    assert trainer["env"] == [{"name": "NCCL_DEBUG", "value": "INFO"}]
    assert (trainer["numNodes"], trainer["numProcPerNode"]) == (3, 2)
    # The Trainer merges resourcesPerNode into the launcher alone unless it is a node: the
    # workers' GPUs stay in the runtime's node job.
    assert "resourcesPerNode" not in trainer
    assert pod(runtime, "node")["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "2"
    assert "nvidia.com/gpu" not in pod(runtime, "launcher")["containers"][0].get("resources", {}).get("limits", {})


def test_the_runtime_is_the_mpi_policy_with_node_then_launcher():
    runtime = render()["TrainingRuntime"]
    policy = runtime["spec"]["mlPolicy"]
    assert policy["numNodes"] == 1  # the launcher count: the trainer ancestor's
    assert policy["mpi"]["mpiImplementation"] == "OpenMPI" and policy["mpi"]["runLauncherAsNode"] is False
    replicated = runtime["spec"]["template"]["spec"]["replicatedJobs"]
    assert [job["name"] for job in replicated] == ["node", "launcher"]
    assert replicated[1]["template"]["metadata"]["labels"] == {ANCESTOR: "trainer"}
    assert replicated[1]["dependsOn"] == [{"name": "node", "status": "Ready"}]
    assert ANCESTOR not in replicated[0]["template"].get("metadata", {}).get("labels", {})
    for job in ("node", "launcher"):
        assert pod(runtime, job)["containers"][0]["name"] == "node"
    node = pod(runtime, "node")["containers"][0]
    assert node["readinessProbe"]["tcpSocket"]["port"] == 2222
    assert "command" not in pod(runtime, "launcher")["containers"][0]  # the TrainJob's trainer.command


def test_the_launcher_as_a_node_is_one_of_num_nodes():
    """runLauncherAsNode: the Trainer makes numNodes - 1 node pods and lists the launcher in
    the hostfile, and gives resourcesPerNode to both jobs."""
    objects = render(workers=2, gpusPerWorker=4, launcher={"runAsWorker": True})
    trainer = objects["TrainJob"]["spec"]["trainer"]
    assert trainer["numNodes"] == 3
    assert trainer["resourcesPerNode"]["limits"]["nvidia.com/gpu"] == "4"
    assert objects["TrainingRuntime"]["spec"]["mlPolicy"]["mpi"]["runLauncherAsNode"] is True


@pytest.mark.parametrize("implementation", ["MPICH", "IntelMPI"])
def test_hydra_uses_the_mpi_policy_and_its_own_hostfile(implementation):
    objects = render(mpiImplementation=implementation)
    runtime, trainjob = objects["TrainingRuntime"], objects["TrainJob"]
    assert runtime["spec"]["mlPolicy"]["mpi"]["mpiImplementation"] == "OpenMPI"  # the CRD's only value
    assert runtime["metadata"]["annotations"]["mpigen.dev/mpi-implementation"] == implementation
    launcher = pod(runtime, "launcher")
    [setup] = [c for c in launcher["initContainers"] if c["name"] == "ssh-setup"]
    assert "sed 's/ slots=/:/' /etc/mpi/hostfile > /etc/mpigen-ssh/hostfile" in setup["command"][2]
    assert {"name": "mpi-hostfile", "mountPath": "/etc/mpi", "readOnly": True} in setup["volumeMounts"]
    env = {e["name"]: e.get("value") for e in launcher["containers"][0]["env"]}
    hostfile = "HYDRA_HOST_FILE" if implementation == "MPICH" else "I_MPI_HYDRA_HOST_FILE"
    assert env[hostfile] == "/etc/mpigen-ssh/hostfile"
    assert trainjob["spec"]["trainer"]["command"][1:3] == ["-localhost", "job-launcher-0-0.job"]


def test_no_variable_the_trainer_reserves_is_written():
    objects = render()
    launcher = pod(objects["TrainingRuntime"], "launcher")["containers"][0]
    names = {e["name"] for e in launcher["env"]} | {e["name"] for e in objects["TrainJob"]["spec"]["trainer"].get("env", [])}
    assert not names & RESERVED
    assert {"PRTE_MCA_prte_default_hostfile", "PRTE_MCA_plm_ssh_args", "OMPI_MCA_plm_rsh_agent"} <= names


def test_every_pod_copies_the_trainers_key_for_its_user():
    runtime = render(security={"runAsUser": 1000, "fsGroup": 1000})["TrainingRuntime"]
    for job in ("node", "launcher"):
        spec = pod(runtime, job)
        [setup] = [c for c in spec["initContainers"] if c["name"] == "ssh-setup"]
        assert {"name": "mpi-ssh-auth", "mountPath": "/etc/mpi-ssh-auth", "readOnly": True} in setup["volumeMounts"]
        assert "cp /etc/mpi-ssh-auth/id_rsa /etc/mpigen-ssh/key" in setup["command"][2]
        assert {"name": "mpigen-ssh", "emptyDir": {"medium": "Memory"}} in spec["volumes"]
    assert runtime["spec"]["mlPolicy"]["mpi"]["sshAuthMountPath"] == "/etc/mpi-ssh-auth"


def test_kueue_labels_go_on_the_trainjob_alone():
    objects = render(scheduling={"queue": "team-a", "priorityClass": "high", "multiKueue": True,
                                 "topology": {"required": "cloud.provider.com/rack"}})
    trainjob, runtime = objects["TrainJob"], objects["TrainingRuntime"]
    assert trainjob["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a"
    assert trainjob["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] == "high"
    assert trainjob["spec"]["managedBy"] == "kueue.x-k8s.io/multikueue"
    assert "kueue.x-k8s.io/queue-name" not in runtime["metadata"]["labels"]
    node = jobs(runtime)["node"]["template"]["spec"]["template"]
    assert node["metadata"]["annotations"]["kueue.x-k8s.io/podset-required-topology"] == "cloud.provider.com/rack"



# The TrainJob CRD's defaults (Trainer v2.3.0 manifests/base/crds/trainer.kubeflow.org_trainjobs.yaml:
# spec.managedBy default trainer.kubeflow.org/trainjob-controller, spec.suspend default false).
CRD_DEFAULTS = {"managedBy": "trainer.kubeflow.org/trainjob-controller", "suspend": False}


def test_a_trainjob_states_the_crds_defaults():
    """The API server stores them whatever the TrainJob says: written out, the stored object
    is the committed one."""
    spec = render()["TrainJob"]["spec"]
    assert {key: spec.get(key) for key in CRD_DEFAULTS} == CRD_DEFAULTS
    assert render(state="completed")["TrainJob"]["spec"]["suspend"] is True
    assert render(scheduling={"queue": "q", "multiKueue": True})["TrainJob"]["spec"]["managedBy"] == \
           "kueue.x-k8s.io/multikueue"


def test_under_a_kueue_queue_the_suspend_is_kueues():
    """Kueue v0.19.2 pkg/controller/jobs/trainjob/trainjob_webhook.go Default suspends a TrainJob
    with a queue label on creation (WorkloadShouldBeSuspended), and admission resumes it: Git
    stating either value would undo the other on a re-apply, so Git states none while it runs,
    and a completed queued TrainJob is not in Git at all (mpigen.render.kueue)."""
    running = render(scheduling={"queue": "team-a"})["TrainJob"]["spec"]
    assert "suspend" not in running and running["managedBy"] == CRD_DEFAULTS["managedBy"]
    assert "TrainJob" not in render(scheduling={"queue": "team-a"}, state="completed")


def test_the_defaults_leave_the_runs_names_alone(monkeypatch):
    """A render that writes them names each run as a render without them does
    (mpigen.render.parts.gitops: the run is a hash of the objects), so a running job is not
    replaced when mpigen starts writing them."""
    def names() -> list[str]:
        return [by_kind(render_text(blueprint_text(state=state), target="trainjob", gitops=gitops))["TrainJob"]
                ["metadata"]["name"] for gitops in ("argocd", "flux") for state in ("running", "completed")]

    written = names()
    monkeypatch.setattr("mpigen.render.trainjob.target.with_crd_defaults", lambda trainjob, job, completed: None)
    assert names() == written and len(set(written)) == 1


def test_gang_scheduling_is_the_runtimes_pod_group_policy():
    coscheduling = render(scheduling={"gang": {"scheduler": "scheduler-plugins"}})
    assert coscheduling["TrainingRuntime"]["spec"]["podGroupPolicy"] == {"coscheduling": {"scheduleTimeoutSeconds": 60}}
    assert "PodGroup" not in coscheduling  # the Trainer makes it
    volcano = render(scheduling={"gang": {"scheduler": "volcano", "queue": "research"}})["TrainingRuntime"]
    assert volcano["spec"]["podGroupPolicy"] == {"volcano": {}}
    assert volcano["spec"]["template"]["metadata"]["annotations"] == {"scheduling.volcano.sh/queue-name": "research"}


@pytest.mark.parametrize("gang, scheduler_name", [
    ({"scheduler": "volcano"}, "volcano"),
    ({"scheduler": "scheduler-plugins"}, "scheduler-plugins-scheduler"),
    ({"scheduler": "scheduler-plugins", "schedulerName": "gang-scheduler"}, "gang-scheduler"),
])
@pytest.mark.parametrize("as_worker", [False, True])
def test_the_gang_scheduler_places_every_pod_its_pod_group_counts(gang, scheduler_name, as_worker):
    """The Trainer labels every pod of the TrainJob into the PodGroup it makes, whose minMember
    is the sum of the pod sets' counts, the launcher's too (Trainer v2.3.0
    pkg/runtime/framework/plugins/{coscheduling,volcano}/*.go Build; jobset/builder.go PodLabels,
    PodAnnotations). So every pod names the gang's scheduler, and every pod set is created at
    once: a launcher that dependsOn Ready nodes would never exist, and the gang scheduler binds
    no node until it does. The launcher's ssh-setup waits for the nodes' sshd instead."""
    objects = render(scheduling={"gang": gang}, workers=3, launcher={"runAsWorker": as_worker})
    runtime, num_nodes = objects["TrainingRuntime"], objects["TrainJob"]["spec"]["trainer"]["numNodes"]
    replicated = jobs(runtime)
    assert all(pod(runtime, name)["schedulerName"] == scheduler_name for name in replicated)
    # The Trainer's pod set counts (mpi.go EnforceMLPolicy): node numNodes, or numNodes - 1 with
    # runLauncherAsNode; launcher 1. minMember is their sum.
    counts = {"node": max(num_nodes - 1, 1) if runtime["spec"]["mlPolicy"]["mpi"]["runLauncherAsNode"] else num_nodes,
              "launcher": 1}
    assert counts["node"] == 3
    assert sum(counts[name] for name, job in replicated.items() if "dependsOn" not in job) == sum(counts.values())
    [setup] = pod(runtime, "launcher")["initContainers"]
    script = setup["command"][-1]
    assert "done < /etc/mpi/hostfile" in script and 'ssh -F /etc/mpigen-ssh/ssh_config -n' in script
    assert {"name": "mpi-hostfile", "mountPath": "/etc/mpi", "readOnly": True} in setup["volumeMounts"]
    plain = render(workers=3)["TrainingRuntime"]
    assert jobs(plain)["launcher"]["dependsOn"] == [{"name": "node", "status": "Ready"}]
    assert "schedulerName" not in pod(plain, "node") and "/etc/mpi/hostfile" not in \
        pod(plain, "launcher")["initContainers"][0]["command"][-1]


def test_a_named_runtime_gets_runtime_patches_and_no_runtime_is_written():
    objects = render(runtime={"name": "mpi-openmpi"}, gpusPerWorker=8,
                     datasets=[{"name": "data", "mountPath": "/data", "pvc": "imagenet"}],
                     placement={"worker": {"nodeSelector": {"pool": "a100"}}})
    assert set(objects) == {"TrainJob"}
    spec = objects["TrainJob"]["spec"]
    assert spec["runtimeRef"] == {"name": "mpi-openmpi", "apiGroup": "trainer.kubeflow.org",
                                  "kind": "ClusterTrainingRuntime"}
    assert spec["trainer"]["resourcesPerNode"]["limits"]["nvidia.com/gpu"] == "8"
    [patch] = spec["runtimePatches"]
    assert patch["manager"] == "mpigen.dev/blueprint"  # the webhook wants a domain-prefixed manager
    replicated = {j["name"]: j["template"]["spec"]["template"]
                  for j in patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"]}
    assert set(replicated) == {"node", "launcher"}
    node = replicated["node"]["spec"]
    assert node["nodeSelector"] == {"pool": "a100"}
    assert {"name": "data", "persistentVolumeClaim": {"claimName": "imagenet"}} in node["volumes"]
    for template in replicated.values():  # the webhook refuses env for container node
        assert all(set(c) <= {"name", "volumeMounts", "securityContext"} for c in template["spec"].get("containers", []))
        assert all(c["name"] == "node" for c in template["spec"].get("containers", []))



@pytest.mark.parametrize("port", [2222, 22])
def test_a_named_runtimes_node_keeps_what_a_root_sshd_needs(port):
    """The patch drops every capability of container node, as the blueprint's pods do; a root
    sshd needs SYS_CHROOT, SETUID, SETGID, AUDIT_WRITE and KILL (and NET_BIND_SERVICE below
    1024; mpigen/render/parts/sshd.py): the patch carries them, as the runtime mpigen writes does."""
    named = render(runtime={"name": "mpi-openmpi"}, ssh={"port": port})["TrainJob"]["spec"]["runtimePatches"]
    [patch] = named
    replicated = {j["name"]: j["template"]["spec"]["template"]["spec"]
                  for j in patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"]}
    [node] = replicated["node"]["containers"]
    emitted = pod(render(ssh={"port": port})["TrainingRuntime"], "node")["containers"][0]
    assert node["securityContext"] == emitted["securityContext"]
    needed = {"AUDIT_WRITE", "KILL", "SETGID", "SETUID", "SYS_CHROOT"} | ({"NET_BIND_SERVICE"} if port < 1024 else set())
    assert set(node["securityContext"]["capabilities"]["add"]) == needed
    assert node["securityContext"]["capabilities"]["drop"] == ["ALL"]
    non_root = render(runtime={"name": "mpi-openmpi"}, security={"runAsUser": 1000, "fsGroup": 1000})
    [patch] = non_root["TrainJob"]["spec"]["runtimePatches"]
    [node] = patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"][
        "spec"]["containers"]
    assert "add" not in node["securityContext"]["capabilities"]  # a non-root sshd needs none



@pytest.mark.parametrize("implementation, variable", [("MPICH", "HYDRA_HOST_FILE"),
                                                      ("IntelMPI", "I_MPI_HYDRA_HOST_FILE")])
def test_hydra_on_a_named_runtime_reads_the_trainers_hostfile_converted(tmp_path, implementation, variable):
    """The Trainer's MPI plugin writes `<host> slots=<n>` (Trainer v2.3.0 mpi.go; its test:
    `test-job-node-0-0.test-job slots=8`) and Open MPI's variables only; Hydra reads `<host>:<n>`
    from the file its variable names, and refuses a `slots=` token. The launch line converts
    the file into a folder the launcher's runtime patch adds, and runs mpirun as it was."""
    spec = render(runtime={"name": "mpi-cluster"}, mpiImplementation=implementation)["TrainJob"]["spec"]
    command, env = spec["trainer"]["command"], spec["trainer"]["env"]
    assert {"name": variable, "value": "/etc/mpigen-hostfile/hostfile"} in env
    assert command[:2] == ["/bin/sh", "-c"] and command[4] == "mpirun"
    [patch] = spec["runtimePatches"]
    launcher = {j["name"]: j for j in patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"]}[
        "launcher"]["template"]["spec"]["template"]["spec"]
    assert {"name": "mpigen-hostfile", "emptyDir": {}} in launcher["volumes"]
    assert {"name": "mpigen-hostfile", "mountPath": "/etc/mpigen-hostfile"} in launcher["containers"][0]["volumeMounts"]
    (tmp_path / "mpi").mkdir()
    (tmp_path / "mpigen-hostfile").mkdir()
    (tmp_path / "mpi" / "hostfile").write_text("test-job-node-0-0.test-job slots=8\ntest-job-node-0-1.test-job slots=8\n")
    script = command[2].replace("/etc/", f"{tmp_path}/")
    done = subprocess.run([command[0], "-c", script, command[3], "cat", f"{tmp_path}/mpigen-hostfile/hostfile"],
                          capture_output=True, text=True, check=True)
    assert done.stdout == "test-job-node-0-0.test-job:8\ntest-job-node-0-1.test-job:8\n"
    openmpi = render(runtime={"name": "mpi-cluster"})["TrainJob"]["spec"]["trainer"]["command"]
    assert openmpi[0] == "mpirun"


def test_mpigen_yaml_and_an_overlay_name_the_default_runtime(tmp_path):
    write(tmp_path / "mpigen.yaml", "apiVersion: mpigen.dev/v1alpha1\nkind: Config\ntarget: trainjob\n"
          "trainingRuntime: {name: platform-mpi}\noverlays: [dev]\n")
    write(tmp_path / "blueprints" / "a.yaml", blueprint_text("a"))
    write(tmp_path / "blueprints" / "b.yaml", blueprint_text("b", runtime={"emit": "TrainingRuntime"}))
    write(tmp_path / "overlays" / "dev" / "overlay.yaml", "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n")
    write(tmp_path / "overlays" / "prod" / "overlay.yaml",
          "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\ntrainingRuntime: {name: prod-mpi, kind: TrainingRuntime}\n")
    for overlay, expected in (("dev", {"name": "platform-mpi", "kind": "ClusterTrainingRuntime"}),
                              ("prod", {"name": "prod-mpi", "kind": "TrainingRuntime"})):
        done = run_mpigen("render", "--overlay", overlay, "--stdout", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        objects = [o for o in yaml.safe_load_all(done.stdout) if o]
        refs = {o["metadata"]["name"]: o["spec"]["runtimeRef"] for o in objects if o["kind"] == "TrainJob"}
        assert {k: refs["a"][k] for k in ("name", "kind")} == expected
        assert refs["b"]["kind"] == "TrainingRuntime" and refs["b"]["name"] == "b"  # the blueprint's own wins
        assert [o["metadata"]["name"] for o in objects if o["kind"] == "TrainingRuntime"] == ["b"]


def test_jobs_share_a_cluster_runtime_they_render_the_same(tmp_path):
    for name in ("a", "b"):
        write(tmp_path / f"{name}.yaml", blueprint_text(name, runtime={"emit": "ClusterTrainingRuntime"}))
    done = run_mpigen("render", str(tmp_path), "--target", "trainjob", "--stdout")
    assert done.returncode == 0, done.stderr
    objects = [o for o in yaml.safe_load_all(done.stdout) if o]
    [runtime] = [o for o in objects if o["kind"] == "ClusterTrainingRuntime"]
    assert "namespace" not in runtime["metadata"] and runtime["metadata"]["name"].startswith("mpigen-")
    assert {o["spec"]["runtimeRef"]["name"] for o in objects if o["kind"] == "TrainJob"} == {runtime["metadata"]["name"]}
    # Runtimes before TrainJobs: the Trainer refuses a TrainJob whose runtime does not exist.
    assert [o["kind"] for o in objects] == ["ClusterTrainingRuntime", "TrainJob", "TrainJob"]


def _runtime_name(text: str) -> str:
    """LINE:COLUMN of spec.runtime.name's value in a blueprint's text."""
    line, column = pos(text, "\"shared\"", after="\"runtime\":")
    return f"{line}:{column}"


def test_one_runtime_name_with_two_contents_is_an_error_naming_both(tmp_path):
    at_a = _runtime_name(write(tmp_path / "a.yaml",
                               blueprint_text("a", runtime={"emit": "ClusterTrainingRuntime", "name": "shared"})))
    at_b = _runtime_name(write(tmp_path / "b.yaml", blueprint_text("b", workers=3, gpusPerWorker=1,
                                                                   runtime={"emit": "ClusterTrainingRuntime",
                                                                            "name": "shared"})))
    out = tmp_path / "out"
    done = run_mpigen("render", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"), "--target", "trainjob", "-o", str(out),
                      text=True)
    assert done.returncode == 2 and not out.exists()
    # At spec.runtime.name, the field that names the runtime, of both jobs.
    assert f"{tmp_path / 'b.yaml'}:{at_b}: error: job default/b renders _cluster/clustertrainingruntime-shared.yaml, " \
           f"as the job at {tmp_path / 'a.yaml'}:{at_a} does with other content; give one of them another " \
           "spec.runtime.name" in done.stderr


def test_two_jobs_naming_their_training_runtime_alike_are_told_to_change_the_name_at_its_field(tmp_path):
    """Regression (issue 50): two jobs that write one TrainingRuntime by spec.runtime.name were
    told to rename one of the jobs, at metadata.name, whose name the runtime does not bear. A
    namespace holds one TrainingRuntime of a name (the API server's uniqueness of a namespaced
    object's name, k8s.io/apiserver pkg/registry/generic/registry/store.go Create: AlreadyExists),
    so the second would replace the first's: the error is at spec.runtime.name of each."""
    at = {name: _runtime_name(write(tmp_path / f"{name}.yaml",
                                    blueprint_text(name, runtime={"emit": "TrainingRuntime", "name": "shared"})))
          for name in ("a", "b")}
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    done = run_mpigen("render", str(a), str(b), "--target", "trainjob", "--stdout", text=True)
    assert done.returncode == 2 and not done.stdout
    assert f"{b}:{at['b']}: error: job default/b renders default/trainingruntime-shared.yaml, as the job at " \
           f"{a}:{at['a']} " \
           "does; give one of them another spec.runtime.name\n" in done.stderr
    assert "rename one of the jobs" not in done.stderr



@pytest.mark.parametrize("emitted, named, kind", [
    ({"emit": "ClusterTrainingRuntime", "name": "shared"}, {"name": "shared"}, "ClusterTrainingRuntime shared"),
    ({"emit": "TrainingRuntime"}, {"name": "a", "kind": "TrainingRuntime"}, "TrainingRuntime default/a"),
])
def test_a_runtime_one_job_writes_and_another_says_the_cluster_has_names_both(tmp_path, emitted, named, kind):
    """mpigen would apply its runtime over the cluster's and prune it with the job that writes
    it: exit 2 at both blueprints' lines, in either order."""
    write(tmp_path / "a.yaml", blueprint_text("a", runtime=emitted))
    write(tmp_path / "b.yaml", blueprint_text("b", runtime=named))
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"  # metadata.name at 5:13, spec.runtime.name at 15:15
    out = tmp_path / "out"
    done = run_mpigen("render", str(a), str(b), "--target", "trainjob", "-o", str(out), text=True)
    assert done.returncode == 2 and not out.exists()
    assert f"{b}:15:15: error: job default/b says the cluster has {kind} (a runtime named without emit), which " \
           f"the job at {a}:5:13 writes; " in done.stderr
    done = run_mpigen("render", str(b), str(a), "--target", "trainjob", "--stdout", text=True)
    assert done.returncode == 2 and not done.stdout
    assert f"{a}:5:13: error: job default/a writes " in done.stderr
    assert f"the runtime the job at {b}:15:15 says the cluster has; " in done.stderr


def test_every_example_validates_against_the_trainer_models(tmp_path):
    done = run_mpigen("validate", "--output", "--target", "trainjob", "--format", "json", "blueprints")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    kinds = {o["kind"] for o in report["resources"]}
    assert {"TrainJob", "TrainingRuntime"} <= kinds
    assert all(o["status"] == "valid" for o in report["resources"])
