"""The port of Kubeflow Trainer v2.3.0 (tests/support/e2e/trainer) gives what the Trainer's own
tests expect: cases of pkg/runtime/framework/plugins/mpi/mpi_test.go (TestMPI) and of
pkg/runtime/core/trainingruntime_test.go (TestTrainingRuntimeNewObjects), their inputs and
expected outputs transcribed from the Go test wrappers (pkg/util/testing/wrapper.go)."""

from __future__ import annotations

import base64

import pytest

from tests.support.e2e.trainer.expand import expand
from tests.support.e2e.trainer.info import Info, PodSet, merge_runtime_patches, new_runtime_info
from tests.support.e2e.trainer.mpi import build, enforce_ml_policy, hostfile_volume, secret_volume

SECRET_VOLUME = {"name": "mpi-ssh-auth", "secret": {"secretName": "trainJob-mpi-ssh-auth", "defaultMode": 0o400, "items": [
    {"key": "ssh-privatekey", "path": "id_rsa", "mode": 0o640}, {"key": "ssh-publickey", "path": "id_rsa.pub", "mode": 0o644},
    {"key": "ssh-publickey", "path": "authorized_keys", "mode": 0o644}]}}
HOSTFILE_VOLUME = {"name": "mpi-hostfile", "configMap": {"name": "trainJob-mpi-hostfile", "items": [
    {"key": "hostfile", "path": "hostfile", "mode": 0o444}]}}
