"""`mpigen import` of a hand-written TrainJob's runtimePatches (issue 49): every entry, whoever
its manager, is read as the Trainer merges it into the runtime (tests/support/trainer_placement.py);
the node job's placement becomes placement.worker, the launcher job's placement.launcher, and
the imported blueprint, rendered under every target, puts each role's pods where the Trainer puts
the hand-written job's (nodeSelector, tolerations, affinity compared field by field). Kueue's
entry is the cluster's (its admission) and is left out with a note; what changes in the render
(mpigen's own manager, its launcher entry and security context) is reported at its line.

The TrainJobs are tests/support/fixtures/import_shapes/trainjob-*.yaml, in the shapes of the
Trainer's runtime-patches guide (each names its source); the runtime they reference is the
Trainer's deepspeed-distributed (deepspeed-distributed.runtime.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.support.import_targets import EVERY_TARGET, round_trip
from tests.support.text import pos
from tests.support.trainer_placement import rendered_placement, trainer_placement

CASES = Path(__file__).resolve().parents[2] / "support" / "fixtures" / "import_shapes"
RUNTIME = "deepspeed-distributed.runtime.yaml"
LAUNCHER_ENTRY = "the imported blueprint renders 'launcher' here too"
SECURITY = "the imported blueprint renders containers: [{'name': 'node', 'securityContext'"
MANAGER = "the imported blueprint's render writes this entry's fields as mpigen's own entry"
KUEUES = "Kueue's entry (kueue.x-k8s.io/manager)"
POD, SELECTOR = "                      spec:", "                        nodeSelector:"  # a patch's pod spec
# case -> (the blueprint's placement, the warnings: (what the message says, (needle, sub) in the case's text))
SHAPES = {
    "trainjob-gpu-pool": ({"worker": {
        "nodeSelector": {"accelerator": "nvidia-tesla-v100", "node-pool": "gpu-training"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                        {"key": "training-workload", "operator": "Equal", "value": "high-priority",
                         "effect": "NoSchedule"}]}}, [
        (MANAGER, ("manager: trainer.kubeflow.org/kubeflow-sdk", "manager")),
        (LAUNCHER_ENTRY, ("replicatedJobs:",)),
        (SECURITY, ("                      spec:\n                        nodeSelector", "spec")),
    ]),
    "trainjob-kueue-admitted": ({
        "worker": {"nodeSelector": {"accelerator": "nvidia-tesla-v100"},
                   "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                   "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                       "nodeSelectorTerms": [{"matchExpressions": [
                           {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1a"]}]}]}}}},
        "launcher": {"nodeSelector": {"node-pool": "cpu"}}}, [
        (KUEUES, ("manager: kueue.x-k8s.io/manager", "manager")),
        (MANAGER, ("manager: example.com/gpu-pool", "manager")),
        (SECURITY, (f"{POD}\n{SELECTOR}\n                          accelerator", "spec")),
        (SECURITY, (f"{POD}\n{SELECTOR}\n                          node-pool", "spec")),
    ]),
}
# The renders mpigen refuses, and why: a queued job as a v1 MPIJob, which Kueue does not manage.
REFUSED = {("trainjob-kueue-admitted", "mpijob-v1"): "Kueue manages only the MPI Operator's kubeflow.org/v2beta1"}
# What every import of these TrainJobs says besides (of its launch line, and numProcPerNode when
# the runtime is not given).
ALWAYS = ("launcherCommand", "numProcPerNode", "was not given")


def _import(cli, tmp_path, name: str, *extra: str):
    text = (CASES / f"{name}.yaml").read_text()
    (tmp_path / "job.yaml").write_text(text)
    (tmp_path / RUNTIME).write_text((CASES / RUNTIME).read_text())
    done = cli("import", "job.yaml", *extra, "--stdout")
    (tmp_path / "imported.yaml").write_bytes(done.stdout)
    return text, done


def _warnings(stderr: str) -> list[tuple[int, int, str]]:
    return sorted((int(line.split(":")[1]), int(line.split(":")[2]), line) for line in stderr.splitlines()
                  if ": warning: " in line and not any(word in line for word in ALWAYS))


@pytest.mark.parametrize("runtime", [(), (RUNTIME,)], ids=["runtime-named", "runtime-given"])
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_patches_placement_is_the_blueprints_with_its_warnings_at_their_lines(cli, tmp_path, name, runtime):
    placement, warnings = SHAPES[name]
    text, done = _import(cli, tmp_path, name, *runtime)
    assert done.returncode == 0, done.stderr
    spec = yaml.safe_load(done.stdout)["spec"]
    assert spec["placement"] == placement
    found = _warnings(done.stderr.decode() if isinstance(done.stderr, bytes) else done.stderr)
    expected = sorted(pos(text, *needle) + (words,) for words, needle in warnings)
    assert [(line, column) for line, column, _ in found] == [(line, column) for line, column, _ in expected], \
        done.stderr
    for (_, _, message), (_, _, words) in zip(found, expected):
        assert words in message


@pytest.mark.parametrize("target", sorted(EVERY_TARGET))
@pytest.mark.parametrize("role", ["worker", "launcher"])
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_target_places_each_roles_pods_where_the_trainer_places_the_hand_written_ones(cli, tmp_path, name,
                                                                                           role, target):
    # the runtime given makes the launcher a rank host (its runLauncherAsNode), which a v1 MPIJob cannot say
    text, done = _import(cli, tmp_path, name, *(() if target == "mpijob-v1" else (RUNTIME,)))
    assert done.returncode == 0, done.stderr
    render = cli("render", "imported.yaml", "--stdout", *EVERY_TARGET[target])
    if (name, target) in REFUSED:
        assert render.returncode == 2 and REFUSED[name, target] in render.stderr, render.stderr
        return
    assert render.returncode == 0, render.stderr
    runtime = yaml.safe_load((CASES / RUNTIME).read_text())
    expected = trainer_placement(yaml.safe_load(text), runtime, role)
    assert rendered_placement(render.stdout, role, runtime) == expected
    assert expected or role == "launcher"  # the worker's placement is never empty here: the case proves something


TRAINJOB = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: patched
spec:
  runtimeRef:
    name: deepspeed-distributed
  trainer:
    numNodes: 2
    image: ghcr.io/kubeflow/trainer/deepspeed-runtime:v2.3.0
    command: [mpirun, -n, "2", hostname]
  runtimePatches:
"""


