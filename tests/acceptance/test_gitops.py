"""The GitOps profiles (`--gitops argocd|flux`): run identity, sync waves, scale-down on
success, lifecycle state, TTL, name lengths, profile selection, and what `mpigen diff`
makes of a change (shared/reference/gitops.md, sections B.3, G and H).

Expected values are worked out by hand from the blueprint text written in each test (and
from blueprints/*.yaml for the examples), never by rendering the same input twice and
comparing the code with itself. The one exception is deliberate: the launcher's mpirun
line under a profile must be exactly the one `--gitops none` renders for the same
blueprint, so that one is taken from the `none` render.

Rendering goes in-process through the real pipeline (`render_paths`: load, validate,
profile checks, compile, render, emit) or the real command line (`mpigen.cli.main.main`); only
the completion script is run in a real `sh`, with a fake mpirun and a fake kubectl.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.conftest import (GOLDEN, ROOT, InProcessRun, blueprint_text, by_kind, example_blueprints, extra_objects,
                            job_objects, pos, write)

RUN = re.compile(r"^[0-9a-f]{6}$")
WAVE = "argocd.argoproj.io/sync-wave"
FLUX_SSA = "kustomize.toolkit.fluxcd.io/ssa"
JOB_LABEL, RUN_LABEL = "mpigen.dev/job", "mpigen.dev/run"
PROFILES = ("argocd", "flux")
CONFIG_KINDS = ("ServiceAccount", "ConfigMap", "Role", "RoleBinding")
KUBECTL = "/opt/kube/kubectl"
# The launcher Role of the operator (reference mpi-operator.md 2.4), before any profile rule.
PODS_RULE = {"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["pods"]}


# --- helpers ----------------------------------------------------------------------------------

def blueprint(name: str = "job", namespace: str = "team", **fields) -> str:
    """blueprint_text in namespace team (a None value leaves the field out)."""
    return blueprint_text(name, namespace=namespace, **fields)


@dataclass
class Rendered:
    objects: list[dict]
    warnings: list

    @property
    def kinds(self) -> dict[str, dict]:
        return by_kind(self.objects)

    @property
    def run(self) -> str:
        runs = {o["metadata"]["labels"].get(RUN_LABEL) for o in self.objects}
        assert len(runs) == 1, runs
        return runs.pop()

    @property
    def names(self) -> list[tuple[str, str]]:
        return sorted((o["kind"], o["metadata"]["name"]) for o in self.objects)


@pytest.fixture
def render(tmp_path):
    """render(text, gitops) -> Rendered: the blueprint text in a file of its own, through
    the real pipeline (the emitted YAML read back)."""
    from mpigen.pipeline import render_paths
    from mpigen.render.targets import Options

    counter = itertools.count()

    def run(text: str, gitops: str = "argocd") -> Rendered:
        folder = tmp_path / f"render-{next(counter)}"
        folder.mkdir()
        (folder / "job.yaml").write_text(text, encoding="utf-8")
        result = render_paths([folder], Options(gitops=gitops))
        return Rendered([yaml.safe_load(item.text) for item in result.objects], result.warnings)

    return run






def strings(value):
    """Every string in a JSON-like value, keys included."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, str):
        yield value


def metadatas(obj: dict):
    """The object's metadata and its pod template's metadata (if it has a template)."""
    yield obj["metadata"]
    template = obj.get("spec", {}).get("template")
    if template is not None:
        yield template["metadata"]


def pod(obj: dict) -> dict:
    return obj["spec"]["template"]["spec"]


def launcher_command(rendered: Rendered) -> list[str]:
    container = pod(rendered.kinds["Job"])["containers"][0]
    assert "args" not in container
    return container["command"]


def config_volume(obj: dict) -> str:
    (volume,) = [v for v in pod(obj)["volumes"] if v["name"] == "mpi-job-config"]
    return volume["configMap"]["name"]


def example_objects() -> int:
    """How many objects the examples (blueprints/, the input of golden/argocd and golden/flux
    and of the overlays) render to: each its operator objects and its extra ones
    (conftest.extra_objects)."""
    return sum(len(job_objects(data)) for data in example_blueprints().values())


def golden_stream(case: str) -> list[dict]:
    return [o for o in yaml.safe_load_all((GOLDEN / f"{case}.yaml").read_text()) if o]


def golden_prod() -> list[tuple[str, dict]]:
    root = GOLDEN / "overlays" / "prod"
    return [(p.relative_to(root).as_posix(), yaml.safe_load(p.read_text()))
            for p in sorted(root.glob("*/*.yaml"))]


def assert_named_as_run(objects: list[dict], name: str, namespace: str, workers: int, run: str,
                        slots: int | None = None, extra: list[tuple[str, str]] = ()) -> None:
    """Every object of one job is named as the operator would name those of the MPIJob
    `<name>-<run>`, consistently in every reference, with mpigen's job and run labels.
    `extra`: the job's objects besides the operator's six (conftest.extra_objects), as
    (kind, suffix of the name)."""
    assert RUN.match(run), run
    instance = f"{name}-{run}"
    extras = sorted((kind, f"{instance}{suffix}") for kind, suffix in extra)
    assert sorted((o["kind"], o["metadata"]["name"]) for o in objects
                  if (o["kind"], o["metadata"]["name"]) in extras) == extras
    operator = [o for o in objects if (o["kind"], o["metadata"]["name"]) not in extras]
    kinds = by_kind(operator)
    assert sorted(kinds) == sorted([*CONFIG_KINDS, "StatefulSet", "Job"])
    assert len(operator) == 6
    assert kinds["ConfigMap"]["metadata"]["name"] == f"{instance}-config"
    for kind in ("ServiceAccount", "Role", "RoleBinding", "Job"):
        assert kinds[kind]["metadata"]["name"] == f"{instance}-launcher", kind
    assert kinds["StatefulSet"]["metadata"]["name"] == f"{instance}-worker"
    assert {o["metadata"]["namespace"] for o in objects} == {namespace}
    # hostfile: one line per worker pod, <instance>-worker-<i>
    hosts = [line.split()[0].split(":")[0] for line in kinds["ConfigMap"]["data"]["hostfile"].splitlines()]
    assert hosts == [f"{instance}-worker-{i}" for i in range(workers)]
    if slots is not None:
        assert kinds["ConfigMap"]["data"]["hostfile"].count(f"slots={slots}") in (0, workers)
    # Role: exec into exactly these pods; RoleBinding: this ServiceAccount and Role
    exec_rules = [r for r in kinds["Role"]["rules"] if r["resources"] == ["pods/exec"]]
    assert [r["resourceNames"] for r in exec_rules] == [[f"{instance}-worker-{i}" for i in range(workers)]]
    binding = kinds["RoleBinding"]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": f"{instance}-launcher", "namespace": namespace}]
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                  "name": f"{instance}-launcher"}
    # StatefulSet and Job
    workers_obj, launcher = kinds["StatefulSet"], kinds["Job"]
    assert workers_obj["spec"]["serviceName"] == f"{instance}-worker"
    assert workers_obj["spec"]["selector"]["matchLabels"]["mpi_job_name"] == instance
    assert config_volume(workers_obj) == config_volume(launcher) == f"{instance}-config"
    assert pod(launcher)["serviceAccountName"] == f"{instance}-launcher"
    # the references to the extra objects: the pods' group, the rank-env.sh volume, the identity
    for kind, suffix in extra:
        if kind == "PodGroup":
            for obj in (workers_obj, launcher):
                meta = obj["spec"]["template"]["metadata"]
                assert instance in (meta.get("annotations", {}).get("scheduling.k8s.io/group-name"),
                                    meta.get("labels", {}).get("scheduling.x-k8s.io/pod-group")), obj["kind"]
        elif suffix == "-mpigen":
            assert f"{instance}-mpigen" in [v["configMap"]["name"] for v in pod(workers_obj)["volumes"]
                                            if "configMap" in v]
        elif suffix == "-identity":
            assert pod(workers_obj)["serviceAccountName"] == f"{instance}-identity"
    for kind in CONFIG_KINDS:
        assert kinds[kind]["metadata"]["labels"]["app"] == instance
    for obj in (workers_obj, launcher):
        for meta in metadatas(obj):
            assert meta["labels"]["mpi_job_name"] == instance
    # mpigen's labels on every object and pod template
    for obj in objects:
        for meta in metadatas(obj):
            assert meta["labels"][JOB_LABEL] == name
            assert meta["labels"][RUN_LABEL] == run
            assert meta["labels"]["app.kubernetes.io/managed-by"] == "mpigen"
    # no reference to the operator's names of the bare job is left anywhere
    for obj in objects:
        for text in strings(obj):
            for suffix in ("-config", "-launcher", "-worker"):
                assert f"{name}{suffix}" not in text, (obj["kind"], text)


