"""The hostfile ConfigMap the Trainer's MPI plugin creates for a TrainJob the trainjob target
renders (mpigen.render.trainjob.hostfile), as Kubeflow Trainer v2.3.0 writes it:
pkg/runtime/framework/plugins/mpi/mpi.go buildHostFileConfigMap (`"%s slots=%d\\n"` for each
endpoint of a node job, OpenMPI only; the name `<trainjob>` + constants.MPIHostfileConfigMapSuffix,
`-mpi-hostfile`) and plugins/jobset/jobset.go IdentifyPodNetwork (`"%s-%s-%d-%d.%s"` of the
TrainJob, replicated job, Job index, pod index and subdomain, the TrainJob's name by default)."""

from __future__ import annotations

import copy

from mpigen.render.targets import finder
from mpigen.render.trainjob.hostfile import trainer_hostfile
from tests.support.blueprints import blueprint_text
from tests.support.rendering import render_text


def rendered(**spec) -> tuple[dict, list[dict]]:
    objects = render_text(blueprint_text("train", namespace="team", **spec), target="trainjob")
    return next(o for o in objects if o["kind"] == "TrainJob"), objects


def test_each_node_pod_is_a_line_with_its_slots():
    trainjob, objects = rendered(workers=3, slotsPerWorker=2)
    (made,) = trainer_hostfile(trainjob, finder(objects))
    assert made["metadata"]["name"] == "train-mpi-hostfile"
    assert made["data"] == {"hostfile": "".join(f"train-node-0-{p}.train slots=2\n" for p in range(3))}


def test_the_launcher_is_a_line_when_it_is_a_node_and_the_subdomain_is_the_runtimes():
    trainjob, objects = rendered(workers=2, launcher={"runAsWorker": True})
    runtime = next(o for o in objects if o["kind"] == "TrainingRuntime")
    runtime["spec"]["template"]["spec"]["network"]["subdomain"] = "hosts"
    (made,) = trainer_hostfile(trainjob, finder(objects))
    assert made["data"]["hostfile"] == ("train-node-0-0.hosts slots=1\ntrain-node-0-1.hosts slots=1\n"
                                        "train-launcher-0-0.hosts slots=1\n")


def test_no_hostfile_line_but_openmpis_and_none_without_the_runtime():
    trainjob, objects = rendered(workers=2)
    runtime = next(o for o in objects if o["kind"] == "TrainingRuntime")
    other = copy.deepcopy(runtime)
    other["spec"]["mlPolicy"]["mpi"]["mpiImplementation"] = ""
    assert trainer_hostfile(trainjob, finder([other, trainjob]))[0]["data"] == {"hostfile": ""}
    assert trainer_hostfile(trainjob, finder([trainjob])) == []
