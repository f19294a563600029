"""The port of the MPI Operator's v2beta1 controller (tests/support/e2e/mpi_operator.py) gives what
the operator's own tests expect: cases of kubeflow/mpi-operator@caa3c47
pkg/controller/mpi_job_controller_test.go (TestNewLauncherAndWorker "defaults" and "overrides",
TestNewConfigMap, TestUpdateDiscoverHostsInConfigMap), transcribed from the Go structs, with the
test's shared values (sshVolumeItems, configVolumeItems, launcherEnvVars, ompiEnvVars,
intelEnvVars, nvidiaDisableEnvVars) spelt out from mpi_job_controller.go. ownerReferences are
left out, as the tests ignore them (ignoreReferences)."""

from __future__ import annotations

import pytest

from tests.support.e2e.mpi_operator import (discover_hosts, hostfile, new_launcher_job, new_worker,
                                            spec_of)

SSH_ITEMS = [{"key": "ssh-privatekey", "path": "id_rsa"}, {"key": "ssh-publickey", "path": "id_rsa.pub"},
             {"key": "ssh-publickey", "path": "authorized_keys"}]
CONFIG_ITEMS = [{"key": "hostfile", "path": "hostfile", "mode": 0o444},
                {"key": "discover_hosts.sh", "path": "discover_hosts.sh", "mode": 0o555}]
NVIDIA = [{"name": "NVIDIA_VISIBLE_DEVICES"}, {"name": "NVIDIA_DRIVER_CAPABILITIES"}]
OMPI = [{"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "true"},
        {"name": "OMPI_MCA_orte_default_hostfile", "value": "/etc/mpi/hostfile"},
        {"name": "OMPI_MCA_plm_rsh_args", "value": "-o ConnectionAttempts=10"}]
INTEL = [{"name": "I_MPI_HYDRA_HOST_FILE", "value": "/etc/mpi/hostfile"},
         {"name": "I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS", "value": "-o ConnectionAttempts=10"}]
OPERATOR = "training.kubeflow.org/operator-name"


def mpijob(name: str, namespace: str, **spec) -> dict:
    return {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": name, "namespace": namespace},
            "spec": spec}


def role(job: str, which: str) -> dict:
    return {OPERATOR: "mpi-operator", "training.kubeflow.org/job-name": job, "training.kubeflow.org/job-role": which}


def test_defaults():
    job = mpijob("foo", "bar", mpiReplicaSpecs={"Launcher": {"template": {"spec": {"containers": [{}]}}},
                                                "Worker": {"template": {"spec": {"containers": [{}]}}}})
    spec = spec_of(job)
    ssh = {"name": "ssh-auth", "secret": {"defaultMode": 0o600, "secretName": "foo-ssh", "items": SSH_ITEMS}}
    assert new_launcher_job("foo", "bar", spec) == {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "foo-launcher", "namespace": "bar", "labels": {"app": "foo"}},
        "spec": {"podReplacementPolicy": "Failed", "template": {
            "metadata": {"labels": role("foo", "launcher")},
            "spec": {"hostname": "foo-launcher", "subdomain": "foo", "restartPolicy": "OnFailure",
                     "containers": [{"env": [{"name": "K_MPI_JOB_ROLE", "value": "launcher"}, *OMPI,
                                             {"name": "OMPI_MCA_orte_set_default_slots", "value": "1"}, *NVIDIA],
                                     "volumeMounts": [{"name": "ssh-auth", "mountPath": "/root/.ssh"},
                                                      {"name": "mpi-job-config", "mountPath": "/etc/mpi"}]}],
                     "volumes": [ssh, {"name": "mpi-job-config", "configMap": {"name": "foo-config",
                                                                               "items": CONFIG_ITEMS}}]}}}}
    assert new_worker("foo", "bar", spec, 0) == {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "foo-worker-0", "namespace": "bar",
                     "labels": {**role("foo", "worker"), "training.kubeflow.org/replica-index": "0"}},
        "spec": {"hostname": "foo-worker-0", "subdomain": "foo",
                 "dnsConfig": {"searches": ["foo.bar.svc.cluster.local"]},
                 "restartPolicy": "Never",
                 "containers": [{"command": ["/usr/sbin/sshd", "-De"],
                                 "volumeMounts": [{"name": "ssh-auth", "mountPath": "/root/.ssh"}],
                                 "env": [{"name": "K_MPI_JOB_ROLE", "value": "worker"}]}],
                 "volumes": [ssh]}}


