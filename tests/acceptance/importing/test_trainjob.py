"""`mpigen import` of TrainJobs (trainer.kubeflow.org/v1alpha1) and the runtime they reference.

The proof is the round trip: a blueprint rendered with --target trainjob, its TrainJob and
runtime imported, and the imported blueprint rendered again gives the same objects, byte for
byte, with nothing reported. What a blueprint cannot carry (the Trainer's own fields, a
runtime edited by hand) is a warning at its line (an error with --strict); a runtime the
Trainer ships (deepspeed-distributed, shared/reference/targets.md 2.4) is named, not copied."""

from __future__ import annotations

import copy

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st
from tests.support.properties import examples

from tests.support.paths import BLUEPRINTS, ROOT
from tests.support.text import pos
from tests.support.trainjob_import import NAMED, rendered, round_trip

EXAMPLES = sorted(BLUEPRINTS.glob("*.yaml"))
# Blueprint changes each example is also round-tripped with (spec fields merged in).
VARIANTS = {
    "default": {},
    "cluster-runtime": {"runtime": {"emit": "ClusterTrainingRuntime"}},
    "cluster-runtime-named": {"runtime": {"emit": "ClusterTrainingRuntime", "name": "shared-mpi"}},
    "launcher-as-node": {"launcher": {"runAsWorker": True}},
    "completed": {"state": "completed"},
    "deadline": {"runPolicy": {"activeDeadlineSeconds": 7200}},
    # the gang's scheduler on every pod of mpigen's runtime (render/trainjob/runtime.py), read back
    "gang-scheduler-name": {"scheduling": {"gang": {"scheduler": "scheduler-plugins", "schedulerName": "gangs"}}},
    # a runtime of the cluster's: its launcher has the runtime's resources (None: the field removed)
    "cluster-has-runtime": {"runtime": {"name": "mpi-openmpi", "kind": "ClusterTrainingRuntime"},
                            "resources": {"launcher": None}},
}
# What a runtime of the cluster's cannot take (the examples' host network, init containers,
# priority classes: refused at their lines) leaves fewer examples to that variant.
MINIMUM = {"cluster-has-runtime": 5}


def with_spec(path, change: dict) -> str:
    blueprint = yaml.safe_load(path.read_text())
    for key, value in change.items():
        if isinstance(value, dict):
            merged = {**blueprint["spec"].get(key, {}), **value}
            blueprint["spec"][key] = {k: v for k, v in merged.items() if v is not None}
        else:
            blueprint["spec"][key] = value
    return yaml.safe_dump(blueprint, sort_keys=False)


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_example_round_trips_through_a_trainjob_and_its_runtime(cli, tmp_path, variant):
    checked = 0
    for example in EXAMPLES:
        text = with_spec(example, VARIANTS[variant])
        (tmp_path / "bp.yaml").write_text(text)
        if cli("render", "bp.yaml", "--stdout", "--target", "trainjob").returncode != 0:
            continue  # a change the example cannot take (a launcher node's /dev/shm over its memory)
        first, again, reported = round_trip(cli, tmp_path, text)
        if "runtime" in VARIANTS[variant] and "name" in VARIANTS[variant]["runtime"] \
                and "emit" not in VARIANTS[variant]["runtime"]:  # the cluster's: named, not given
            reported = "".join(line for line in reported.splitlines(True) if "was not given" not in line
                               and "a Hydra launch line" not in line)
        assert reported == "", (example.name, reported)
        assert again == first, example.name
        checked += 1
    assert checked >= MINIMUM.get(variant, len(EXAMPLES) - 3)


def test_the_default_runtime_is_not_in_the_blueprint_and_a_shared_one_is(cli, tmp_path):
    example = BLUEPRINTS / "deepspeed.yaml"
    _, _, _ = round_trip(cli, tmp_path, example.read_text())
    spec = yaml.safe_load((tmp_path / "imported.yaml").read_text())["spec"]
    assert "runtime" not in spec  # the TrainingRuntime mpigen writes by default
    assert spec["framework"] == "deepspeed"  # from the runtime's label: the launch line is pytorch's too
    round_trip(cli, tmp_path, with_spec(example, VARIANTS["cluster-runtime-named"]))
    spec = yaml.safe_load((tmp_path / "imported.yaml").read_text())["spec"]
    assert spec["runtime"] == {"emit": "ClusterTrainingRuntime", "name": "shared-mpi"}