# --- 1. --gitops none is unchanged ------------------------------------------------------------

def test_none_profile_still_renders_golden_static(monkeypatch):
    from mpigen.pipeline import render_paths
    from mpigen.render.targets import Options

    monkeypatch.chdir(ROOT)  # source comments name blueprints/<file> relative to the repository
    result = render_paths([Path("blueprints")], Options(gitops="none"))
    assert "".join(item.text for item in result.objects) == (GOLDEN / "static.yaml").read_text(encoding="utf-8")
    for obj in golden_stream("static"):
        assert RUN_LABEL not in obj["metadata"]["labels"]
        assert not any(k.startswith(("argocd.argoproj.io/", "kustomize.toolkit.fluxcd.io/"))
                       for k in obj["metadata"].get("annotations", {}))


# --- 2. run identity ---------------------------------------------------------------------------

@pytest.mark.parametrize("profile", PROFILES)
def test_examples_are_named_as_the_mpijob_name_run(profile):
    """golden/<profile>.yaml: each example's objects under <name>-<run>, the same run on all
    of them, derived from blueprints/*.yaml (name, namespace, workers, and the extra objects
    its fields call for)."""
    examples = example_blueprints()
    objects = golden_stream(profile)
    assert {o["metadata"]["labels"][JOB_LABEL] for o in objects} == set(examples)
    runs = set()
    for name, data in examples.items():
        mine = [o for o in objects if o["metadata"]["labels"][JOB_LABEL] == name]
        run = {o["metadata"]["labels"][RUN_LABEL] for o in mine}
        assert len(run) == 1, (name, run)
        run = run.pop()
        runs.add(run)
        assert_named_as_run(mine, name, data["metadata"].get("namespace", "default"), data["spec"]["workers"], run,
                            extra=extra_objects(data))
    assert len(runs) == len(examples)


@pytest.mark.parametrize("profile", PROFILES)
def test_synthetic_job_is_named_as_the_mpijob_name_run(render, profile):
    rendered = render(blueprint("train", namespace="ml", workers=3, gpusPerWorker=2), profile)
    assert_named_as_run(rendered.objects, "train", "ml", 3, rendered.run)
    assert rendered.kinds["ConfigMap"]["data"]["hostfile"] == "".join(
        f"train-{rendered.run}-worker-{i} slots=2\n" for i in range(3))
    assert rendered.kinds["StatefulSet"]["spec"]["replicas"] == 3


@pytest.mark.parametrize("profile", PROFILES)
def test_a_profile_renders_the_operator_objects_of_mpijob_name_run(render, profile):
    """"As if the MPIJob were <name>-<run>": without blueprint labels and with cleanPodPolicy
    None, the objects are those `--gitops none` renders for a blueprint named <name>-<run>,
    apart from mpigen's own labels and the profile's annotations."""
    spec = dict(framework="horovod", workers=3, gpusPerWorker=4, env={"NCCL_DEBUG": "INFO"},
                datasets=[{"name": "data", "mountPath": "/data", "pvc": "claim"}])
    profiled = render(blueprint("train", **spec), profile)
    run = profiled.run
    plain = render(blueprint(f"train-{run}", **spec), "none")

    def normalized(objects):
        out = []
        for obj in json.loads(json.dumps(objects)):
            for meta in metadatas(obj):
                meta["labels"] = {k: v for k, v in meta["labels"].items() if not k.startswith("mpigen.dev/")}
                annotations = {k: v for k, v in meta.pop("annotations", {}).items() if k not in (WAVE, FLUX_SSA)}
                if annotations:
                    meta["annotations"] = annotations
            out.append(obj)
        return sorted(out, key=lambda o: o["kind"])

    assert normalized(profiled.objects) == normalized(plain.objects)


RUN_EDITS = {
    "image": dict(image="example.com/train:2"),
    "command": dict(command=["python", "train.py", "--epochs", "2"]),
    "workers": dict(workers=3),
    "gpusPerWorker": dict(gpusPerWorker=1),
    "env": dict(env={"NCCL_DEBUG": "INFO"}),
    "resources": dict(resources={"worker": {"cpu": "4"}}),
    "datasets": dict(datasets=[{"name": "data", "mountPath": "/data", "pvc": "claim"}]),
    "cleanPodPolicy Running": dict(runPolicy={"cleanPodPolicy": "Running"}),
    "cleanPodPolicy All": dict(runPolicy={"cleanPodPolicy": "All"}),
    "mpirunArgs": dict(mpirunArgs=["-x", "FOO"]),
}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("edit", sorted(RUN_EDITS))
def test_editing_what_defines_the_run_gives_a_new_run(render, profile, edit):
    before = render(blueprint("train"), profile)
    after = render(blueprint("train", **RUN_EDITS[edit]), profile)
    assert before.run != after.run
    assert not set(before.names) & set(after.names)
    assert_named_as_run(after.objects, "train", "team", RUN_EDITS[edit].get("workers", 2), after.run)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("where", ["labels", "annotations"])
