"""The ConfigMap `<job>-config` the operator creates for an MPIJob mpigen renders
(mpigen.render.mpijob.config), byte for byte as the operators' Go code formats it once every
worker runs. kubeflow.org/v2beta1: kubeflow/mpi-operator caa3c47 (v0.8.2),
pkg/controller/mpi_job_controller.go newConfigMap (`"%s slots=%d\\n"`, Intel and MPICH
`"%s:%d\\n"`, the host `%s.%s.%s.svc` of pod, job and namespace) and
updateDiscoverHostsInConfigMap (`"#!/bin/sh\\n"`, then `"echo %s\\n"`). kubeflow.org/v1: the
training-operator, kubeflow/trainer tag v1.9.0, pkg/controller.v1/mpi/mpijob_controller.go
newConfigMap (kubexec.sh, `"%s%s-%d slots=%d\\n"`) and updateDiscoverHostsInConfigMap
(`"#!/bin/sh"`, `"%s\\necho %s%s:%d\\n"` for a GPU launcher, `"%s\\necho %s:%d"` a worker)."""

from __future__ import annotations

import pytest

from mpigen.render.mpijob.config import operator_config_map
from mpigen.render.mpijob.options import build
from tests.support.blueprints import blueprint_text
from tests.support.rendering import render_text


def config(api: str, **spec) -> dict:
    (mpijob,) = (o for o in render_text(blueprint_text("train", **spec), target="mpijob", own=build({"api": api}))
                 if o["kind"] == "MPIJob")
    (made,) = operator_config_map(mpijob, lambda *key: None)
    assert (made["kind"], made["metadata"]["name"]) == ("ConfigMap", "train-config")
    return made["data"]


@pytest.mark.parametrize("implementation, line", [("OpenMPI", "{} slots=2\n"), ("IntelMPI", "{}:2\n"),
                                                  ("MPICH", "{}:2\n")])
def test_v2beta1_writes_a_line_of_each_host_by_its_fully_qualified_name(implementation, line):
    data = config("kubeflow.org/v2beta1", namespace="ml", workers=2, slotsPerWorker=2,
                  mpiImplementation=implementation)
    hosts = ["train-worker-0.train.ml.svc", "train-worker-1.train.ml.svc"]
    assert data == {"hostfile": "".join(line.format(h) for h in hosts),
                    "discover_hosts.sh": "#!/bin/sh\n" + "".join(f"echo {h}\n" for h in hosts)}


def test_v2beta1_lists_the_launcher_first_when_it_runs_as_a_worker():
    data = config("kubeflow.org/v2beta1", workers=1, launcher={"runAsWorker": True})
    assert data["hostfile"] == ("train-launcher.train.default.svc slots=1\n"
                                "train-worker-0.train.default.svc slots=1\n")
    assert data["discover_hosts.sh"] == ("#!/bin/sh\necho train-launcher.train.default.svc\n"
                                         "echo train-worker-0.train.default.svc\n")


def test_v1_writes_kubexec_and_the_short_names():
    data = config("kubeflow.org/v1", workers=2, slotsPerWorker=3)
    assert data == {
        "kubexec.sh": '#!/bin/sh\nset -x\nPOD_NAME=$1\nshift\n/opt/kube/kubectl exec ${POD_NAME} -- /bin/sh -c "$*"',
        "hostfile": "train-worker-0 slots=3\ntrain-worker-1 slots=3\n",
        "discover_hosts.sh": "#!/bin/sh\necho train-worker-0:3\necho train-worker-1:3"}


def test_v1_lists_a_launcher_that_asks_for_a_gpu():
    """isGPULauncher: a launcher container limit whose name contains gpu (runAsWorker gives it the GPUs)."""
    data = config("kubeflow.org/v1", workers=1, gpusPerWorker=1, launcher={"runAsWorker": True})
    assert data["hostfile"].startswith("train-launcher slots=1\n")
    assert data["discover_hosts.sh"] == "#!/bin/sh\necho train-launcher:1\n\necho train-worker-0:1"


def test_another_api_has_no_configmap():
    assert operator_config_map({"apiVersion": "kubeflow.org/v1alpha2", "kind": "MPIJob",
                                "metadata": {"name": "x"}, "spec": {}}, lambda *key: None) == []