def test_a_trainjob_on_a_runtime_of_the_cluster_round_trips_without_it(cli, tmp_path):
    first, again, reported = round_trip(cli, tmp_path, NAMED)
    assert again == first
    line, column = pos(first.decode(), "  runtimeRef:", "runtimeRef")
    assert reported == (f"trainjob.yaml:{line}:{column}: warning: TrainJob spec.runtimeRef: the ClusterTrainingRuntime "
                        "'mpi-openmpi-cuda' was not given (pass its file too): the blueprint names it (spec.runtime) "
                        "and takes only what the TrainJob says\n")
    spec = yaml.safe_load((tmp_path / "imported.yaml").read_text())["spec"]
    assert spec["runtime"] == {"name": "mpi-openmpi-cuda", "kind": "ClusterTrainingRuntime"}
    assert spec["scheduling"] == {"queue": "nlp-queue", "priorityClass": "high", "multiKueue": True}
    assert spec["datasets"] == [{"name": "corpus", "mountPath": "/data", "pvc": "wiki-corpus"}]
    assert (spec["workers"], spec["gpusPerWorker"], spec["slotsPerWorker"]) == (3, 2, 2)


# --- a TrainJob written by hand, on the runtime the Trainer ships -----------------------------

RUNTIME = ROOT / "tests" / "support" / "fixtures" / "deepspeed-distributed-runtime.yaml"
HAND = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: t5-finetune
  namespace: team-nlp
  labels:
    kueue.x-k8s.io/queue-name: nlp
spec:
  runtimeRef:
    name: deepspeed-distributed
  trainer:
    image: ghcr.io/kubeflow/trainer/deepspeed-runtime
    command: [mpirun, --hostfile, /etc/mpi/hostfile, python, /workspace/train.py]
    numNodes: 3
    env:
      - name: NCCL_DEBUG
        value: INFO
      - name: HF_TOKEN
        valueFrom: {secretKeyRef: {name: hf, key: token}}
    resourcesPerNode:
      limits:
        nvidia.com/gpu: 4
  initializer:
    model:
      storageUri: hf://t5-small
  activeDeadlineSeconds: 36000