OPENMPI_ENV = [{"name": "OMPI_MCA_orte_default_hostfile", "value": "/etc/mpi/hostfile"},
               {"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "true"},
               {"name": "OMPI_MCA_orte_set_default_slots", "value": "{slots}"},
               {"name": "OMPI_MCA_plm_rsh_args", "value": "-o ConnectionAttempts=10"}]
UID = "trainJob"


def mpi_policy(launcher_as_node=None) -> dict:
    """MakeMLPolicySourceWrapper().MPIPolicy(1, OpenMPI, "/root/.ssh", launcher_as_node)."""
    mpi = {"numProcPerNode": 1, "mpiImplementation": "OpenMPI", "sshAuthMountPath": "/root/.ssh"}
    if launcher_as_node is not None:
        mpi["runLauncherAsNode"] = launcher_as_node
    return {"mpi": mpi}


def trainjob(name: str, uid: str, **trainer) -> dict:
    return {"metadata": {"name": name, "namespace": "default", "uid": uid}, "spec": {"trainer": trainer}}


def openmpi_env(slots: int) -> list[dict]:
    return [{**e, "value": e["value"].format(slots=slots)} for e in OPENMPI_ENV]


def assert_built(objects: list[dict], name: str, uid: str, hostfile: str) -> None:
    """The Secret (its data compared by utiltesting.MPISecretDataComparer: both keys present)
    and the ConfigMap, each owned by the TrainJob as controller."""
    owner = [{"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "name": name, "uid": uid,
              "controller": True, "blockOwnerDeletion": True}]
    secret, config = objects
    assert (secret["metadata"]["name"], secret["type"], secret["immutable"], sorted(secret["data"])) == \
        (f"{name}-mpi-ssh-auth", "kubernetes.io/ssh-auth", True, ["ssh-privatekey", "ssh-publickey"])
    assert secret["metadata"]["ownerReferences"] == owner == config["metadata"]["ownerReferences"]
    assert (config["metadata"]["name"], config["data"]) == (f"{name}-mpi-hostfile", {"hostfile": hostfile})


def test_trainjob_num_nodes_is_respected_rather_than_ml_policy_one():
    """mpi_test.go "trainJob numNodes is respected rather than mlPolicy one"."""
    info = Info({}, {}, mpi_policy(), None, {"replicatedJobs": []}, [
        PodSet("launcher", None, 1, endpoints=["trainJob-launcher-0-0.trainJob"]),
        PodSet("node", "trainer", 1, endpoints=["trainJob-node-1-0.trainJob", "trainJob-node-1-1.trainJob"])])
    job = trainjob("trainJob", UID, numNodes=2)
    enforce_ml_policy(info, job)
    launcher, node = info.pod_sets
    assert (launcher.count, launcher.volumes, launcher.containers) == (1, [SECRET_VOLUME, HOSTFILE_VOLUME], [])
    assert (node.count, node.volumes, node.containers) == (2, [SECRET_VOLUME], [])
    assert info.mpi == mpi_policy()["mpi"]
    assert_built(build(info, job, secret_exists=False), "trainJob", UID,
                 "trainJob-node-1-0.trainJob slots=1\ntrainJob-node-1-1.trainJob slots=1\n")


def test_run_launcher_as_node():
    """mpi_test.go "runLauncherAsNode is true": numNodes 10 gives the node job 9 pods, the
    launcher's `node` container the key, the hostfile and Open MPI's variables, and the
    hostfile the launcher first (PodSet order)."""
    info = Info({}, {}, mpi_policy(True), None, {"replicatedJobs": []}, [
        PodSet("launcher", None, 1, [{"name": "node"}], endpoints=["trainJob-launcher-0-0.trainJob"]),
        PodSet("node", "trainer", 1, [{"name": "node"}], endpoints=["trainJob-node-1-0.trainJob"])])
    job = trainjob("trainJob", UID, numNodes=10)
    enforce_ml_policy(info, job)
    launcher, node = info.pod_sets
    assert launcher.containers == [{"name": "node", "volumeMounts": [
        {"name": "mpi-ssh-auth", "mountPath": "/root/.ssh"}, {"name": "mpi-hostfile", "mountPath": "/etc/mpi"}],
        "env": openmpi_env(1)}]
    assert launcher.volumes == [SECRET_VOLUME, HOSTFILE_VOLUME]
    assert (node.count, node.volumes) == (9, [SECRET_VOLUME])
    assert node.containers == [{"name": "node", "volumeMounts": [{"name": "mpi-ssh-auth", "mountPath": "/root/.ssh"}]}]
    assert_built(build(info, job, secret_exists=False), "trainJob", UID,
                 "trainJob-launcher-0-0.trainJob slots=1\ntrainJob-node-1-0.trainJob slots=1\n")


def test_num_proc_per_node_is_the_trainjob_gpus():
    """mpi_test.go "numProcPerNode is set to number of GPUs in TrainJob": numProcPerNode 1 in
    the runtime and none in the TrainJob, whose resourcesPerNode requests 5 custom.com/gpu."""
    info = Info({}, {}, mpi_policy(), None, {"replicatedJobs": []}, [
        PodSet("launcher", None, 1, endpoints=["trainJob-launcher-0-0.trainJob"]),
        PodSet("node", "trainer", 1, endpoints=["trainJob-node-1-0.trainJob"])])
    job = trainjob("trainJob", UID, numNodes=1, image="test:trainjob", command=["trainjob"], args=["trainjob"],
                   resourcesPerNode={"requests": {"custom.com/gpu": "5"}})
    enforce_ml_policy(info, job)
    assert info.mpi == {**mpi_policy()["mpi"], "numProcPerNode": 5}
    assert [ps.count for ps in info.pod_sets] == [1, 1]
    assert_built(build(info, job, secret_exists=False), "trainJob", UID, "trainJob-node-1-0.trainJob slots=5\n")


def test_secret_volume_and_hostfile_volume_are_named_after_the_trainjob():
    assert secret_volume("trainJob") == SECRET_VOLUME and hostfile_volume("trainJob") == HOSTFILE_VOLUME


def _job(name: str, ancestor: str | None, containers: list[dict], volumes: list[dict] | None = None) -> dict:
    template = {"spec": {"template": {"spec": {"containers": containers, **({"volumes": volumes} if volumes else {})}}}}
    if ancestor:
        template["metadata"] = {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": ancestor}}
    return {"name": name, "groupName": "default", "template": template}


def wrapper_runtime(launcher: bool = False) -> dict:
    """MakeTrainingRuntimeWrapper's spec (dataset-initializer, model-initializer and node jobs
    sharing the PVC `initializer`), .Container(node, node, "test:runtime", [runtime], [runtime],
    {cpu: 1}) and, with LauncherReplica(), a launcher job (mpirun echo.sh) before node."""
    pvc = [{"name": "initializer", "persistentVolumeClaim": {"claimName": "initializer"}}]
    jobs = [_job(step, step, [{"name": step, "volumeMounts": [{"name": "initializer", "mountPath": path}]}], pvc)
            for step, path in (("dataset-initializer", "/workspace/dataset"), ("model-initializer", "/workspace/model"))]
    if launcher:
        jobs.append(_job("launcher", None, [{"name": "node", "command": ["mpirun"], "args": ["echo.sh"]}]))
        jobs[-1]["replicas"] = 1
    jobs.append(_job("node", "trainer", [{
        "name": "node", "volumeMounts": [{"name": "initializer", "mountPath": "/workspace/dataset"},
                                         {"name": "initializer", "mountPath": "/workspace/model"}],
        "image": "test:runtime", "command": ["runtime"], "args": ["runtime"], "resources": {"requests": {"cpu": "1"}}}],
        pvc))
    return {"template": {"spec": {"replicatedJobs": jobs}}}


def test_openmpi_values_from_the_trainjob():
    """trainingruntime_test.go "succeeded to build JobSet with OpenMPI values from the
    TrainJob": numNodes 2 and numProcPerNode 8 over a runtime of numNodes 1 and an MPI policy."""
    runtime = {**wrapper_runtime(launcher=True), "mlPolicy": {"numNodes": 1, "mpi": {
        "numProcPerNode": 1, "mpiImplementation": "OpenMPI", "sshAuthMountPath": "/root/.ssh",
        "runLauncherAsNode": False}}}
    job = trainjob("test-job", "uid", numNodes=2, numProcPerNode=8)
    job["spec"]["runtimeRef"] = {"name": "test-runtime", "apiGroup": "trainer.kubeflow.org", "kind": "TrainingRuntime"}
    *built, jobset = expand(job, {"spec": runtime})
    assert_built(built, "test-job", "uid", "test-job-node-0-0.test-job slots=8\ntest-job-node-0-1.test-job slots=8\n")
    jobs = {rj["name"]: rj for rj in jobset["spec"]["replicatedJobs"]}
    assert list(jobs) == ["dataset-initializer", "model-initializer", "launcher", "node"]
    assert {n: (rj.get("replicas"), rj["template"]["spec"]["parallelism"], rj["template"]["spec"]["completions"])
            for n, rj in jobs.items()} == {"dataset-initializer": (None, 1, 1), "model-initializer": (None, 1, 1),
                                           "launcher": (1, 1, 1), "node": (1, 2, 2)}
    pods = {n: rj["template"]["spec"]["template"]["spec"] for n, rj in jobs.items()}
    secret = {**SECRET_VOLUME, "secret": {**SECRET_VOLUME["secret"], "secretName": "test-job-mpi-ssh-auth"}}
    hostfile = {**HOSTFILE_VOLUME, "configMap": {**HOSTFILE_VOLUME["configMap"], "name": "test-job-mpi-hostfile"}}
    assert pods["launcher"]["volumes"] == [secret, hostfile]
    assert pods["node"]["volumes"][1:] == [secret]
    assert pods["launcher"]["containers"] == [{
        "name": "node", "command": ["mpirun"], "args": ["echo.sh"], "env": openmpi_env(8),
        "volumeMounts": [{"name": "mpi-ssh-auth", "mountPath": "/root/.ssh"},
                         {"name": "mpi-hostfile", "mountPath": "/etc/mpi"}]}]
    node = pods["node"]["containers"][0]
    assert (node["image"], node["command"], node["args"], node["resources"], node["volumeMounts"][2:]) == \
        ("test:runtime", ["runtime"], ["runtime"], {"requests": {"cpu": "1"}},
         [{"name": "mpi-ssh-auth", "mountPath": "/root/.ssh"}])
    assert jobset["metadata"]["ownerReferences"][0]["uid"] == "uid"


def _node_selector_patch(manager: str, instance: str) -> dict:
    return {"manager": manager, "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [{
        "name": "node", "template": {"spec": {"template": {"spec": {
            "nodeSelector": {"node.kubernetes.io/instance-type": instance}}}}}}]}}}}


