"""The blueprints the tests use: the one builder of a minimal valid blueprint (as a dict, as
JSON text, or as block YAML laid out as people write one), and the checkout's examples."""

from __future__ import annotations

import json
import textwrap

import yaml

from tests.support.paths import BLUEPRINTS

API_VERSION = "mpigen.dev/v1alpha1"
KIND = "MPIJobBlueprint"
# The fields a blueprint's spec must have (schemas/blueprint.schema.json: required), with the
# values of a minimal blueprint.
MINIMAL_SPEC = {"image": "example.com/train:1", "workers": 2, "command": ["python", "train.py"]}
MINIMAL_SPEC_YAML = "image: example.com/train:1\nworkers: 2\ncommand: [python, train.py]\n"


def blueprint(name: str = "job", labels: dict | None = None, annotations: dict | None = None,
              **spec) -> dict:
    """A minimal valid blueprint, with spec fields overridden by keyword (None leaves a field
    out); `namespace`, `labels` and `annotations` go into metadata."""
    body = {key: value for key, value in {**MINIMAL_SPEC, **spec}.items() if value is not None}
    metadata = {"name": name}
    if "namespace" in body:
        metadata["namespace"] = body.pop("namespace")
    if labels:
        metadata["labels"] = labels
    if annotations:
        metadata["annotations"] = annotations
    return {"apiVersion": API_VERSION, "kind": KIND, "metadata": metadata, "spec": body}


def blueprint_text(name: str = "job", labels: dict | None = None, annotations: dict | None = None,
                   **spec) -> str:
    """blueprint(...) as YAML text (JSON, which keeps key order)."""
    return json.dumps(blueprint(name, labels, annotations, **spec), indent=2) + "\n"


def blueprint_yaml(name: str = "job", metadata: str = "", spec: str = MINIMAL_SPEC_YAML) -> str:
    """A blueprint as block YAML: `metadata` (YAML of the fields after the name) and `spec` (YAML
    of the spec's fields, the minimal ones unless given), each dedented and indented under its key."""
    def under(fields: str) -> str:
        return textwrap.indent(textwrap.dedent(fields).lstrip("\n"), "  ")

    return (f"apiVersion: {API_VERSION}\nkind: {KIND}\nmetadata:\n  name: {name}\n{under(metadata)}"
            f"spec:\n{under(spec)}")


def example_blueprints() -> dict[str, dict]:
    """The examples by name, read from blueprints/*.yaml (in file order)."""
    out = {}
    for path in sorted(BLUEPRINTS.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        out[data["metadata"]["name"]] = data
    return out


def production_features(blueprint: dict) -> list[str]:
    """The production features (b523eda) a blueprint uses, as the fields that ask for them:
    sharedMemory, launcher (runAsWorker, waitForWorkers), network, placement affinity,
    onePodPerNode and priorityClassName, scheduling (gang, Kueue queue), security,
    imagePullSecrets, serviceAccount, the dataset sources csi, configMap and secret, a
    dataset's accessMode and download step, and the PyTorch and DeepSpeed presets (ranks
    started through rank-env.sh). Empty for a blueprint of the operator's own examples."""
    spec = blueprint["spec"]
    used = [key for key in ("sharedMemory", "launcher", "network", "scheduling", "security", "imagePullSecrets",
                            "serviceAccount") if key in spec]
    for role, placement in spec.get("placement", {}).items():
        used += [f"placement.{role}.{key}" for key in ("affinity", "onePodPerNode", "priorityClassName")
                 if key in placement]
    for index, dataset in enumerate(spec.get("datasets", [])):
        used += [f"datasets[{index}].{key}" for key in ("csi", "configMap", "secret", "accessMode", "download")
                 if key in dataset]
    if spec.get("framework") in ("pytorch", "deepspeed") and spec.get("launcherCommand") is None:
        used.append(f"framework: {spec['framework']}")
    return used
