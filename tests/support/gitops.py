"""What the GitOps acceptance tests (tests/acceptance/gitops/) share: the profiles' label and
annotation keys, a blueprint in namespace team, the rendered objects of one render, and
what a profile does to the operator's object names."""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from tests.support.blueprints import MINIMAL_SPEC_YAML, blueprint_text, blueprint_yaml, example_blueprints
from tests.support.paths import GOLDEN
from tests.support.rendering import by_kind, job_objects, repository_objects


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
    (rendering.extra_objects)."""
    return sum(len(job_objects(data)) for data in example_blueprints().values())


def repository_example_objects() -> int:
    """How many objects the examples render to in this repository's environments (mpigen.yaml's
    targets rule renders the Kueue example with jobset: rendering.repository_objects)."""
    return sum(len(repository_objects(data)) for data in example_blueprints().values())


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
    `extra`: the job's objects besides the operator's six (rendering.extra_objects), as
    (kind, suffix of the name)."""
    assert RUN.match(run), run
    instance = f"{name}-{run}"
    kinds = _operator_objects_named(objects, instance, extra)
    assert {o["metadata"]["namespace"] for o in objects} == {namespace}
    _assert_launcher_config(kinds, instance, namespace, workers, slots)
    _assert_pods_refer(kinds, instance, extra)
    _assert_labelled(objects, kinds, name, run, instance)
    # no reference to the operator's names of the bare job is left anywhere
    for obj in objects:
        for text in strings(obj):
            for suffix in ("-config", "-launcher", "-worker"):
                assert f"{name}{suffix}" not in text, (obj["kind"], text)


def _operator_objects_named(objects: list[dict], instance: str, extra: list[tuple[str, str]]) -> dict[str, dict]:
    """The extra objects are there, named <instance><suffix>, and the others are the
    operator's six, named as for the MPIJob <instance>: {kind: object} of those six."""
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
    return kinds


def _assert_launcher_config(kinds: dict[str, dict], instance: str, namespace: str, workers: int,
                            slots: int | None) -> None:
    """The hostfile, Role and RoleBinding name the worker pods, ServiceAccount and Role of <instance>."""
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


def _assert_pods_refer(kinds: dict[str, dict], instance: str, extra: list[tuple[str, str]]) -> None:
    """The StatefulSet and the Job refer to <instance>'s service, pods, ConfigMap,
    ServiceAccount and extra objects."""
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


def _assert_labelled(objects: list[dict], kinds: dict[str, dict], name: str, run: str, instance: str) -> None:
    """The operator's labels of <instance>, and mpigen's on every object and pod template."""
    for kind in CONFIG_KINDS:
        assert kinds[kind]["metadata"]["labels"]["app"] == instance
    for obj in (kinds["StatefulSet"], kinds["Job"]):
        for meta in metadatas(obj):
            assert meta["labels"]["mpi_job_name"] == instance
    # mpigen's labels on every object and pod template
    for obj in objects:
        for meta in metadatas(obj):
            assert meta["labels"][JOB_LABEL] == name
            assert meta["labels"][RUN_LABEL] == run
            assert meta["labels"]["app.kubernetes.io/managed-by"] == "mpigen"


# A job with runPolicy.ttlSecondsAfterFinished: allowed without a profile, an error under one.
TTL_BLUEPRINT = blueprint_yaml("train", "namespace: team\n", MINIMAL_SPEC_YAML + (
    "runPolicy:\n  backoffLimit: 2\n  ttlSecondsAfterFinished: 3600\n"))
