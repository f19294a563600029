"""mpigen's own output comes back: every example, and blueprints drawn with what only mpigen's
objects say (Kueue's topology request, MultiKueue, the launcher as a worker, privileged ranks,
a cloud identity, gang scheduling and its scheduler), rendered under each target that has an importer
(mpijob kubeflow.org/v2beta1 and kubeflow.org/v1, trainjob), imported and rendered again:
the same bytes under that target, with nothing reported, and the same objects as the
original under every target (tests/support/import_targets.py says the exceptions, which
are no loss of what the input says)."""

from __future__ import annotations

import random
import sys

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
import pytest
from tests.support.properties import examples

from mpigen.emit.yaml import dump_object
from tests.support.golden import MPIJOB_REFUSED
from tests.support.import_targets import IMPORTED_FROM, round_trip
from tests.support.paths import BLUEPRINTS, ROOT

EXAMPLES = sorted(BLUEPRINTS.glob("*.yaml"))


@pytest.mark.parametrize("source", IMPORTED_FROM)
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.stem)
def test_every_example_comes_back_from_every_importer(cli, tmp_path, example, source):
    found = round_trip(cli, tmp_path, example.read_text(), source)
    if found is None:  # the training-operator's v1 MPIJob runs Open MPI only; an MPIJob has no failure policy
        refused = source.startswith("mpijob-") and example.relative_to(ROOT).as_posix() in MPIJOB_REFUSED
        assert refused or source == "mpijob-v1" and "mpiImplementation: Open" not in example.read_text()
        return
    imported, reported = found
    assert reported == ""
    # the imported blueprint's render imports to the same blueprint again
    (tmp_path / "again.yaml").write_bytes(cli("render", "imported.yaml", "--stdout", *IMPORTED_FROM[source]).stdout)
    again = cli("import", "again.yaml", "--stdout")
    assert (again.returncode, again.stderr, yaml.safe_load(again.stdout)) == (0, "", imported)


# What only mpigen's objects say, each a change merged into an example's spec.
CHANGES = {
    "topology-required": {"scheduling": {"queue": "q", "topology": {"required": "cloud.google.com/gce-topology-block"}}},
    "topology-preferred": {"scheduling": {"queue": "q", "topology": {"preferred": "cloud.google.com/gce-topology-rack"}}},
    "multikueue": {"scheduling": {"queue": "q", "multiKueue": True}},
    "runs-as-worker": {"launcher": {"runAsWorker": True}},
    "identity": {"serviceAccount": {"annotations": {"eks.amazonaws.com/role-arn": "arn:aws:iam::1:role/x"}}},
    "privileged": {"security": {"privileged": True}},
    "gang-volcano": {"scheduling": {"gang": {"scheduler": "volcano", "queue": "research"}}},
    "gang-coscheduling": {"scheduling": {"gang": {"scheduler": "scheduler-plugins", "scheduleTimeoutSeconds": 60}}},
    "gang-named": {"scheduling": {"gang": {"scheduler": "volcano", "schedulerName": "volcano-gpu", "minAvailable": 2}}},
    "waits-for-workers": {"launcher": {"waitForWorkers": True}},
    "completed": {"state": "completed"},
    "deadline": {"runPolicy": {"activeDeadlineSeconds": 7200, "backoffLimit": 2}},
    "scratch": {"datasets": [  # issue 49: each pod's own scratch, every source form
        {"name": "staging", "mountPath": "/staging", "emptyDir": {}},
        {"name": "fast", "mountPath": "/fast", "emptyDir": {"medium": "Memory", "sizeLimit": "512Mi"}},
        {"name": "checkpoints", "mountPath": "/checkpoints", "ephemeral": {"storageClass": "local-nvme",
                                                                          "size": "100Gi"}}]},
}


def changed(example, names: list[str]) -> dict:
    blueprint = yaml.safe_load(example.read_text())
    spec = blueprint["spec"]
    for name in names:
        for key, value in CHANGES[name].items():
            spec[key] = {**spec.get(key, {}), **value} if isinstance(value, dict) else value
    return blueprint


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(example=st.sampled_from(EXAMPLES), source=st.sampled_from(list(IMPORTED_FROM)),
       names=st.lists(st.sampled_from(list(CHANGES)), max_size=3, unique=True))
def test_what_only_mpigens_objects_say_comes_back(cli, tmp_path, example, source, names):
    blueprint = changed(example, names)
    found = round_trip(cli, tmp_path, dump_object(blueprint), source)
    if found is None:
        return  # a change the example cannot take under this target (refused by the render, at its line)
    _, reported = found
    assert reported == ""


sys.path.insert(0, str(ROOT / "bench"))


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=10**6), source=st.sampled_from(list(IMPORTED_FROM)))
def test_generated_blueprints_come_back_from_every_importer(cli, tmp_path, seed, source):
    """The benchmark's generator (bench/bench.py): the blueprints of a large repository."""
    from bench import blueprint, yaml_text

    original = blueprint(seed % 1000, random.Random(seed))
    found = round_trip(cli, tmp_path, yaml_text(original), source)
    if found is not None:
        assert found[1] == ""


KEPT_AND_DEFAULTS = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: t
spec:
  suspend: false
  managedBy: trainer.kubeflow.org/trainjob-controller
  runtimeRef: {name: mpi-openmpi, kind: ClusterTrainingRuntime}
  trainer:
    image: example.com/train:1
    numNodes: 2
    command: [mpirun, -np, "2", python, train.py]
    args: [--epochs, "3"]
"""


def test_what_is_kept_or_a_default_is_not_reported(cli, tmp_path):
    """trainer.args the blueprint keeps (in its launch line), suspend: false, the Trainer's own
    managedBy, the default namespace and mpigen's own labels are no loss; each loss is reported once."""
    (tmp_path / "trainjob.yaml").write_text(KEPT_AND_DEFAULTS)
    done = cli("import", "trainjob.yaml", "--stdout")
    assert done.returncode == 0, done.stderr
    assert yaml.safe_load(done.stdout)["spec"]["launcherCommand"][-2:] == ["--epochs", "3"]
    lines = done.stderr.splitlines()
    assert len(lines) == len(set(lines))
    for word in ("args", "suspend", "managedBy", "namespace", "labels", "leaves it out"):
        assert not [line for line in lines if word in line], (word, lines)


@pytest.mark.parametrize("source", IMPORTED_FROM)
def test_scratch_datasets_come_back_from_every_importer(cli, tmp_path, source):
    """Issue 49: emptyDir (disk and Memory) and ephemeral datasets, rendered under each importer's
    target, import to the same datasets, with nothing reported."""
    example = next(e for e in EXAMPLES if "mpiImplementation: Open" in e.read_text() or "mpiImplementation" not in
                   e.read_text())
    blueprint = changed(example, ["scratch"])
    found = round_trip(cli, tmp_path, dump_object(blueprint), source)
    assert found is not None
    imported, reported = found
    assert reported == ""
    assert imported["spec"]["datasets"][-3:] == CHANGES["scratch"]["datasets"]