def test_overrides():
    launcher = {"restartPolicy": "OnFailure", "template": {"metadata": {"labels": {"foo": "bar"}}, "spec": {
        "hostNetwork": True, "containers": [{"env": [{"name": "FOO", "value": "bar"}],
                                             "securityContext": {"runAsUser": 1000},
                                             "volumeMounts": [{"name": "fool-vol", "mountPath": "/mnt/foo"}]}, {}],
        "volumes": [{"name": "foo-vol"}]}}}
    worker = {"template": {"spec": {"hostNetwork": True, "containers": [
        {"command": ["/entrypoint.sh"], "env": [{"name": "FOO", "value": "bar"}]}]}}}
    job = mpijob("bar", "foo", sshAuthMountPath="/home/mpiuser/.ssh", slotsPerWorker=5, mpiImplementation="Intel",
                 runPolicy={"ttlSecondsAfterFinished": 1, "activeDeadlineSeconds": 2, "backoffLimit": 3},
                 mpiReplicaSpecs={"Launcher": launcher, "Worker": worker})
    spec = spec_of(job)
    ssh = {"name": "ssh-auth", "secret": {"secretName": "bar-ssh", "items": SSH_ITEMS}}
    made = new_launcher_job("bar", "foo", spec)
    assert made["spec"] == {
        "ttlSecondsAfterFinished": 1, "activeDeadlineSeconds": 2, "backoffLimit": 3, "podReplacementPolicy": "Failed",
        "template": {"metadata": {"labels": {"foo": "bar", **role("bar", "launcher")}}, "spec": {
            "hostNetwork": True, "dnsPolicy": "ClusterFirstWithHostNet", "hostname": "bar-launcher", "subdomain": "bar",
            "restartPolicy": "OnFailure",
            "containers": [{"securityContext": {"runAsUser": 1000},
                            "env": [{"name": "FOO", "value": "bar"}, {"name": "K_MPI_JOB_ROLE", "value": "launcher"},
                                    *INTEL, {"name": "I_MPI_PERHOST", "value": "5"}, *NVIDIA],
                            "volumeMounts": [{"name": "fool-vol", "mountPath": "/mnt/foo"},
                                             {"name": "ssh-auth", "mountPath": "/home/mpiuser/.ssh"},
                                             {"name": "mpi-job-config", "mountPath": "/etc/mpi"}]}, {}],
            "volumes": [{"name": "foo-vol"}, ssh,
                        {"name": "mpi-job-config", "configMap": {"name": "bar-config", "items": CONFIG_ITEMS}}]}}}
    assert new_worker("bar", "foo", spec, 12) == {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "bar-worker-12", "namespace": "foo",
                     "labels": {**role("bar", "worker"), "training.kubeflow.org/replica-index": "12"}},
        "spec": {"hostNetwork": True, "dnsPolicy": "ClusterFirstWithHostNet", "hostname": "bar-worker-12",
                 "subdomain": "bar", "dnsConfig": {"searches": ["bar.foo.svc.cluster.local"]}, "restartPolicy": "Never",
                 "containers": [{"command": ["/entrypoint.sh"],
                                 "volumeMounts": [{"name": "ssh-auth", "mountPath": "/home/mpiuser/.ssh"}],
                                 "env": [{"name": "FOO", "value": "bar"},
                                         {"name": "K_MPI_JOB_ROLE", "value": "worker"}]}],
                 "volumes": [ssh]}}