def test_label_and_annotation_edits_keep_the_run_and_change_only_object_metadata(render, profile, where):
    before = render(blueprint("train", **{where: {"owner": "a"}}), profile)
    after = render(blueprint("train", **{where: {"owner": "b", "team": "vision"}}), profile)
    assert before.run == after.run
    assert before.names == after.names

    def kind(obj):
        return obj["kind"]

    for old, new in zip(sorted(before.objects, key=kind), sorted(after.objects, key=kind)):
        assert old["metadata"][where]["owner"] == "a"
        assert new["metadata"][where]["owner"] == "b" and new["metadata"][where]["team"] == "vision"
        # only that metadata changed
        old_rest = {k: v for k, v in old.items() if k != "metadata"}
        new_rest = {k: v for k, v in new.items() if k != "metadata"}
        assert old_rest == new_rest, old["kind"]
        other = "annotations" if where == "labels" else "labels"
        assert old["metadata"].get(other) == new["metadata"].get(other)
        # pod templates carry no blueprint labels or annotations in the profiles
        template = new.get("spec", {}).get("template")
        if template is not None:
            assert "owner" not in template["metadata"].get(where, {})
            assert "team" not in template["metadata"].get("labels", {})
            assert "annotations" not in template["metadata"]


def _with_run_replaced(objects: list[dict], run: str, placeholder: str = "RUN") -> str:
    return json.dumps(sorted(objects, key=lambda o: o["kind"]), sort_keys=True).replace(run, placeholder)


@pytest.mark.parametrize("profile", PROFILES)
def test_spec_run_changes_the_run_and_nothing_but_names_and_run_labels(render, profile):
    base = render(blueprint("train"), profile)
    second = render(blueprint("train", run="2"), profile)
    second_int = render(blueprint("train", run=2), profile)
    third = render(blueprint("train", run="3"), profile)
    assert len({base.run, second.run, third.run}) == 3
    assert second_int.run == second.run  # run: 2 and run: "2" are the same run
    for rendered in (second, third):
        assert_named_as_run(rendered.objects, "train", "team", 2, rendered.run)
        assert _with_run_replaced(rendered.objects, rendered.run) == _with_run_replaced(base.objects, base.run)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("state", ["running", "completed"])
def test_spec_state_does_not_change_the_run(render, profile, state):
    assert render(blueprint("train", state=state), profile).names == render(blueprint("train"), profile).names


# --- 3. mpigen diff on two renders ----------------------------------------------------------------

def _two_renders(cli, profile: str, old_text: str, new_text: str) -> InProcessRun:
    write("bp/train.yaml", old_text)
    assert cli("render", "bp", "-o", "old", "--gitops", profile).returncode == 0
    write("bp/train.yaml", new_text)
    assert cli("render", "bp", "-o", "new", "--gitops", profile).returncode == 0
    return cli("diff", "old", "new")


DIFF_EDITS = {
    "image": dict(image="example.com/train:2"),
    "command": dict(command=["python", "train.py", "--epochs", "2"]),
    "workers": dict(workers=4),
    "gpusPerWorker": dict(gpusPerWorker=4),
}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("edit", sorted(DIFF_EDITS))
def test_diff_of_a_run_defining_edit_is_a_new_run_and_nothing_immutable(cli, profile, edit):
    done = _two_renders(cli, profile, blueprint("train", gpusPerWorker=2),
                        blueprint("train", **{"gpusPerWorker": 2, **DIFF_EDITS[edit]}))
    text = done.stdout.decode()
    assert done.returncode == 1, done.stderr
    assert "starts a new run" in text
    assert "ends the run" in text
    assert "IMMUTABLE" not in text
    assert "6 added, 6 removed, 0 changed; 0 immutable changes" in text
    assert cli("diff", "old", "new", "--fail-on", "immutable").returncode == 0


@pytest.mark.parametrize("profile", PROFILES)
def test_diff_of_a_label_edit_changes_objects_in_place(cli, profile):
    done = _two_renders(cli, profile, blueprint("train", labels={"team": "a"}),
                        blueprint("train", labels={"team": "b"}))
    text = done.stdout.decode()
    assert done.returncode == 1, done.stderr
    assert "starts a new run" not in text and "ends the run" not in text
    assert "restarts the workers" not in text
    assert "IMMUTABLE" not in text
    assert "0 added, 0 removed, 6 changed; 0 immutable changes" in text
    changed = [line.strip() for line in text.splitlines() if line.startswith("      ")]
    assert changed and all(line == 'metadata.labels.team: "a" -> "b"' for line in changed), changed


def test_diff_of_an_image_edit_without_a_profile_is_immutable(cli):
    done = _two_renders(cli, "none", blueprint("train"), blueprint("train", image="example.com/train:2"))
    text = done.stdout.decode()
    assert done.returncode == 1
    assert "IMMUTABLE: Kubernetes refuses to change spec.template of Job team/train-launcher" in text
    assert "starts a new run" not in text
    assert cli("diff", "old", "new", "--fail-on", "immutable").returncode == 1


def test_diff_of_completing_a_run_releases_the_gpus_without_a_new_run(cli):
    done = _two_renders(cli, "argocd", blueprint("train", gpusPerWorker=2),
                        blueprint("train", gpusPerWorker=2, state="completed"))
    text = done.stdout.decode()
    assert done.returncode == 1
    assert "GPUs 4 -> 0 (changed)" in text
    assert "starts a new run" not in text and "ends the run" not in text and "IMMUTABLE" not in text
    assert "0 added, 0 removed, 1 changed" in text


# --- 4. sync waves (argocd) ------------------------------------------------------------------------

# gitops-engine pkg/sync/sync_tasks.go: phase, wave, kind (Helm's install order, unknown
# kinds last: their kindOrder is 0, above every listed kind's negative value), name.
HELM_KIND_ORDER = [
    "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy", "PodDisruptionBudget",
    "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass", "PersistentVolume",
    "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole", "ClusterRoleList", "ClusterRoleBinding",
    "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList", "Service", "DaemonSet", "Pod",
    "ReplicationController", "ReplicaSet", "Deployment", "HorizontalPodAutoscaler", "StatefulSet", "Job",
    "CronJob", "IngressClass", "Ingress", "APIService",
]
KIND_ORDER = {kind: i - len(HELM_KIND_ORDER) for i, kind in enumerate(HELM_KIND_ORDER)}
SYNC_PHASE_ORDER = {"PreSync": -1, "Sync": 0, "PostSync": 1, "SyncFail": 2}


def argocd_sort(objects: list[dict]) -> list[dict]:
    def key(obj):
        annotations = obj["metadata"].get("annotations", {})
        phase = annotations.get("argocd.argoproj.io/hook", "Sync")  # non-hooks sync in the Sync phase
        try:
            wave = int(annotations.get(WAVE, "0"))
        except ValueError:
            wave = 0
        return SYNC_PHASE_ORDER[phase], wave, KIND_ORDER.get(obj["kind"], 0), obj["metadata"]["name"]

    return sorted(objects, key=key)