def _entry(manager: str, **jobs: str) -> str:
    """A runtimePatches entry: each replicated job's pod spec (a YAML flow mapping)."""
    text = (f"  - manager: {manager}\n    trainingRuntimeSpec:\n      template:\n        spec:\n"
            f"          replicatedJobs:  # of {manager}\n")
    for job, spec in jobs.items():
        text += (f"          - name: {job}\n            template:\n              spec:\n                template:\n"
                 f"                  spec: {spec}\n")
    return text


ZONE = "{nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: " \
       "[{key: zone, operator: In, values: [a]}]}]}}}"
ZONE_AFFINITY = yaml.safe_load(ZONE)
MOUNTED = "{name: node, volumeMounts: [{name: data, mountPath: /data}]}"
DATA = ("volumes: [{name: data, persistentVolumeClaim: {claimName: data}}], "
        "containers: [{name: node, volumeMounts: [{name: data, mountPath: /data}]}]")
AS_NODE = {"launcher-as-node-affinity"}  # the cases imported with the runtime, whose launcher is a node
# case -> (the entries; the blueprint's fields import gives; the warnings (what the message says,
#          (needle, sub, after) in the case's text); the refusal (what it says, (needle, sub)) or None)
ENTRY_CASES = {
    # Entries merge in order (nodeSelector key by key, tolerations replaced); the render writes one.
    "two-entries-merge": (
        _entry("example.com/a", node='{nodeSelector: {a: "1"}, tolerations: [{key: gpu, operator: Exists}]}')
        + _entry("example.com/b", node='{nodeSelector: {b: "2"}, tolerations: [{key: spot, operator: Exists}]}'),
        {"placement": {"worker": {"nodeSelector": {"a": "1", "b": "2"},
                                  "tolerations": [{"key": "spot", "operator": "Exists"}]}}}, [
            (MANAGER, ("manager: example.com/a", "manager", None)),
            (LAUNCHER_ENTRY, ("replicatedJobs:  # of example.com/a", None, None)),
            ("renders containers: [{'name': 'node'", ("spec: {nodeSelector: {a", "spec", None)),
            ("renders b: '2' here too", ("nodeSelector: {a", "nodeSelector", None)),
            ("renders 'spot' here, not 'gpu'", ("key: gpu", "key", None)),
            ("a further entry (manager 'example.com/b')", ("- manager: example.com/b", "manager", None)),
        ], None),
    # What the blueprint has a field for becomes that field; the rest the worker's podTemplatePatch.
    "fields": (
        _entry("example.com/a", node="{serviceAccountName: training-sa, securityContext: {fsGroup: 1000}, "
                                     "schedulingGates: [{name: example.com/gate}], terminationGracePeriodSeconds: 60}",
               launcher="{securityContext: {fsGroup: 1000}}"),
        {"serviceAccount": {"name": "training-sa"}, "security": {"fsGroup": 1000},
         "podTemplatePatch": {"worker": {"pod": {"schedulingGates": [{"name": "example.com/gate"}],
                                                 "terminationGracePeriodSeconds": 60}}}}, [
            (MANAGER, ("manager: example.com/a", "manager", None)),
            ("renders containers: [{'name': 'node'", ("spec: {serviceAccountName", "spec", None)),
            ("renders containers: [{'name': 'node'", ("spec: {securityContext", "spec", None)),
        ], None),
    # A volume and its mount on both jobs are a dataset, and pull secrets of both the blueprint's
    # (the MPIJob import's rules).
    "dataset-and-pull-secrets": (
        _entry("example.com/a", node=f"{{imagePullSecrets: [{{name: regcred}}], {DATA}}}",
               launcher=f"{{{DATA}, imagePullSecrets: [{{name: regcred}}]}}"),
        {"datasets": [{"name": "data", "mountPath": "/data", "pvc": "data", "readOnly": False}],
         "imagePullSecrets": ["regcred"], "placement": None}, [
            (MANAGER, ("manager: example.com/a", "manager", None)),
            ("renders securityContext:", (f"{MOUNTED}]}}\n", None, None)),  # the node job's container
            ("renders securityContext:", (f"{MOUNTED}], image", None, None)),  # the launcher job's
        ], None),
    # A container the blueprint has not is lost, at its line.
    "other-container": (
        _entry("example.com/a", node="{containers: [{name: sidecar, volumeMounts: [{name: x, mountPath: /x}]}]}"),
        {"placement": None, "podTemplatePatch": None}, [
            (MANAGER, ("manager: example.com/a", "manager", None)),
            (LAUNCHER_ENTRY, ("replicatedJobs:", None, None)),
            ("renders 'node' here too", ("containers: [{name: sidecar", None, None)),
            ("'sidecar'; a blueprint cannot express it", ("{name: sidecar", None, None)),
        ], None),
    # With the runtime given, the launcher is a node (runLauncherAsNode): the launcher job's own affinity
    # is still its placement (a launcher that is a rank host gets only the workers' onePodPerNode).
    "launcher-as-node-affinity": (
        _entry("example.com/a", node=f"{{affinity: {ZONE}}}", launcher=f"{{affinity: {ZONE}, nodeSelector: {{a: b}}}}"),
        {"launcher": {"runAsWorker": True}, "placement": {"worker": {"affinity": ZONE_AFFINITY},
                                                          "launcher": {"affinity": ZONE_AFFINITY,
                                                                       "nodeSelector": {"a": "b"}}}}, [
            (MANAGER, ("manager: example.com/a", "manager", None)),
            ("renders containers: [{'name': 'node'", (f"spec: {{affinity: {ZONE}}}\n", "spec", None)),
            ("renders containers: [{'name': 'node'", ("spec: {affinity", "spec", "- name: launcher")),
        ], None),
    # The Trainer's webhook refuses env on container node: so does the import, writing nothing.
    "node-env": (
        _entry("example.com/a", node='{containers: [{name: node, env: [{name: A, value: "1"}]}]}'),
        None, [], ("the Trainer refuses env on container node", ("env: [", None, None))),
}