"""


def imported_hand(cli, tmp_path, *args: str, text: str = HAND):
    (tmp_path / "trainjob.yaml").write_text(text)
    (tmp_path / "runtime.yaml").write_bytes(RUNTIME.read_bytes())
    return cli("import", "trainjob.yaml", *args)


def test_a_hand_written_trainjob_takes_its_sizes_from_the_trainers_runtime(cli, tmp_path):
    done = imported_hand(cli, tmp_path, "runtime.yaml")
    assert done.returncode == 0, done.stderr
    spec = yaml.safe_load(done.stdout)["spec"]
    # numNodes counts the launcher, a node under runLauncherAsNode (deepspeed-distributed's)
    assert (spec["workers"], spec["launcher"]) == (2, {"runAsWorker": True})
    # numProcPerNode: the runtime's 1, which the Trainer turns into the GPU count (targets.md 2.3)
    assert (spec["slotsPerWorker"], spec["gpusPerWorker"], spec["gpuResource"]) == (4, 4, "nvidia.com/gpu")
    assert spec["runtime"] == {"name": "deepspeed-distributed", "kind": "ClusterTrainingRuntime"}
    assert spec["scheduling"] == {"queue": "nlp"} and spec["runPolicy"] == {"activeDeadlineSeconds": 36000}
    assert spec["launcherCommand"] == ["mpirun", "--hostfile", "/etc/mpi/hostfile", "python", "/workspace/train.py"]
    assert spec["env"] == {"NCCL_DEBUG": "INFO"}


def test_what_a_blueprint_cannot_carry_is_reported_at_its_line(cli, tmp_path):
    done = imported_hand(cli, tmp_path, "runtime.yaml")
    warned = {tuple(map(int, line.split(":")[1:3])): line for line in done.lines("warning")}
    assert pos(HAND, "initializer:") in warned and "initializer" in warned[pos(HAND, "initializer:")]
    assert pos(HAND, "valueFrom") in warned and "HF_TOKEN's valueFrom" in warned[pos(HAND, "valueFrom")]
    assert all(line.startswith("trainjob.yaml:") for line in warned.values())
    strict = imported_hand(cli, tmp_path, "runtime.yaml", "--strict")
    assert strict.returncode == 2 and strict.stdout == b""
    assert f"trainjob.yaml:{pos(HAND, 'initializer:')[0]}:" in strict.stderr


def test_without_its_runtime_a_trainjob_gives_what_it_says_and_the_runtime_is_named(cli, tmp_path):
    done = imported_hand(cli, tmp_path)
    assert done.returncode == 0, done.stderr
    line, column = pos(HAND, "runtimeRef:")
    assert (f"trainjob.yaml:{line}:{column}: warning: TrainJob spec.runtimeRef: the ClusterTrainingRuntime "
            "'deepspeed-distributed' was not given") in done.stderr
    spec = yaml.safe_load(done.stdout)["spec"]
    assert spec["workers"] == 3 and "launcher" not in spec  # without the runtime, numNodes are the workers


def test_a_hand_edited_runtime_of_mpigens_reports_the_edit_at_its_line(cli, tmp_path):
    (tmp_path / "bp.yaml").write_text((BLUEPRINTS / "tensorflow-mnist.yaml").read_text())
    text = rendered(cli, "bp.yaml").decode()
    edited = text.replace("      - name: launcher\n", "      - name: launcher\n        replicas: 2\n", 1)
    edited = edited.replace("                containers:\n", "                containers:\n"
                            "                - name: sidecar\n                  image: busybox\n", 1)
    (tmp_path / "trainjob.yaml").write_text(edited)
    done = cli("import", "trainjob.yaml")
    assert done.returncode == 0, done.stderr
    warned = sorted(tuple(map(int, line.split(":")[1:3])) for line in done.lines("warning"))
    assert warned == sorted([pos(edited, "replicas: 2"), pos(edited, "name: sidecar")]), done.stderr
    assert "an extra container in the worker pod" in done.stderr
    assert cli("import", "trainjob.yaml", "--strict").returncode == 2


def test_a_runtime_is_looked_up_by_kind_name_and_namespace(cli, tmp_path):
    (tmp_path / "bp.yaml").write_text((BLUEPRINTS / "tensorflow-mnist.yaml").read_text())
    objects = list(yaml.safe_load_all(rendered(cli, "bp.yaml")))
    runtime = next(o for o in objects if o["kind"] == "TrainingRuntime")
    (tmp_path / "trainjob.yaml").write_text(yaml.safe_dump([o for o in objects if o["kind"] == "TrainJob"][0]))
    (tmp_path / "runtime.yaml").write_text(yaml.safe_dump({**runtime, "metadata": {**runtime["metadata"],
                                                                                 "namespace": "elsewhere"}}))
    done = cli("import", "trainjob.yaml", "runtime.yaml")
    assert done.returncode == 0, done.stderr
    assert "was not given" in done.stderr  # a TrainingRuntime of another namespace is not the one
    assert "runtime.yaml:2:1: warning: TrainingRuntime 'tensorflow-mnist': no TrainJob given references it" \
        in done.stderr
    (tmp_path / "runtime.yaml").write_text(yaml.safe_dump(runtime))
    done = cli("import", "trainjob.yaml", "runtime.yaml")
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_a_trainjob_that_references_no_runtime_is_an_error(cli, tmp_path):
    text = HAND.replace("  runtimeRef:\n    name: deepspeed-distributed\n", "  runtimeRef: {}\n")
    done = imported_hand(cli, tmp_path, text=text)
    line, column = pos(text, "runtimeRef:")
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.startswith(f"trainjob.yaml:{line}:{column}: error: TrainJob spec.runtimeRef: a TrainJob "
                                  "references a runtime")


# --- MPI Operator v2beta1 MPIJobs as the operator's own examples write them ---------------------

OPERATOR_V2BETA1 = ROOT / "tests" / "support" / "fixtures" / "mpi-operator-v2beta1"


@pytest.mark.parametrize("name", ["tensorflow-mnist.yaml", "tensorflow-benchmarks.yaml"])
def test_the_operators_v2beta1_examples_import_without_loss(cli, tmp_path, name):
    done = cli("import", str(OPERATOR_V2BETA1 / name))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    spec = yaml.safe_load(done.stdout)["spec"]
    assert spec["workers"] == 2 and spec["slotsPerWorker"] == 1


def test_the_operators_v2beta1_pi_example_keeps_its_worker_command_and_reports_its_frozen_process_count(cli, tmp_path):
    """pi.yaml's `mpirun -n 2 /home/mpiuser/pi` (no --allow-run-as-root, which mpigen's Open MPI line
    always has) stays launcherCommand, and its -n 2 is said at its line: it no longer follows workers.
    Its workers' `/usr/sbin/sshd -De -f /home/mpiuser/.sshd_config` (uid 1000) is spec.ssh.sshdConfig."""
    path = OPERATOR_V2BETA1 / "pi.yaml"
    text = path.read_text()
    done = cli("import", str(path))
    count = pos(text, '- -n\n            - "2"', '"2"')
    shown = path.relative_to(tmp_path) if path.is_relative_to(tmp_path) else path
    assert done.returncode == 0
    assert done.lines("warning") == [
        f"{shown}:{count[0]}:{count[1]}: warning: spec.mpiReplicaSpecs.Launcher.template.spec.containers[0].args[1]: "
        "kept as spec.launcherCommand, so this process count stays 2 when spec.workers changes: mpigen writes "
        "`mpirun -np <workers x slots> <framework flags> <mpirunArgs> <command>` (its options in any order), whose "
        "nearest to this line is 'mpirun -np 2 --allow-run-as-root /home/mpiuser/pi'"]
    assert yaml.safe_load(done.stdout)["spec"]["ssh"] == {"sshdConfig": "/home/mpiuser/.sshd_config"}