def test_argocd_sort_is_the_engine_sort():
    """The sort itself, on cases worked out from sync_tasks.go."""
    def obj(kind, name, wave=None):
        meta = {"name": name, **({"annotations": {WAVE: wave}} if wave is not None else {})}
        return {"kind": kind, "metadata": meta}

    objects = [obj("Job", "a", "1"), obj("MPIJob", "z"), obj("StatefulSet", "b"), obj("ConfigMap", "c", "-1"),
               obj("ServiceAccount", "d", "-1"), obj("Job", "b", "-10"), obj("Deployment", "e")]
    assert [(o["kind"], o["metadata"]["name"]) for o in argocd_sort(objects)] == [
        ("Job", "b"), ("ServiceAccount", "d"), ("ConfigMap", "c"), ("Deployment", "e"), ("StatefulSet", "b"),
        ("MPIJob", "z"), ("Job", "a")]


@pytest.mark.parametrize("source", ["golden", "overlay prod", "synthetic"])
def test_argocd_waves_start_configuration_then_workers_then_launcher(render, source):
    if source == "golden":
        objects = golden_stream("argocd")
    elif source == "overlay prod":
        objects = [obj for _, obj in golden_prod()]
    else:
        objects = render(blueprint("train", runPolicy={"cleanPodPolicy": "Running"}), "argocd").objects
    # the examples' configuration: the operator's, and their extra objects (a gang-scheduled
    # job's PodGroup, <job>-mpigen, <job>-identity: conftest.extra_objects), none for "train";
    # the PodGroup exists before the worker pods (mpi-operator.md 4.8)
    examples = {} if source == "synthetic" else example_blueprints()
    expected = {"ServiceAccount": "-1", "ConfigMap": "-1", "Role": "-1", "RoleBinding": "-1", "PodGroup": "-1",
                "StatefulSet": "0", "Job": "1"}
    for obj in objects:
        assert obj["metadata"]["annotations"][WAVE] == expected[obj["kind"]]
    order = argocd_sort(objects)
    jobs = {o["metadata"]["labels"][JOB_LABEL] for o in objects}
    assert jobs
    if examples:
        assert jobs == set(examples)
    config = []
    for job in jobs:
        mine = [(i, o["kind"]) for i, o in enumerate(order) if o["metadata"]["labels"][JOB_LABEL] == job]
        job_config = [kind for _, kind in mine if kind not in ("StatefulSet", "Job")]
        extra = extra_objects(examples[job]) if job in examples else []
        assert sorted(job_config) == sorted([*CONFIG_KINDS, *(kind for kind, _ in extra)]), job
        config += job_config
        index = {kind: i for i, kind in mine if kind in ("StatefulSet", "Job")}
        assert max(i for i, kind in mine if kind not in index) < index["StatefulSet"] < index["Job"], job
    # and across the whole Application: every job's configuration before any worker, every
    # worker before any launcher
    kinds = [o["kind"] for o in order]
    n, c = len(jobs), len(config)
    assert sorted(kinds[:c]) == sorted(config)
    assert kinds[c:] == ["StatefulSet"] * n + ["Job"] * n


def test_argocd_waves_are_quoted_strings_in_the_yaml_text():
    text = (GOLDEN / "argocd.yaml").read_text()
    lines = [line.strip() for line in text.splitlines() if WAVE in line]
    assert len(lines) == example_objects()  # one on every object of every example
    assert set(lines) == {f'{WAVE}: "-1"', f'{WAVE}: "0"', f'{WAVE}: "1"'}
    for path in (GOLDEN / "argocd").rglob("*.yaml"):
        for line in path.read_text().splitlines():
            if WAVE in line:
                assert re.fullmatch(rf'\s*{re.escape(WAVE)}: "-?[01]"', line), (path, line)


@pytest.mark.parametrize("profile", PROFILES)
def test_no_hooks_and_only_the_profiles_own_annotations(profile):
    objects = golden_stream(profile) + ([obj for _, obj in golden_prod()] if profile == "argocd" else [])
    foreign = "kustomize.toolkit.fluxcd.io/" if profile == "argocd" else "argocd.argoproj.io/"
    for obj in objects:
        for meta in metadatas(obj):
            for key in meta.get("annotations", {}):
                assert not key.startswith("argocd.argoproj.io/hook"), (obj["kind"], key)
                assert not key.startswith(foreign), (obj["kind"], key)
    text = (GOLDEN / f"{profile}.yaml").read_text()
    assert "argocd.argoproj.io/hook" not in text
    assert foreign not in text


def test_flux_marks_only_the_statefulset_apply_if_absent():
    for obj in golden_stream("flux"):
        annotations = obj["metadata"].get("annotations", {})
        if obj["kind"] == "StatefulSet":
            assert annotations[FLUX_SSA] == "IfNotPresent"
        else:
            assert FLUX_SSA not in annotations
        assert FLUX_SSA not in obj.get("spec", {}).get("template", {}).get("metadata", {}).get("annotations", {})


# --- 5. completion: the launcher scales its workers to 0 on success --------------------------------

TRICKY_COMMAND = ["python", "train.py", "--name=a b", "it's", '"double"', "$HOME", "${PATH}", "`id`",
                  "$(date)", "a\\b", "*", "", "line1\nline2", "--x=;echo pwned", "&&", "#not a comment", "~"]
TRICKY_MPIRUN_ARGS = ["--mca", "btl_tcp_if_include", "eth0 eth1", "-x", "X=$Y", "--tag-output"]