@pytest.mark.parametrize("name, namespace, spec, workers, domain, expected", [
    ("openmpi-without-slots", "tenant-a", {"mpiImplementation": "OpenMPI", "runLauncherAsWorker": True}, 2, "",
     "openmpi-without-slots-launcher.openmpi-without-slots.tenant-a.svc slots=1\n"
     "openmpi-without-slots-worker-0.openmpi-without-slots.tenant-a.svc slots=1\n"
     "openmpi-without-slots-worker-1.openmpi-without-slots.tenant-a.svc slots=1\n"),
    ("openmpi-without-slots", "tenant-a", {"mpiImplementation": "OpenMPI", "runLauncherAsWorker": True}, 2,
     "cluster.local",
     "openmpi-without-slots-launcher.openmpi-without-slots.tenant-a.svc.cluster.local slots=1\n"
     "openmpi-without-slots-worker-0.openmpi-without-slots.tenant-a.svc.cluster.local slots=1\n"
     "openmpi-without-slots-worker-1.openmpi-without-slots.tenant-a.svc.cluster.local slots=1\n"),
    ("openmpi-without-slots", "tenant-a", {"mpiImplementation": "OpenMPI", "runLauncherAsWorker": True}, 0, "",
     "openmpi-without-slots-launcher.openmpi-without-slots.tenant-a.svc slots=1\n"),
    ("openmpi-without-slots", "tenant-a", {"mpiImplementation": "OpenMPI"}, 2, "",
     "openmpi-without-slots-worker-0.openmpi-without-slots.tenant-a.svc slots=1\n"
     "openmpi-without-slots-worker-1.openmpi-without-slots.tenant-a.svc slots=1\n"),
    ("openmpi-with-slots", "tenant-a", {"mpiImplementation": "OpenMPI", "slotsPerWorker": 10}, 1, "",
     "openmpi-with-slots-worker-0.openmpi-with-slots.tenant-a.svc slots=10\n"),
    ("intelmpi-with-slots", "project-x", {"mpiImplementation": "Intel", "slotsPerWorker": 10}, 1, "",
     "intelmpi-with-slots-worker-0.intelmpi-with-slots.project-x.svc:10\n"),
    ("intelmpi-with-slots", "project-x", {"mpiImplementation": "Intel"}, 1, "cluster.local",
     "intelmpi-with-slots-worker-0.intelmpi-with-slots.project-x.svc.cluster.local:1\n"),
    ("mpich-with-slots", "project-x", {"mpiImplementation": "MPICH", "slotsPerWorker": 10}, 1, "",
     "mpich-with-slots-worker-0.mpich-with-slots.project-x.svc:10\n"),
])
def test_new_config_map(name, namespace, spec, workers, domain, expected):
    replicas = {"Launcher": {"template": {"spec": {"containers": [{}]}}},
                "Worker": {"replicas": workers, "template": {"spec": {"containers": [{}]}}}}
    assert hostfile(name, namespace, spec_of(mpijob(name, namespace, mpiReplicaSpecs=replicas, **spec)), domain) == \
        expected


@pytest.mark.parametrize("as_worker, running, expected", [
    (False, [], "#!/bin/sh\n"),
    (False, ["test-job-worker-1", "test-job-worker-0"],
     "#!/bin/sh\necho test-job-worker-0.test-job.default.svc\necho test-job-worker-1.test-job.default.svc\n"),
    (True, [], "#!/bin/sh\necho test-job-launcher.test-job.default.svc\n"),
])
def test_update_discover_hosts(as_worker, running, expected):
    job = mpijob("test-job", "default", mpiImplementation="OpenMPI", runLauncherAsWorker=as_worker,
                 mpiReplicaSpecs={"Launcher": {"template": {"spec": {"containers": [{}]}}}})
    assert discover_hosts("test-job", "default", spec_of(job), running) == expected