def test_the_operators_readme_example_imports_its_line_as_command_so_np_follows_workers(cli, tmp_path):
    """The README's tensorflow-benchmarks MPIJob (kubeflow/mpi-operator v0.8.0 README.md, "Creating an MPI
    Job"; examples/v2beta1/tensorflow-benchmarks/tensorflow-benchmarks.yaml) runs `mpirun --allow-run-as-root
    -np 2 -bind-to none ... -x NCCL_DEBUG=INFO ...`: the horovod flags in another order, which Open MPI's
    mpirun reads in any order. Its blueprint says command and mpirunArgs, and -np follows workers."""
    done = cli("import", str(OPERATOR_V2BETA1 / "tensorflow-benchmarks.yaml"))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    spec = yaml.safe_load(done.stdout)["spec"]
    assert (spec["framework"], spec["mpirunArgs"], spec["command"]) == (
        "horovod", ["-x", "NCCL_DEBUG=INFO"],
        ["python", "scripts/tf_cnn_benchmarks/tf_cnn_benchmarks.py", "--model=resnet101", "--batch_size=64",
         "--variable_update=horovod"])
    assert "launcherCommand" not in spec
    (tmp_path / "bench.yaml").write_text(done.stdout.decode().replace("workers: 2", "workers: 3"))
    rendered = cli("render", "bench.yaml", "--stdout", "--target", "mpijob")
    assert rendered.returncode == 0, rendered.stderr
    (mpijob,) = [d for d in rendered.objects() if d["kind"] == "MPIJob"]
    command = mpijob["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["command"]
    assert command[:3] == ["mpirun", "-np", "3"]


# --- values of the wrong type: refused at their line, never a crash --------------------------

@pytest.mark.parametrize("needle, sub, value", [
    ("numNodes: 3", "3", "three"),
    ("env:\n", None, "NCCL_DEBUG=INFO"),
    ("resourcesPerNode:", None, "[4]"),
])
def test_a_trainjob_value_of_the_wrong_type_is_an_error_at_its_line(cli, tmp_path, needle, sub, value):
    key = needle.split(":")[0]
    text = HAND.replace(needle, f"{key}: {value}\n" if needle.endswith("\n") else f"{key}: {value}", 1)
    if key == "env":  # its entries went with it
        text = text.replace("      - name: NCCL_DEBUG\n        value: INFO\n      - name: HF_TOKEN\n"
                            "        valueFrom: {secretKeyRef: {name: hf, key: token}}\n", "")
    if key == "resourcesPerNode":
        text = text.replace("      limits:\n        nvidia.com/gpu: 4\n", "")
    done = imported_hand(cli, tmp_path, "runtime.yaml", text=text)
    # a scalar is reported at the value, a list or a mapping where it starts: its key
    line, column = pos(text, f"{key}: {value}", None if value.startswith("[") else value)
    assert done.returncode == 2 and done.stdout == b"", done.stderr
    assert f"trainjob.yaml:{line}:{column}: error: TrainJob spec.trainer.{key}: expected" in done.stderr, done.stderr


WRONG = [None, 0, 2.5, True, "x", [], {}, ["x"], {"name": 1}]


def _leaves(node, loc=()):
    yield loc
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, loc + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _leaves(value, loc + (index,))


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_value_anywhere_in_a_trainjob_or_its_runtime_is_imported_reported_or_refused(rendered_objects, data):
    """A TrainJob and its runtime (mpigen's, or the Trainer's own) with a value replaced at
    random: import gives a blueprint or errors at lines, and never crashes."""
    from mpigen.errors import InputError
    from mpigen.load.parser import parse
    from mpigen.importer.importers import import_job as import_trainjob

    objects = copy.deepcopy(data.draw(st.sampled_from(rendered_objects)))
    which = data.draw(st.integers(0, 1))
    locs = [loc for loc in _leaves(objects[which]) if loc]
    for _ in range(data.draw(st.integers(1, 3))):
        loc = data.draw(st.sampled_from(locs))
        node = objects[which]
        try:
            for part in loc[:-1]:
                node = node[part]
            node[loc[-1]] = data.draw(st.sampled_from(WRONG))
        except (KeyError, IndexError, TypeError):
            continue
    try:
        trainjob, runtime = (parse(yaml.safe_dump(o), name)[0] for o, name in zip(objects, ("trainjob.yaml",
                                                                                               "runtime.yaml")))
        result = import_trainjob(trainjob, runtime if isinstance(runtime.data, dict) else None, strict=False)
    except InputError:
        return
    assert all(d.mark.path in ("trainjob.yaml", "runtime.yaml") for d in result.diagnostics), result.diagnostics
    assert bool(result.blueprint) != any(d.severity == "error" for d in result.diagnostics)


@pytest.fixture(scope="module")
def rendered_objects():
    """(TrainJob, runtime) pairs: an example rendered with mpigen's runtime, and the hand-written
    TrainJob with the Trainer's runtime."""
    from mpigen.compile.blueprint import compile_blueprint
    from mpigen.render.target import Lifecycle, Options
    from mpigen.render.targets import render_job
    from mpigen.formats.blueprint import Blueprint

    model = Blueprint.model_validate(yaml.safe_load((BLUEPRINTS / "deepspeed.yaml").read_text()))
    objects = render_job(compile_blueprint(model), Options(target="trainjob"), Lifecycle())
    ours = tuple(next(o for o in objects if o["kind"] == kind) for kind in ("TrainJob", "TrainingRuntime"))
    runtime = yaml.safe_load("\n".join(line for line in RUNTIME.read_text().splitlines() if not line.startswith("#")))
    return [ours, (yaml.safe_load(HAND), runtime)]


@pytest.mark.parametrize("kind", ["[]", "{}", "7", "Deployment"])
def test_a_runtime_whose_kind_is_not_a_runtimes_is_refused_at_its_line(rendered_objects, kind):
    """What the property test above once drew: a runtime whose kind is a list reached a lookup
    by kind and crashed the importer (TypeError: unhashable type: 'list')."""
    from mpigen.load.parser import parse
    from mpigen.importer.importers import import_job as import_trainjob

    trainjob, runtime = rendered_objects[0]
    text = yaml.safe_dump({**runtime, "kind": yaml.safe_load(kind)}, sort_keys=False)
    result = import_trainjob(parse(yaml.safe_dump(trainjob), "trainjob.yaml")[0], parse(text, "runtime.yaml")[0])
    line = text.splitlines().index(next(l for l in text.splitlines() if l.startswith("kind:"))) + 1
    assert result.blueprint == {}
    assert [(str(d.mark), d.severity) for d in result.diagnostics] == [(f"runtime.yaml:{line}:7", "error")]
    assert "is not a runtime's: the TrainJob's runtime is a TrainingRuntime or ClusterTrainingRuntime" \
        in result.diagnostics[0].message
