"""The static target against the facts of shared/reference/mpi-operator.md, section 2
(the v1alpha2 controller, MO@c5c0c3e). Expected values are copied from the reference,
not from mpigen's code."""

from __future__ import annotations

import pytest

from mpigen.render.static.options import StaticOptions
from tests.support.blueprints import blueprint_text
from tests.support.rendering import by_kind, render_text

# Reference section 2.3, "As a Python literal (no mainContainer)".
KUBEXEC = ('#!/bin/sh\nset -x\nPOD_NAME=$1\nwhile [ ${POD_NAME%${POD_NAME#?}} = "-" ]\ndo\nshift\nPOD_NAME=$1\n'
           'done\nshift\n/opt/kube/kubectl cp /opt/kube/hosts ${POD_NAME}:/etc/hosts_of_nodes\n'
           '/opt/kube/kubectl exec ${POD_NAME} -- /bin/sh -c "cat /etc/hosts_of_nodes >> /etc/hosts && $*"')
KUBEXEC_MAIN = KUBEXEC.replace("exec ${POD_NAME} --", "exec ${POD_NAME} --container trainer --")

OPERATOR_LABEL_KEYS = {"group_name", "mpi_job_name", "mpi_role_type"}


def objects(**spec):
    return by_kind(render_text(blueprint_text("job", namespace="ns", **spec)))


# --- ConfigMap --------------------------------------------------------------------------

def test_kubexec_is_byte_exact_without_trailing_newline():
    data = objects()["ConfigMap"]["data"]
    assert data["kubexec.sh"] == KUBEXEC
    assert not data["kubexec.sh"].endswith("\n")


def test_kubexec_with_main_container_execs_into_it():
    assert objects(mainContainer="trainer")["ConfigMap"]["data"]["kubexec.sh"] == KUBEXEC_MAIN


@pytest.mark.parametrize("implementation, lines", [
    ("OpenMPI", "job-worker-0 slots=3\njob-worker-1 slots=3\n"),
    ("IntelMPI", "job-worker-0:3\njob-worker-1:3\n"),
    ("MPICH", "job-worker-0:3\njob-worker-1:3\n"),
])
def test_hostfile_lines_per_mpi_implementation(implementation, lines):
    cm = objects(mpiImplementation=implementation, slotsPerWorker=3)["ConfigMap"]
    assert cm["data"]["hostfile"] == lines
    assert set(cm["data"]) == {"hostfile", "kubexec.sh"}


def test_hostfile_slots_default_to_gpus_then_one():
    # The contract's default (gpusPerWorker when > 0) is written into slotsPerWorker, so
    # the v1alpha2 rule "slotsPerWorker, or 1" gives the GPU count.
    assert objects(gpusPerWorker=4)["ConfigMap"]["data"]["hostfile"].splitlines()[0] == "job-worker-0 slots=4"
    assert objects()["ConfigMap"]["data"]["hostfile"].splitlines()[0] == "job-worker-0 slots=1"


def test_config_map_metadata():
    cm = objects()["ConfigMap"]
    assert cm["apiVersion"] == "v1"
    assert cm["metadata"]["name"] == "job-config"
    assert cm["metadata"]["namespace"] == "ns"
    assert cm["metadata"]["labels"]["app"] == "job"
    assert "ownerReferences" not in cm["metadata"]


# --- RBAC -------------------------------------------------------------------------------