def _fake_tools(tmp_path: Path) -> tuple[Path, Path]:
    """bin/mpirun (records its argv as JSON, exits with $FAKE_MPIRUN_EXIT) and a kubectl
    (appends its argv as a JSON line, exits with $FAKE_KUBECTL_EXIT)."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    mpirun = folder / "mpirun"
    mpirun.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                      "open(os.environ['FAKE_MPIRUN_LOG'], 'w').write(json.dumps(sys.argv[1:]))\n"
                      "sys.exit(int(os.environ['FAKE_MPIRUN_EXIT']))\n")
    kubectl = tmp_path / "kubectl"
    kubectl.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                       "open(os.environ['FAKE_KUBECTL_LOG'], 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n"
                       "sys.exit(int(os.environ.get('FAKE_KUBECTL_EXIT', '0')))\n")
    for tool in (mpirun, kubectl):
        tool.chmod(tool.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder, kubectl


@dataclass
class Launch:
    returncode: int
    stderr: str
    mpirun: list[str] | None
    kubectl: list[list[str]]


def run_script(tmp_path: Path, command: list[str], mpirun_exit: int, kubectl_exit: int = 0) -> Launch:
    """Run a wrapped launcher command (["/bin/sh", "-c", SCRIPT, NAME, *ARGS]) as the
    container runtime would, with the fake kubectl in place of /opt/kube/kubectl."""
    folder, kubectl = _fake_tools(tmp_path)
    script = command[2]
    assert script.count(KUBECTL) == 1
    logs = tmp_path / "logs"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir()
    env = {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}",
           "FAKE_MPIRUN_LOG": str(logs / "mpirun.json"), "FAKE_MPIRUN_EXIT": str(mpirun_exit),
           "FAKE_KUBECTL_LOG": str(logs / "kubectl.jsonl"), "FAKE_KUBECTL_EXIT": str(kubectl_exit),
           "HOME": "/home/nobody", "Y": "expanded"}
    done = subprocess.run(["sh", "-c", script.replace(KUBECTL, str(kubectl)), *command[3:]], env=env,
                          capture_output=True, text=True, timeout=30)
    mpirun_log, kubectl_log = logs / "mpirun.json", logs / "kubectl.jsonl"
    return Launch(done.returncode, done.stderr,
                  json.loads(mpirun_log.read_text()) if mpirun_log.exists() else None,
                  [json.loads(line) for line in kubectl_log.read_text().splitlines()] if kubectl_log.exists() else [])


def wrapped_script(rendered: Rendered) -> list[str]:
    """The wrapped launcher command: the script, then $0, then the program's arguments
    (never pasted into the script text)."""
    command = launcher_command(rendered)
    assert command[:2] == ["/bin/sh", "-c"] and len(command) >= 5, command
    return command


def scale_rule(workers: str) -> dict:
    return {"apiGroups": ["apps"], "resources": ["statefulsets", "statefulsets/scale"], "resourceNames": [workers],
            "verbs": ["get", "patch", "update"]}


def _canonical_rules(rules: list[dict]) -> list[str]:
    return sorted(json.dumps({k: sorted(v) for k, v in rule.items()}, sort_keys=True) for rule in rules)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("policy", ["Running", "All"])
def test_on_success_the_launcher_scales_its_workers_to_zero(render, tmp_path, profile, policy):
    spec = dict(framework="horovod", workers=3, command=TRICKY_COMMAND, mpirunArgs=TRICKY_MPIRUN_ARGS,
                runPolicy={"cleanPodPolicy": policy})
    original = launcher_command(render(blueprint("train", namespace="ml", **spec), "none"))
    assert original[0] == "mpirun" and "^openib" in original  # the operator's line, run without a shell
    rendered = render(blueprint("train", namespace="ml", **spec), profile)
    script = wrapped_script(rendered)
    workers = f"train-{rendered.run}-worker"

    ok = run_script(tmp_path, script, mpirun_exit=0)
    assert ok.mpirun == original[1:]
    assert ok.kubectl == [["scale", "statefulset", workers, "--namespace", "ml", "--replicas=0"]]
    assert ok.returncode == 0, ok.stderr

    failed = run_script(tmp_path, script, mpirun_exit=3)
    assert failed.mpirun == original[1:]
    assert failed.kubectl == []
    assert failed.returncode == 3

    # the Role may scale exactly this StatefulSet, and nothing else is added
    rules = rendered.kinds["Role"]["rules"]
    exec_rule = {"verbs": ["create"], "apiGroups": [""], "resources": ["pods/exec"],
                 "resourceNames": [f"{workers}-{i}" for i in range(3)]}
    assert _canonical_rules(rules) == _canonical_rules([PODS_RULE, exec_rule, scale_rule(workers)])
    assert rules[:2] == [PODS_RULE, exec_rule]


def test_a_failed_scale_down_does_not_fail_the_succeeded_run(render, tmp_path):
    rendered = render(blueprint("train", runPolicy={"cleanPodPolicy": "Running"}), "argocd")
    done = run_script(tmp_path, wrapped_script(rendered), mpirun_exit=0, kubectl_exit=1)
    assert done.returncode == 0
    assert len(done.kubectl) == 1
    assert "could not scale the workers to 0" in done.stderr


@pytest.mark.parametrize("profile", PROFILES)
def test_launcher_command_is_wrapped_too(render, tmp_path, profile):
    launcher = ["mpirun", "-np", "4", "--host", "a b", "it's", "$HOME", "^openib"]
    text = blueprint("train", command=None, launcherCommand=launcher, runPolicy={"cleanPodPolicy": "All"})
    assert launcher_command(render(text, "none")) == launcher
    rendered = render(text, profile)
    done = run_script(tmp_path, wrapped_script(rendered), mpirun_exit=0)
    assert done.mpirun == launcher[1:]
    assert done.kubectl == [["scale", "statefulset", f"train-{rendered.run}-worker", "--namespace", "team",
                             "--replicas=0"]]
    assert scale_rule(f"train-{rendered.run}-worker") in rendered.kinds["Role"]["rules"]


@pytest.mark.parametrize("profile", ("none",) + PROFILES)
def test_cleanpodpolicy_none_has_no_wrapper_and_no_extra_rule(render, profile):
    spec = dict(framework="horovod", command=TRICKY_COMMAND, mpirunArgs=TRICKY_MPIRUN_ARGS)
    rendered = render(blueprint("train", **spec), profile)
    command = launcher_command(rendered)
    assert command[0] == "mpirun" and command[-len(TRICKY_COMMAND):] == TRICKY_COMMAND
    assert [rule["resources"] for rule in rendered.kinds["Role"]["rules"]] == [["pods"], ["pods/exec"]]
    assert not any("scale statefulset" in text for text in strings(rendered.kinds["Job"]))


def test_without_a_profile_running_or_all_adds_no_wrapper(render):
    rendered = render(blueprint("train", runPolicy={"cleanPodPolicy": "Running"}), "none")
    assert launcher_command(rendered) == ["mpirun", "-np", "2", "python", "train.py"]
    assert len(rendered.kinds["Role"]["rules"]) == 2


def kubernetes_expand(text: str, env: dict[str, str]) -> str:
    """Kubernetes' expansion of container command and args (third_party/forked/golang/
    expansion): $(VAR) becomes the value of a variable of the container's env, an unknown
    $(VAR) stays as it is, $$ becomes $, any other $ is kept."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "$" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "$":
                out.append("$")
                i += 2
                continue
            if nxt == "(":
                end = text.find(")", i + 2)
                if end != -1:
                    name = text[i + 2:end]
                    out.append(env[name] if name in env else f"$({name})")
                    i = end + 1
                    continue
                out.append("$(")
                i += 2
                continue
            out.append("$" + nxt)
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def test_kubernetes_expand_follows_the_apiserver_rules():
    env = {"A": "x y", "B": "it's"}
    assert kubernetes_expand("$(A)-$(B)-$(C)-$$(A)-$A-$-$(", env) == "x y-it's-$(C)-$(A)-$A-$-$("


def _launch_under_kubernetes(render, tmp_path, env: dict, command: list[str], profile: str):
    text = blueprint("train", env=env, command=command, runPolicy={"cleanPodPolicy": "Running"})
    plain = render(text, "none")
    container_env = {e["name"]: e.get("value", "") for e in pod(plain.kinds["Job"])["containers"][0]["env"]}
    expected = [kubernetes_expand(arg, container_env) for arg in launcher_command(plain)]
    rendered = render(text, profile)
    command = [kubernetes_expand(arg, container_env) for arg in wrapped_script(rendered)]
    return expected, run_script(tmp_path, command, mpirun_exit=0)


