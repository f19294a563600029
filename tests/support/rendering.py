"""A blueprint rendered in memory through the real stages (load, validate, compile, render), and
the objects a blueprint renders to under the static target (or jobset), as (kind, suffix of the
job name), and the target this repository's mpigen.yaml gives an example in its environments."""

from __future__ import annotations

import fnmatch

import yaml

from mpigen.compile.blueprint import compile_blueprint
from mpigen.errors import InputError
from mpigen.load.parser import parse
from mpigen.render.target import Lifecycle, Options
from mpigen.render.targets import RESERVED, render_job
from mpigen.validate.document import validate_document

# The objects the operator creates for one job (the static target, shared/reference/
# mpi-operator.md 2.2), as (kind, suffix of the job name).
OPERATOR_OBJECTS = (("ConfigMap", "-config"), ("ServiceAccount", "-launcher"), ("Role", "-launcher"),
                    ("RoleBinding", "-launcher"), ("StatefulSet", "-worker"), ("Job", "-launcher"))
# The objects of one job under the jobset target (docs/targets.md, "emits"; docs/cli.md --target
# jobset): the JobSet, its ConfigMap, and the key generator's ServiceAccount, Role and RoleBinding.
JOBSET_OBJECTS = (("ServiceAccount", "-ssh-keygen"), ("ConfigMap", "-config"), ("Role", "-ssh-keygen"),
                  ("RoleBinding", "-ssh-keygen"), ("JobSet", ""))


def render_text(text: str, path: str = "job.yaml", **options) -> list[dict]:
    """Objects rendered from a blueprint text, through load, validate, compile and render (its
state and run as the pipeline takes them)."""
    objects = []
    for doc in parse(text, path):
        blueprint, diagnostics = validate_document(doc, RESERVED)
        if blueprint is None:
            raise InputError([d for d in diagnostics if d.severity == "error"])
        spec = blueprint.spec
        lifecycle = Lifecycle(spec.state, spec.run, spec.runPolicy.ttlSecondsAfterFinished)
        objects += render_job(compile_blueprint(blueprint), Options(**{"target": "static", **options}), lifecycle)
    return objects


def by_kind(objects: list[dict]) -> dict[str, dict]:
    return {obj["kind"]: obj for obj in objects}


def extra_objects(blueprint: dict, target: str = "static") -> list[tuple[str, str]]:
    """The objects a blueprint gets besides the operator's usual six (static target) or its
    MPIJob (target mpijob), as (kind, suffix of the job name), from the blueprint's fields:
    - the PodGroup `<job>` of gang scheduling (spec.scheduling.gang), static and jobset targets:
      under target mpijob the operator creates it (mpi-operator.md 2.7, 4.8);
    - the ConfigMap `<job>-mpigen` holding rank-env.sh, for PyTorch and DeepSpeed started by
      mpigen's mpirun line (framework pytorch or deepspeed, no launcherCommand);
    - the ServiceAccount `<job>-identity` of a cloud identity (spec.serviceAccount.annotations)."""
    spec = blueprint["spec"]
    out = []
    if target in ("static", "jobset") and spec.get("scheduling", {}).get("gang") is not None:
        out.append(("PodGroup", ""))
    if spec.get("framework") in ("pytorch", "deepspeed") and spec.get("launcherCommand") is None:
        out.append(("ConfigMap", "-mpigen"))
    if spec.get("serviceAccount", {}).get("annotations"):
        out.append(("ServiceAccount", "-identity"))
    return out


def job_objects(blueprint: dict, target: str = "static") -> list[tuple[str, str]]:
    """Every object of one blueprint under the static (or jobset) target, as (kind, suffix of the job name)."""
    return [*(JOBSET_OBJECTS if target == "jobset" else OPERATOR_OBJECTS), *extra_objects(blueprint, target)]


def repository_target(blueprint: dict) -> str:
    """The target this repository's environments render an example with: that of the first rule of
    mpigen.yaml's `targets` that names the job (its rules select by name), else static (the
    repository's overlays name no target)."""
    from tests.support.paths import ROOT

    config = yaml.safe_load((ROOT / "mpigen.yaml").read_text())
    name = blueprint["metadata"]["name"]
    for rule in config.get("targets", []):
        assert set(rule["jobs"]) == {"name"}, rule  # this helper reads name rules only
        if fnmatch.fnmatchcase(name, rule["jobs"]["name"]):
            return rule["target"]
    return "static"


def repository_objects(blueprint: dict) -> list[tuple[str, str]]:
    """Every object of one example in this repository's environments (mpigen.yaml's rules applied)."""
    return job_objects(blueprint, repository_target(blueprint))