def test_role_rules_in_the_controller_order():
    role = objects(workers=3)["Role"]
    assert role["apiVersion"] == "rbac.authorization.k8s.io/v1"
    assert role["metadata"]["name"] == "job-launcher"
    assert role["rules"] == [
        {"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["pods"]},
        {"verbs": ["create"], "apiGroups": [""], "resources": ["pods/exec"],
         "resourceNames": ["job-worker-0", "job-worker-1", "job-worker-2"]},
    ]


def test_service_account_and_role_binding():
    objs = objects()
    sa, rb = objs["ServiceAccount"], objs["RoleBinding"]
    assert sa["metadata"]["name"] == "job-launcher" and sa["metadata"]["labels"]["app"] == "job"
    assert set(sa) == {"apiVersion", "kind", "metadata"}
    assert rb["subjects"] == [{"kind": "ServiceAccount", "name": "job-launcher", "namespace": "ns"}]
    assert rb["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "job-launcher"}


# --- worker StatefulSet -----------------------------------------------------------------

def test_worker_statefulset_shape():
    sts = objects(workers=5)["StatefulSet"]
    labels = {"group_name": "kubeflow.org", "mpi_job_name": "job", "mpi_role_type": "worker"}
    assert sts["apiVersion"] == "apps/v1"
    assert sts["metadata"]["name"] == "job-worker"
    spec = sts["spec"]
    assert spec["podManagementPolicy"] == "Parallel"
    assert spec["replicas"] == 5
    assert spec["serviceName"] == "job-worker"
    assert spec["selector"] == {"matchLabels": labels}  # only the operator's labels
    assert labels.items() <= sts["metadata"]["labels"].items()
    assert labels.items() <= spec["template"]["metadata"]["labels"].items()


def test_worker_pod_runs_sleep_and_mounts_only_kubexec():
    pod = objects(gpusPerWorker=8)["StatefulSet"]["spec"]["template"]["spec"]
    main = pod["containers"][0]
    assert pod["restartPolicy"] == "Always"
    assert main["command"] == ["sleep"] and main["args"] == ["365d"]
    assert main["volumeMounts"][-1] == {"name": "mpi-job-config", "mountPath": "/etc/mpi"}
    assert pod["volumes"][-1] == {"name": "mpi-job-config", "configMap": {
        "name": "job-config", "items": [{"key": "kubexec.sh", "path": "kubexec.sh", "mode": 365}]}}
    assert main["resources"]["limits"]["nvidia.com/gpu"] == "8"


def test_worker_gets_the_configured_accelerator_and_user_resources():
    main = objects(gpusPerWorker=1, gpuResource="nvidia.com/mig-1g.5gb",
                   resources={"worker": {"cpu": "4", "memory": "16Gi"}})["StatefulSet"]["spec"]["template"]["spec"][
        "containers"][0]
    assert main["resources"] == {"limits": {"cpu": "4", "memory": "16Gi", "nvidia.com/mig-1g.5gb": "1"}}


# --- launcher Job -----------------------------------------------------------------------

def launcher_pod(**spec):
    return objects(**spec)["Job"]["spec"]["template"]["spec"]


def test_launcher_job_metadata_and_policies():
    job = objects(runPolicy={"backoffLimit": 2, "activeDeadlineSeconds": 600})["Job"]
    labels = {"group_name": "kubeflow.org", "mpi_job_name": "job", "mpi_role_type": "launcher"}
    assert job["apiVersion"] == "batch/v1"
    assert job["metadata"]["name"] == "job-launcher"
    assert labels.items() <= job["metadata"]["labels"].items()
    assert labels.items() <= job["spec"]["template"]["metadata"]["labels"].items()
    assert job["spec"]["backoffLimit"] == 2
    assert job["spec"]["activeDeadlineSeconds"] == 600


def test_launcher_backoff_limit_defaults_to_six_and_no_deadline():
    job = objects()["Job"]
    assert job["spec"]["backoffLimit"] == 6
    assert "activeDeadlineSeconds" not in job["spec"]


def test_kubectl_delivery_init_container():
    init = launcher_pod()["initContainers"]
    limits = {"cpu": "100m", "memory": "512Mi", "ephemeral-storage": "5Gi"}
    assert init == [{
        "name": "kubectl-delivery",
        "image": "mpioperator/kubectl-delivery:latest",
        "imagePullPolicy": "IfNotPresent",
        "env": [{"name": "TARGET_DIR", "value": "/opt/kube"}, {"name": "NAMESPACE", "value": "ns"}],
        "volumeMounts": [{"name": "mpi-job-kubectl", "mountPath": "/opt/kube"},
                         {"name": "mpi-job-config", "mountPath": "/etc/mpi"}],
        "resources": {"limits": limits, "requests": limits},
    }]


def test_kubectl_delivery_image_is_configurable():
    objs = by_kind(render_text(blueprint_text(), own=StaticOptions("registry.local/kubectl-delivery:v0.3.0")))
    assert objs["Job"]["spec"]["template"]["spec"]["initContainers"][0]["image"] == \
        "registry.local/kubectl-delivery:v0.3.0"


OPERATOR_ENV = {
    "OpenMPI": [{"name": "OMPI_MCA_plm_rsh_agent", "value": "/etc/mpi/kubexec.sh"},
                {"name": "OMPI_MCA_orte_default_hostfile", "value": "/etc/mpi/hostfile"}],
    "IntelMPI": [{"name": "I_MPI_HYDRA_BOOTSTRAP_EXEC", "value": "/etc/mpi/kubexec.sh"},
                 {"name": "I_MPI_HYDRA_HOST_FILE", "value": "/etc/mpi/hostfile"}],
    "MPICH": [{"name": "HYDRA_LAUNCHER_EXEC", "value": "/etc/mpi/kubexec.sh"},
              {"name": "HYDRA_HOST_FILE", "value": "/etc/mpi/hostfile"}],
}
NVIDIA = [{"name": "NVIDIA_VISIBLE_DEVICES"}, {"name": "NVIDIA_DRIVER_CAPABILITIES"}]
# Contract section 2: Open MPI 5's names, after the user's env, before the operator's.
PRTE = [{"name": "PRTE_MCA_plm_ssh_agent", "value": "/etc/mpi/kubexec.sh"},
        {"name": "PRTE_MCA_prte_default_hostfile", "value": "/etc/mpi/hostfile"}]


@pytest.mark.parametrize("implementation", ["OpenMPI", "IntelMPI", "MPICH"])
def test_launcher_env_order_user_env_first(implementation):
    env = launcher_pod(mpiImplementation=implementation, env={"ZED": "1", "ALPHA": "2"})["containers"][0]["env"]
    user = [{"name": "ZED", "value": "1"}, {"name": "ALPHA", "value": "2"}]
    prte = PRTE if implementation == "OpenMPI" else []
    assert env == user + prte + OPERATOR_ENV[implementation] + NVIDIA


def test_workers_get_the_user_env_only():
    env = objects(env={"NCCL_DEBUG": "INFO"})["StatefulSet"]["spec"]["template"]["spec"]["containers"][0]["env"]
    assert env == [{"name": "NCCL_DEBUG", "value": "INFO"}]


def test_launcher_volumes_mounts_and_modes():
    pod = launcher_pod()
    main = pod["containers"][0]
    assert main["volumeMounts"][-2:] == [{"name": "mpi-job-kubectl", "mountPath": "/opt/kube"},
                                         {"name": "mpi-job-config", "mountPath": "/etc/mpi"}]
    assert pod["volumes"][-2:] == [
        {"name": "mpi-job-kubectl", "emptyDir": {}},
        {"name": "mpi-job-config", "configMap": {"name": "job-config", "items": [
            {"key": "kubexec.sh", "path": "kubexec.sh", "mode": 365},
            {"key": "hostfile", "path": "hostfile", "mode": 292}]}},
    ]
    assert pod["serviceAccountName"] == "job-launcher"
    assert pod["restartPolicy"] == "OnFailure"


def test_launcher_never_requests_gpus():
    main = launcher_pod(gpusPerWorker=8, resources={"launcher": {"cpu": "1"}})["containers"][0]
    assert main["resources"] == {"limits": {"cpu": "1"}}


# --- datasets -------------------------------------------------------------------------

def test_datasets_are_mounted_at_the_same_path_on_launcher_and_workers():
    datasets = [
        {"name": "imagenet", "mountPath": "/data/imagenet", "pvc": "imagenet-claim"},
        {"name": "efs", "mountPath": "/efs", "readOnly": False, "nfs": {"server": "fs.example.com", "path": "/x"}},
        {"name": "local", "mountPath": "/local", "hostPath": "/mnt/local"},
    ]
    objs = objects(datasets=datasets)
    for kind in ("StatefulSet", "Job"):
        pod = objs[kind]["spec"]["template"]["spec"]
        assert pod["containers"][0]["volumeMounts"][:3] == [
            {"name": "imagenet", "mountPath": "/data/imagenet", "readOnly": True},
            {"name": "efs", "mountPath": "/efs"},
            {"name": "local", "mountPath": "/local", "readOnly": True},
        ]
        assert pod["volumes"][:3] == [
            {"name": "imagenet", "persistentVolumeClaim": {"claimName": "imagenet-claim"}},
            {"name": "efs", "nfs": {"server": "fs.example.com", "path": "/x"}},
            {"name": "local", "hostPath": {"path": "/mnt/local", "type": "Directory"}},
        ]


# --- the contract's exceptions only -----------------------------------------------------

def test_no_owner_references_and_labels_never_in_selectors():
    objs = render_text(blueprint_text())
    for obj in objs:
        assert "ownerReferences" not in obj["metadata"]
    sts = by_kind(objs)["StatefulSet"]
    assert set(sts["spec"]["selector"]["matchLabels"]) == OPERATOR_LABEL_KEYS


def test_blueprint_labels_and_annotations_reach_every_object_and_pod_template():
    text = blueprint_text().replace('"metadata": {',
                                    '"metadata": {"labels": {"team": "vision"}, "annotations": {"owner": "a@example.com"},')
    for obj in render_text(text):
        assert obj["metadata"]["labels"]["team"] == "vision"
        assert obj["metadata"]["annotations"]["owner"] == "a@example.com"
        template = obj.get("spec", {}).get("template")
        if template:
            assert template["metadata"]["labels"]["team"] == "vision"
            assert template["metadata"]["annotations"]["owner"] == "a@example.com"
    sts = by_kind(render_text(text))["StatefulSet"]
    assert "team" not in sts["spec"]["selector"]["matchLabels"]


def test_objects_in_the_controller_set():
    assert sorted(objects()) == ["ConfigMap", "Job", "Role", "RoleBinding", "ServiceAccount", "StatefulSet"]