def test_runtime_patches_targeting_the_same_job_with_different_values():
    """trainingruntime_test.go "... RuntimePatches targeting the same job with different
    values": the later patch wins; the other jobs and the node job's container are unchanged."""
    runtime = wrapper_runtime()
    merged = merge_runtime_patches(runtime["template"]["spec"], [
        _node_selector_patch("manager-1", "p5.48xlarge"), _node_selector_patch("manager-2", "p5en.48xlarge")])
    want = wrapper_runtime()["template"]["spec"]
    want["replicatedJobs"][2]["template"]["spec"]["template"]["spec"]["nodeSelector"] = {
        "node.kubernetes.io/instance-type": "p5en.48xlarge"}
    assert merged == want


def test_merged_resources_per_node_keeps_runtime_resources():
    """trainingruntime_test.go "merged resourcesPerNode keeps runtime resources when trainjob
    sets gpu only": the runtime's cpu request stays, the TrainJob's GPU limit is added."""
    runtime = {**wrapper_runtime(), "mlPolicy": {"numNodes": 1}}
    info = new_runtime_info(trainjob("test-job", "uid", numNodes=1, resourcesPerNode={
        "limits": {"nvidia.com/gpu": "4"}}), runtime)
    node = info.spec["replicatedJobs"][2]["template"]["spec"]["template"]["spec"]["containers"][0]
    assert node["resources"] == {"requests": {"cpu": "1"}, "limits": {"nvidia.com/gpu": "4"}}
    assert [ps.count for ps in info.pod_sets] == [1, 1, 1]