def test_env_references_in_the_command_expand_as_without_the_wrapper(render, tmp_path):
    """Kubernetes expands $(VAR) in the command before the shell reads the script; values
    without quotes reach mpirun as they would without the wrapper."""
    expected, done = _launch_under_kubernetes(render, tmp_path, {"DATA": "/data/a b", "N": "$HOME"},
                                              ["python", "train.py", "--data=$(DATA)", "$(N)", "$$(DATA)"], "argocd")
    assert expected[-3:] == ["--data=/data/a b", "$HOME", "$(DATA)"]
    assert done.mpirun == expected[1:]
    assert done.returncode == 0


def test_env_reference_to_a_value_with_a_single_quote_survives_the_wrapper(render, tmp_path):
    expected, done = _launch_under_kubernetes(render, tmp_path, {"MSG": "it's"},
                                              ["python", "train.py", "--msg=$(MSG)"], "argocd")
    assert expected[-1] == "--msg=it's"
    assert done.mpirun == expected[1:]
    assert done.returncode == 0


# --- 6. spec.state --------------------------------------------------------------------------------

@pytest.mark.parametrize("profile", ("none",) + PROFILES)
def test_completed_scales_the_workers_to_zero_under_the_same_names(render, profile):
    running = render(blueprint("train", workers=4), profile)
    completed = render(blueprint("train", workers=4, state="completed"), profile)
    assert running.kinds["StatefulSet"]["spec"]["replicas"] == 4
    assert completed.kinds["StatefulSet"]["spec"]["replicas"] == 0
    assert completed.names == running.names
    if profile == "none":
        assert completed.names == sorted([("ConfigMap", "train-config"), ("Job", "train-launcher"),
                                          ("Role", "train-launcher"), ("RoleBinding", "train-launcher"),
                                          ("ServiceAccount", "train-launcher"), ("StatefulSet", "train-worker")])
    # the hostfile still lists the 4 workers: only the StatefulSet is scaled
    assert len(completed.kinds["ConfigMap"]["data"]["hostfile"].splitlines()) == 4


def test_flux_applies_the_statefulset_only_if_absent_while_running(render):
    for state, expected in (("running", {FLUX_SSA: "IfNotPresent"}), ("completed", {})):
        rendered = render(blueprint("train", state=state), "flux")
        annotations = rendered.kinds["StatefulSet"]["metadata"].get("annotations", {})
        assert {k: v for k, v in annotations.items() if k == FLUX_SSA} == expected, state
        for obj in rendered.objects:
            if obj["kind"] != "StatefulSet":
                assert FLUX_SSA not in obj["metadata"].get("annotations", {})
    for state in ("running", "completed"):
        for obj in render(blueprint("train", state=state), "argocd").objects:
            assert FLUX_SSA not in obj["metadata"].get("annotations", {})


@pytest.mark.parametrize("profile", ("none",) + PROFILES)
def test_archived_renders_nothing_and_other_jobs_still_render(cli, profile):
    write("bp/old.yaml", blueprint("old", state="archived"))
    write("bp/new.yaml", blueprint("new"))
    streamed = cli("render", "bp", "--stdout", "--gitops", profile)
    assert streamed.returncode == 0, streamed.stderr
    objects = streamed.objects()
    assert len(objects) == 6
    assert {o["metadata"]["labels"][JOB_LABEL] for o in objects} == {"new"}
    assert "old" not in streamed.stdout.decode()
    written = cli("render", "bp", "-o", "out", "--gitops", profile)
    assert written.returncode == 0, written.stderr
    kustomization = yaml.safe_load(Path("out/kustomization.yaml").read_text())
    assert len(kustomization["resources"]) == 6
    # <ns>/<kind>-new-<run>-..., or in the flux profile <ns>/new/<role>/<kind>-new-<run>-...
    assert all(path.startswith("team/") and path.rsplit("/", 1)[1].split("-", 1)[1].startswith("new-")
               for path in kustomization["resources"]), kustomization["resources"]
    assert not [p for p in Path("out").rglob("*old*")]


def test_archiving_a_job_removes_its_files_from_the_output_folder(cli):
    write("bp/old.yaml", blueprint("old"))
    write("bp/new.yaml", blueprint("new"))
    assert cli("render", "bp", "-o", "out", "--gitops", "argocd").returncode == 0
    assert len(list(Path("out").rglob("*old*"))) == 6
    write("bp/old.yaml", blueprint("old", state="archived"))
    assert cli("render", "bp", "-o", "out", "--gitops", "argocd").returncode == 0
    assert not list(Path("out").rglob("*old*"))
    assert len(yaml.safe_load(Path("out/kustomization.yaml").read_text())["resources"]) == 6


@pytest.mark.parametrize("earlier", [False, True], ids=["fresh", "after-a-render"])
def test_all_archived_renders_an_empty_kustomization(cli, earlier):
    if earlier:
        write("bp/old.yaml", blueprint("old"))
        assert cli("render", "bp", "-o", "out", "--gitops", "argocd").returncode == 0
    write("bp/old.yaml", blueprint("old", state="archived"))
    done = cli("render", "bp", "-o", "out", "--gitops", "argocd")
    assert done.returncode == 0, done.stderr
    kustomization = yaml.safe_load(Path("out/kustomization.yaml").read_text())
    assert kustomization["kind"] == "Kustomization"
    assert kustomization["resources"] == []


def test_all_archived_streams_nothing(cli):
    write("bp/old.yaml", blueprint("old", state="archived"))
    done = cli("render", "bp", "--stdout", "--gitops", "flux")
    assert done.returncode == 0, done.stderr
    assert done.stdout == b""


# --- 7. runPolicy.ttlSecondsAfterFinished -----------------------------------------------------------

TTL_BLUEPRINT = """\
apiVersion: mpigen.dev/v1alpha1
kind: MPIJobBlueprint
metadata:
  name: train
  namespace: team
spec:
  image: example.com/train:1
  workers: 2
  command: [python, train.py]
  runPolicy:
    backoffLimit: 2
    ttlSecondsAfterFinished: 3600
"""