@pytest.mark.parametrize("case", sorted(ENTRY_CASES))
def test_each_entry_is_read_as_the_trainer_merges_it_and_reported_at_its_lines(cli, tmp_path, case):
    entries, fields, warnings, refused = ENTRY_CASES[case]
    text = TRAINJOB + entries
    (tmp_path / "job.yaml").write_text(text)
    (tmp_path / RUNTIME).write_text((CASES / RUNTIME).read_text())
    done = cli("import", "job.yaml", *((RUNTIME,) if case in AS_NODE else ()), "--stdout")
    if refused is not None:
        words, needle = refused
        assert done.returncode == 2 and not done.stdout, done.stderr
        assert f"job.yaml:{':'.join(map(str, pos(text, *needle)))}: error: " in done.stderr
        assert words in done.stderr
        return
    assert done.returncode == 0, done.stderr
    spec = yaml.safe_load(done.stdout)["spec"]
    assert {key: spec.get(key) for key in fields} == fields
    found = _warnings(done.stderr)
    expected = sorted(pos(text, needle, sub, after) + (words,) for words, (needle, sub, after) in warnings)
    assert [(line, column) for line, column, _ in found] == [(line, column) for line, column, _ in expected], \
        done.stderr
    for (_, _, message), (_, _, words) in zip(found, expected):
        assert words in message


# A launcher that runs ranks, with an affinity of its own beside the workers' onePodPerNode: its
# template has both, and only the anti-affinity is what it gets as a worker.
OWN_AFFINITY = f"""apiVersion: mpigen.dev/v1alpha1
kind: MPIJobBlueprint
metadata:
  name: own-affinity
spec:
  image: example.com/train:1
  command: [python, train.py]
  workers: 2
  launcher: {{runAsWorker: true}}
  placement:
    worker: {{onePodPerNode: true, affinity: {ZONE}}}
    launcher: {{affinity: {ZONE}}}
"""