def test_the_key_is_an_ecdsa_p521_pem_key_and_its_authorized_keys_line():
    """buildSSHAuthSecret: x509.MarshalECPrivateKey in a PEM block "EC PRIVATE KEY", and
    ssh.MarshalAuthorizedKey (`ecdsa-sha2-nistp521 <base64>\\n`) of its public half."""
    runtime = {"spec": {**wrapper_runtime(launcher=True), "mlPolicy": {"mpi": {}}}}
    secret = next(o for o in expand(trainjob("t", "u", numNodes=1), runtime) if o["kind"] == "Secret")
    private = base64.b64decode(secret["data"]["ssh-privatekey"])
    public = base64.b64decode(secret["data"]["ssh-publickey"]).decode()
    assert private.startswith(b"-----BEGIN EC PRIVATE KEY-----\n")
    assert public.count(" ") == 1 and public.startswith("ecdsa-sha2-nistp521 ") and public.endswith("\n")


@pytest.mark.parametrize("version, node_image", [("v2.3", "test:mpi-node"), ("v2.4", "test:trainjob")])
def test_v2_4_puts_the_prrte_variables_on_the_launcher_and_the_trainjob_s_image_on_the_nodes(version, node_image):
    """kubeflow/trainer#4029: the PRRTE twins after Open MPI 4's, keep_fqdn_hostnames false;
    #4301 (as #4050 describes it): the TrainJob's image on the MPI node job's container node,
    which carries no ancestor label, its command left alone."""
    runtime = {**wrapper_runtime(launcher=True), "mlPolicy": {"numNodes": 1, "mpi": {
        "numProcPerNode": 1, "mpiImplementation": "OpenMPI", "sshAuthMountPath": "/root/.ssh",
        "runLauncherAsNode": False}}}
    jobs = runtime["template"]["spec"]["replicatedJobs"]
    launcher, node = jobs[-2], jobs[-1]
    launcher["template"]["metadata"] = {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}}
    node["template"].pop("metadata")
    node["template"]["spec"]["template"]["spec"]["containers"][0]["image"] = "test:mpi-node"
    job = trainjob("test-job", "uid", numNodes=2, numProcPerNode=2, image="test:trainjob")
    *_, jobset = expand(job, {"spec": runtime}, version=version)
    pods = {rj["name"]: rj["template"]["spec"]["template"]["spec"] for rj in jobset["spec"]["replicatedJobs"]}
    prrte = [{"name": "PRTE_MCA_prte_default_hostfile", "value": "/etc/mpi/hostfile"},
             {"name": "PRTE_MCA_prte_keep_fqdn_hostnames", "value": "false"},
             {"name": "PRTE_MCA_prte_set_default_slots", "value": "2"},
             {"name": "PRTE_MCA_plm_ssh_args", "value": "-o ConnectionAttempts=10"}]
    assert pods["launcher"]["containers"][0]["env"] == openmpi_env(2) + (prrte if version == "v2.4" else [])
    assert (pods["node"]["containers"][0]["image"], pods["node"]["containers"][0]["command"]) == (node_image, ["runtime"])