def test_ttl_is_the_launcher_jobs_ttl_without_a_profile(cli):
    write("bp/train.yaml", TTL_BLUEPRINT)
    done = cli("render", "bp", "--stdout", "--gitops", "none")
    assert done.returncode == 0, done.stderr
    objects = by_kind(done.objects())
    assert objects["Job"]["spec"]["ttlSecondsAfterFinished"] == 3600
    assert objects["Job"]["spec"]["backoffLimit"] == 2
    assert all("ttlSecondsAfterFinished" not in json.dumps(o) for k, o in objects.items() if k != "Job")


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("where", ["--stdout", "-o"])
def test_ttl_is_an_error_at_its_key_under_a_profile(cli, profile, where):
    write("bp/train.yaml", TTL_BLUEPRINT)
    args = ["--stdout"] if where == "--stdout" else ["-o", "out"]
    done = cli("render", "bp", *args, "--gitops", profile)
    assert done.returncode == 2
    assert done.stdout == b""
    assert not Path("out").exists()
    line, column = pos(TTL_BLUEPRINT, "ttlSecondsAfterFinished: 3600")
    errors = done.stderr.splitlines()
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"bp/train.yaml:{line}:{column}: error: spec.runPolicy.ttlSecondsAfterFinished ")
    assert f"--gitops {profile}" in errors[0]
    assert "creates it again" in errors[0] and "runs again" in errors[0]


def test_ttl_error_leaves_an_existing_output_folder_as_it_was(cli):
    write("bp/train.yaml", blueprint("train"))
    assert cli("render", "bp", "-o", "out", "--gitops", "argocd").returncode == 0
    before = {p: p.read_bytes() for p in Path("out").rglob("*") if p.is_file()}
    write("bp/train.yaml", TTL_BLUEPRINT)
    assert cli("render", "bp", "-o", "out", "--gitops", "argocd").returncode == 2
    assert {p: p.read_bytes() for p in Path("out").rglob("*") if p.is_file()} == before


# --- 8. name length with the run suffix ----------------------------------------------------------

def _named(length: int) -> str:
    return "n" * length


@pytest.mark.parametrize("profile", PROFILES)
def test_a_name_that_fits_only_without_the_run_suffix_is_an_error_at_metadata_name(cli, profile):
    # 2 workers: the last pod is <name>-<run>-worker-1, 16 characters more than the name;
    # a 48-character name gives 64 (at most 47 fits), while without the run suffix the pod
    # name is 57 characters (the StatefulSet name, 55, only draws the 52-character warning).
    name = _named(48)
    text = write("bp/long.yaml", blueprint(name, workers=2))
    done = cli("render", "bp", "--stdout", "--gitops", profile)
    assert done.returncode == 2
    assert done.stdout == b""
    line, column = pos(text, f'"{name}"')
    errors = [line_ for line_ in done.stderr.splitlines() if ": error: " in line_]
    assert len(errors) == 1, done.stderr
    assert errors[0].startswith(f"bp/long.yaml:{line}:{column}: error: metadata.name: ")
    assert "64 characters" in errors[0] and "63" in errors[0] and "at most 47 characters" in errors[0]
    assert f"--gitops {profile}" in errors[0]
    plain = cli("render", "bp", "--stdout", "--gitops", "none")
    assert plain.returncode == 0, plain.stderr
    assert len(plain.objects()) == 6


@pytest.mark.parametrize("profile", PROFILES)
def test_the_longest_name_that_fits_with_the_run_suffix_renders(render, profile):
    rendered = render(blueprint(_named(47), workers=2), profile)
    pods = [line.split()[0] for line in rendered.kinds["ConfigMap"]["data"]["hostfile"].splitlines()]
    assert max(len(p) for p in pods) == 63


@pytest.mark.parametrize("profile", PROFILES)
def test_a_statefulset_name_over_52_only_with_the_run_suffix_is_a_warning(cli, profile):
    # <name>-<run>-worker is the name plus 14 characters: 39 gives 53 (at most 38 fits);
    # without the run the StatefulSet name is 46 characters, no warning.
    name = _named(39)
    text = write("bp/long.yaml", blueprint(name, workers=2))
    done = cli("render", "bp", "--stdout", "--gitops", profile)
    assert done.returncode == 0, done.stderr
    assert len(done.objects()) == 6
    line, column = pos(text, f'"{name}"')
    warnings = [line_ for line_ in done.stderr.splitlines() if ": warning: metadata.name: " in line_]
    assert len(warnings) == 1, done.stderr
    assert warnings[0].startswith(f"bp/long.yaml:{line}:{column}: warning: metadata.name: ")
    assert "52" in warnings[0] and "at most 38 characters" in warnings[0]
    assert f"--gitops {profile}" in warnings[0]
    plain = cli("render", "bp", "--stdout", "--gitops", "none")
    assert plain.returncode == 0 and "metadata.name" not in plain.stderr
    write("bp/long.yaml", blueprint(_named(38), workers=2))
    assert "metadata.name" not in cli("render", "bp", "--stdout", "--gitops", profile).stderr


# --- 9. profile selection: flag > overlay (and bases) > mpigen.yaml > none --------------------------