@pytest.mark.parametrize("source", ["mpijob-v2beta1", "trainjob"])  # (a v1 MPIJob has no runLauncherAsWorker)
def test_a_rank_host_launchers_own_affinity_comes_back_beside_one_pod_per_node(cli, tmp_path, source):
    imported, stderr = round_trip(cli, tmp_path, OWN_AFFINITY, source)
    assert imported["spec"]["placement"] == yaml.safe_load(OWN_AFFINITY)["spec"]["placement"]
    assert "warning" not in stderr, stderr


OWN_RUNTIME = """apiVersion: mpigen.dev/v1alpha1
kind: MPIJobBlueprint
metadata:
  name: own
spec:
  image: example.com/train:1
  command: [python, train.py]
  workers: 2
"""
GPU_ENTRY = {"manager": "example.com/gpu-pool", "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [
    {"name": "node", "template": {"spec": {"template": {"spec": {
        "nodeSelector": {"pool": "gpu"}, "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]}}}}}]}}}}


def test_an_entry_on_the_runtime_mpigen_wrote_puts_the_pods_where_the_trainer_does(cli, tmp_path):
    """A hand-written entry beside the runtime mpigen wrote: the Trainer merges it into that
    runtime's pods, and so does the render of the imported blueprint (a note at the entry; the
    runtime the render writes then differs from the one given, at its line)."""
    (tmp_path / "own.yaml").write_text(OWN_RUNTIME)
    assert cli("render", "own.yaml", "-o", "out", "--target", "trainjob").returncode == 0
    runtime_text = (tmp_path / "out" / "default" / "trainingruntime-own.yaml").read_text()
    trainjob = yaml.safe_load((tmp_path / "out" / "default" / "trainjob-own.yaml").read_text())
    trainjob["spec"]["runtimePatches"] = [GPU_ENTRY]
    text = yaml.safe_dump(trainjob, sort_keys=False)
    (tmp_path / "job.yaml").write_text(text)
    done = cli("import", "job.yaml", "out/default/trainingruntime-own.yaml", "--stdout")
    assert done.returncode == 0, done.stderr
    (tmp_path / "imported.yaml").write_bytes(done.stdout)
    assert yaml.safe_load(done.stdout)["spec"]["placement"] == {"worker": {
        "nodeSelector": {"pool": "gpu"}, "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]}}
    entry = pos(text, "- manager: example.com/gpu-pool", "manager")
    at = runtime_text.index("\n              spec:\n", runtime_text.index("- name: node")) + 15  # the node pod's spec
    node_pod = (runtime_text[:at].count("\n") + 1, at - runtime_text.rindex("\n", 0, at))
    assert [line.split(": warning: ")[0] for line in done.stderr.splitlines() if ": warning: " in line] == [
        f"job.yaml:{entry[0]}:{entry[1]}", *[f"out/default/trainingruntime-own.yaml:{node_pod[0]}:{node_pod[1]}"] * 2]
    assert "renders nodeSelector: {'pool': 'gpu'} here too" in done.stderr  # and the tolerations
    assert "writes its fields into that runtime's pods" in done.stderr
    render = cli("render", "imported.yaml", "--stdout", "--target", "trainjob")
    assert render.returncode == 0, render.stderr
    rendered_runtime = next(d for d in yaml.safe_load_all(render.stdout) if d and d["kind"] == "TrainingRuntime")
    for role in ("worker", "launcher"):
        assert rendered_placement(render.stdout, role, rendered_runtime) == \
            trainer_placement(trainjob, yaml.safe_load(runtime_text), role)


def test_kueues_entry_and_the_manager_lose_nothing_so_strict_makes_them_no_errors(cli, tmp_path):
    """--strict makes every loss an error, but not the notes: Kueue's entry (the cluster's) and
    the manager the render writes as mpigen's lose nothing of the pods. (With errors, import
    prints its errors alone: the render's own differences, its security context, are errors.)"""
    text, done = _import(cli, tmp_path, "trainjob-kueue-admitted", RUNTIME, "--strict")
    assert done.returncode == 2 and ": error: " in done.stderr
    errors = {tuple(map(int, line.split(":")[1:3])) for line in done.stderr.splitlines() if ": error: " in line}
    assert pos(text, "manager: kueue.x-k8s.io/manager", "manager") not in errors
    assert pos(text, "manager: example.com/gpu-pool", "manager") not in errors
    assert pos(text, f"{POD}\n{SELECTOR}\n                          accelerator", "spec") in errors