def _copy_repository(tmp_path: Path, extra_config: str = "") -> None:
    for folder in ("blueprints", "overlays"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    config = (ROOT / "mpigen.yaml").read_text()
    (tmp_path / "mpigen.yaml").write_text(config + extra_config)


def _profile_of(objects: list[dict]) -> str:
    """What the objects say about the profile they were rendered in (checked whole)."""
    examples = example_blueprints()
    hashed = {bool(RUN_LABEL in o["metadata"]["labels"]) for o in objects}
    assert len(hashed) == 1

    def names(name: str, instance: str) -> list[tuple[str, str]]:
        """(kind, name) of each object of the example `name` rendered as `instance`."""
        return [(kind, f"{instance}{suffix}") for kind, suffix in job_objects(examples[name])]

    if not hashed.pop():
        for obj in objects:
            name = obj["metadata"]["labels"][JOB_LABEL]
            assert (obj["kind"], obj["metadata"]["name"]) in names(name, name)
            assert not {WAVE, FLUX_SSA} & set(obj["metadata"].get("annotations", {}))
        return "none"
    for obj in objects:
        name = obj["metadata"]["labels"][JOB_LABEL]
        assert name in examples
        named = re.fullmatch(rf"({name}-[0-9a-f]{{6}})(-[a-z]+)?", obj["metadata"]["name"])
        assert named, obj["metadata"]["name"]
        assert (obj["kind"], obj["metadata"]["name"]) in names(name, named.group(1))
    waves = {WAVE in o["metadata"].get("annotations", {}) for o in objects}
    ssa = {FLUX_SSA in o["metadata"].get("annotations", {}) for o in objects if o["kind"] == "StatefulSet"}
    if waves == {True} and ssa == {False}:
        return "argocd"
    if waves == {False} and ssa == {True}:
        return "flux"
    raise AssertionError(f"mixed profile annotations: waves {waves}, ssa {ssa}")


def _env_objects(env: str) -> list[dict]:
    """The objects of an environment's folder: <ns>/<kind>-<name>.yaml, or in the flux
    profile <ns>/<job>/{workers,launcher}/<kind>-<name>.yaml (each with its kustomization)."""
    root = Path("golden/overlays") / env
    files = sorted(p for p in root.rglob("*.yaml") if p.name != "kustomization.yaml")
    kustomization = yaml.safe_load((root / "kustomization.yaml").read_text())
    assert sorted(kustomization["resources"]) == sorted(p.relative_to(root).as_posix() for p in files)
    assert len(files) == example_objects()
    return [yaml.safe_load(p.read_text()) for p in files]


@pytest.mark.parametrize("config, flags, expected", [
    ("", [], {"dev": "none", "prod": "argocd"}),
    ("", ["--gitops", "flux"], {"dev": "flux", "prod": "flux"}),
    ("", ["--gitops", "none"], {"dev": "none", "prod": "none"}),
    ("gitops: flux\n", [], {"dev": "flux", "prod": "argocd"}),
    ("gitops: argocd\n", ["--gitops", "none"], {"dev": "none", "prod": "none"}),
], ids=["overlay", "flag-flux", "flag-none", "config-flux", "flag-over-config"])
def test_profile_per_environment(cli, tmp_path, config, flags, expected):
    _copy_repository(tmp_path, config)
    done = cli("render", *flags)
    assert done.returncode == 0, done.stderr
    assert {env: _profile_of(_env_objects(env)) for env in ("dev", "prod")} == expected


def test_an_overlay_inherits_the_profile_of_its_bases_and_its_own_wins(cli, tmp_path):
    _copy_repository(tmp_path, "gitops: flux\n")
    head = "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n"
    write("overlays/staging/overlay.yaml", head + "bases: [prod]\nnamespace: staging\n")
    write("overlays/canary/overlay.yaml", head + "bases: [prod]\ngitops: none\nnamespace: canary\n")
    # a base's profile under prod's own: prod's (argocd) wins
    base = Path("overlays/gpu-pool-a100/overlay.yaml")
    base.write_text(base.read_text() + "gitops: flux\n")
    for overlay, expected in (("staging", "argocd"), ("canary", "none"), ("prod", "argocd"), ("dev", "flux")):
        done = cli("render", "--overlay", overlay, "--stdout")
        assert done.returncode == 0, (overlay, done.stderr)
        assert _profile_of(done.objects()) == expected, overlay
        assert len(done.objects()) == example_objects()
    flagged = cli("render", "--overlay", "staging", "--stdout", "--gitops", "none")
    assert _profile_of(flagged.objects()) == "none"


def test_per_overlay_profile_checks_apply_only_where_the_profile_is(cli, tmp_path):
    """The TTL refusal follows the environment's profile: prod (argocd) refuses it, dev
    (none) renders it."""
    _copy_repository(tmp_path)
    write("blueprints/train.yaml", TTL_BLUEPRINT)
    dev = cli("render", "--overlay", "dev", "--stdout")
    assert dev.returncode == 0, dev.stderr
    assert [o["spec"]["ttlSecondsAfterFinished"] for o in dev.objects()
            if o["kind"] == "Job" and o["metadata"]["labels"][JOB_LABEL] == "train"] == [3600]
    prod = cli("render", "--overlay", "prod", "--stdout")
    assert prod.returncode == 2
    line, column = pos(TTL_BLUEPRINT, "ttlSecondsAfterFinished: 3600")
    assert prod.stderr.startswith(f"blueprints/train.yaml:{line}:{column}: error: "
                                  "spec.runPolicy.ttlSecondsAfterFinished cannot be used with --gitops argocd")


def test_validate_reports_what_the_environments_profile_refuses(cli, tmp_path):
    _copy_repository(tmp_path)
    write("blueprints/train.yaml", TTL_BLUEPRINT)
    assert cli("render").returncode == 2
    done = cli("validate")
    assert done.returncode == 2, done.stderr
    assert "ttlSecondsAfterFinished cannot be used with --gitops argocd" in done.stderr


# --- 10. Kubernetes schema and kustomize -------------------------------------------------------------

def _schema_cases():
    cases = []
    for profile in PROFILES:
        cases += [(f"{profile}/{o['kind']}/{o['metadata']['name']}", o) for o in golden_stream(profile)]
    cases += [(f"overlays/prod/{path}", obj) for path, obj in golden_prod()]
    return cases


ALL_CASES = _schema_cases()
# Not the PodGroups: custom resources, not in the Kubernetes OpenAPI schema (test_kubernetes_schema
# checks every golden PodGroup against the operator's facts instead).
SCHEMA_CASES = [(case, obj) for case, obj in ALL_CASES if obj["kind"] != "PodGroup"]


@pytest.mark.parametrize("obj", [obj for _, obj in SCHEMA_CASES], ids=[case for case, _ in SCHEMA_CASES])
def test_golden_profile_objects_validate_strictly(obj):
    from tests.support.kubernetes_schema import validate

    validate(obj)


def test_golden_profile_cases_cover_every_example():
    pod_groups = sum(kind == "PodGroup" for data in example_blueprints().values() for kind, _ in extra_objects(data))
    for prefix in ("argocd/", "flux/", "overlays/prod/"):
        assert len([c for c in ALL_CASES if c[0].startswith(prefix)]) == example_objects(), prefix
        assert len([c for c in SCHEMA_CASES if c[0].startswith(prefix)]) == example_objects() - pod_groups, prefix


@pytest.mark.parametrize("profile", PROFILES)
def test_profile_variants_validate_strictly(render, profile):
    from tests.support.kubernetes_schema import validate

    for text in (blueprint("a", runPolicy={"cleanPodPolicy": "All"}, state="completed", run=7,
                           labels={"team": "x"}, annotations={"owner": "y"}),
                 blueprint("b", command=None, launcherCommand=["sh", "-c", "mpirun hostname"],
                           runPolicy={"cleanPodPolicy": "Running", "backoffLimit": 0})):
        for obj in render(text, profile).objects:
            validate(obj)


def _key(obj: dict) -> tuple:
    return obj["kind"], obj["metadata"]["namespace"], obj["metadata"]["name"]


def _without_empty_annotations(objects: list[dict]) -> list[dict]:
    """kustomize drops an empty metadata.annotations mapping; mpigen writes none (tested above)."""
    out = json.loads(json.dumps(objects))
    for obj in out:
        if obj["metadata"].get("annotations") == {}:
            del obj["metadata"]["annotations"]
    return out


@pytest.mark.parametrize("folder, stream", [("argocd", "argocd"), ("flux", "flux"), ("overlays/prod", None)])
def test_kustomize_builds_the_profile_folders(kubectl, folder, stream):
    """What Argo CD or Flux would apply from the folder is exactly the rendered stream."""
    built = subprocess.run([kubectl, "kustomize", str(GOLDEN / folder)], capture_output=True, text=True, check=True)
    objects = sorted((o for o in yaml.safe_load_all(built.stdout) if o), key=_key)
    expected = golden_stream(stream) if stream else [obj for _, obj in golden_prod()]
    assert len(objects) == example_objects()
    assert objects == sorted(_without_empty_annotations(expected), key=_key)


@pytest.mark.parametrize("state", ["running", "completed"])
def test_flux_writes_no_empty_annotations(render, state):
    for obj in render(blueprint("train", state=state), "flux").objects:
        assert obj["metadata"].get("annotations", None) != {}, obj["kind"]
