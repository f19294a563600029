"""The MPIJob CustomResourceDefinition (`--with-crd`), generated, not copied.

The spec's schema comes from mpigen's own typed model of each MPIJob API (the models
below: fields, enums and defaults as the operators declare them, MO@caa3c47 for
v2beta1 and TO@v1.9.0 for v1). The pod templates' schema is the Kubernetes OpenAPI of
the target Kubernetes version (`--kube-version`), from the JSON schemas the
kubernetes-validate package ships. Both are turned into a structural schema, the form
apiextensions.k8s.io/v1 requires: every node typed, no references, no null types,
int-or-string for quantities, and only the keywords a CRD accepts.
"""

import json
from functools import lru_cache
from typing import Any, Literal, Optional

from pydantic import ConfigDict, Field

from mpigen.compile.mpijob import V1, V2BETA1, CleanPodPolicy
from mpigen.formats.base import Model
from mpigen.kube.labels import ARGOCD_SYNC_OPTIONS, ARGOCD_SYNC_WAVE, MANAGED_BY
from mpigen.kube.versions import schema_root
from mpigen.render.mpijob.options import MpiJobOptions
from mpigen.render.target import DEFAULT_KUBE_VERSION, Options

GROUP = "kubeflow.org"
POD_TEMPLATE = "x-mpigen-pod-template"  # marks where the Kubernetes schema goes
SCHEMAS_LIBRARY = "kubernetes-validate"  # the distribution whose schemas the pod templates' come from

# JSONSchemaProps fields a CRD schema may use (k8s.io/apiextensions-apiserver).
ALLOWED_KEYS = {
    "description", "type", "format", "title", "default", "maximum", "exclusiveMaximum", "minimum",
    "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "multipleOf",
    "enum", "maxProperties", "minProperties", "required", "items", "properties", "additionalProperties",
    "nullable", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string", "x-kubernetes-map-type",
}
INT_OR_STRING = ("io.k8s.apimachinery.pkg.util.intstr.IntOrString", "io.k8s.apimachinery.pkg.api.resource.Quantity")


# --- the typed model of each API's spec ------------------------------------------------------

class _SpecModel(Model):
    """A model read only for its JSON schema (`--with-crd`): built when first asked, so that
    no other run pays for building it."""

    model_config = ConfigDict(defer_build=True)


class ReplicaSpec(_SpecModel):
    replicas: Optional[int] = Field(None, json_schema_extra={"format": "int32"},
                                    description="Number of replicas (Launcher: 1).")
    restartPolicy: Optional[Literal["Always", "OnFailure", "Never", "ExitCode"]] = Field(
        None, description="Restart policy of the replica's pods.")
    template: dict = Field(default_factory=dict, json_schema_extra={POD_TEMPLATE: True},
                           description="The pods of the replica.")


class SchedulingPolicy(_SpecModel):
    minAvailable: Optional[int] = Field(None, json_schema_extra={"format": "int32"})
    queue: Optional[str] = None
    minResources: Optional[dict[str, Any]] = Field(None, json_schema_extra={"x-mpigen-quantities": True})
    priorityClass: Optional[str] = None
    scheduleTimeoutSeconds: Optional[int] = Field(None, json_schema_extra={"format": "int32"})


class RunPolicy(_SpecModel):
    cleanPodPolicy: Optional[CleanPodPolicy] = Field(
        None, description="What the operator deletes when the job ends.")
    ttlSecondsAfterFinished: Optional[int] = Field(None, json_schema_extra={"format": "int32"})
    activeDeadlineSeconds: Optional[int] = Field(None, json_schema_extra={"format": "int64"})
    backoffLimit: Optional[int] = Field(None, json_schema_extra={"format": "int32"})
    schedulingPolicy: Optional[SchedulingPolicy] = None
    suspend: Optional[bool] = None
    managedBy: Optional[str] = None


class V2beta1RunPolicy(RunPolicy):
    suspend: bool = Field(False, description="Suspend the job (its pods are deleted).")


class V2beta1Spec(_SpecModel):
    slotsPerWorker: int = Field(1, json_schema_extra={"format": "int32"}, description="MPI slots per worker.")
    runLauncherAsWorker: bool = Field(False, description="Also run ranks on the launcher.")
    runPolicy: Optional[V2beta1RunPolicy] = None
    mpiReplicaSpecs: dict[Literal["Launcher", "Worker"], ReplicaSpec] = Field(
        description="The launcher and the workers.")
    sshAuthMountPath: str = Field("/root/.ssh", description="Where the SSH keys are mounted.")
    launcherCreationPolicy: Literal["AtStartup", "WaitForWorkersReady"] = Field(
        "AtStartup", description="When the launcher is created.")
    mpiImplementation: Literal["OpenMPI", "Intel", "MPICH"] = Field(
        "OpenMPI", description="The MPI implementation: the hostfile format and environment.")


class V1Spec(_SpecModel):
    slotsPerWorker: Optional[int] = Field(None, json_schema_extra={"format": "int32"})
    cleanPodPolicy: Optional[CleanPodPolicy] = Field(
        None, description="Deprecated: use runPolicy.cleanPodPolicy.")
    runPolicy: Optional[RunPolicy] = None
    mpiReplicaSpecs: dict[Literal["Launcher", "Worker"], ReplicaSpec] = Field(
        description="The launcher and the workers.")
    mainContainer: Optional[str] = Field(None, description="The container that runs MPI.")


SPECS = {V2BETA1: V2beta1Spec, V1: V1Spec}


# --- structural schemas -------------------------------------------------------------------------

@lru_cache(maxsize=4)
def pod_template_schema(kube_version: str) -> dict:
    """PodTemplateSpec of that Kubernetes version, as a structural schema."""
    folder = schema_root() / f"v{kube_version}.0-local"
    definitions = json.loads((folder / "_definitions.json").read_text(encoding="utf-8"))["$defs"]
    template = json.loads((folder / "podtemplatespec-v1.json").read_text(encoding="utf-8"))
    schema = _kubernetes(template, definitions, ())
    # Pod templates carry labels and annotations; a bare `type: object` would prune them.
    schema["properties"]["metadata"] = {
        "type": "object",
        "properties": {key: {"type": "object", "additionalProperties": {"type": "string"}}
                       for key in ("labels", "annotations")} | {"name": {"type": "string"},
                                                                  "namespace": {"type": "string"}},
    }
    return schema


def _kubernetes(node: Any, definitions: dict, seen: tuple) -> Any:
    if isinstance(node, list):
        return [_kubernetes(item, definitions, seen) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if ref is not None:
        name = ref.rsplit("/", 1)[1]
        if name in INT_OR_STRING:
            return {"x-kubernetes-int-or-string": True,
                    **({"description": node["description"]} if "description" in node else {})}
        if name in seen:  # a recursive type: keep the data as it is
            return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
        resolved = _kubernetes(definitions[name], definitions, seen + (name,))
        if "description" in node:
            resolved = {**resolved, "description": node["description"]}
        return resolved
    if "oneOf" in node:  # string-or-number forms not covered by a named reference
        return {"x-kubernetes-int-or-string": True}
    out = {}
    for key, value in node.items():
        if key == "type":
            types = [t for t in (value if isinstance(value, list) else [value]) if t != "null"]
            out["type"] = types[0]
        elif key == "properties":
            out["properties"] = {k: _kubernetes(v, definitions, seen) for k, v in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = _kubernetes(value, definitions, seen)
        elif key == "additionalProperties":
            continue
        elif key in ALLOWED_KEYS:
            out[key] = value
    if "properties" in out and "type" not in out:
        out["type"] = "object"
    return out


def spec_schema(api: str, kube_version: str) -> dict:
    """The MPIJob spec of an API, from mpigen's model, with the pod template schema."""
    raw = SPECS[api].model_json_schema(mode="validation")
    return _model(raw, raw.get("$defs", {}), kube_version)


def _model(node: Any, definitions: dict, kube_version: str) -> Any:
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _model(definitions[node["$ref"].rsplit("/", 1)[1]], definitions, kube_version)
    if node.get(POD_TEMPLATE):
        return {**pod_template_schema(kube_version), "description": node.get("description", "")}
    if node.get("x-mpigen-quantities"):
        return {"type": "object", "additionalProperties": {"x-kubernetes-int-or-string": True}}
    if "anyOf" in node:  # Optional[X]: X (absent rather than null)
        options = [o for o in node["anyOf"] if o.get("type") != "null"]
        inner = _model(options[0], definitions, kube_version)
        extra = {k: v for k, v in node.items() if k in ("description", "format") and v is not None}
        return {**inner, **extra}
    out: dict = {}
    for key, value in node.items():
        if key == "properties":
            out["properties"] = {k: _model(v, definitions, kube_version) for k, v in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = _model(value, definitions, kube_version)
        elif key == "additionalProperties":
            continue  # `false` (closed models): a structural schema prunes unknown fields anyway
        elif key == "const":
            out["enum"] = [value]
        elif key == "default" and value is None:
            continue
        elif key in ALLOWED_KEYS and key != "title":
            out[key] = value
    if "enum" in out and "type" not in out:
        out["type"] = "string"
    if "properties" in out or "additionalProperties" in out:
        out["type"] = "object"
    return out


def new_crd(api: str, kube_version: str = DEFAULT_KUBE_VERSION) -> dict:
    """The CustomResourceDefinition mpijobs.kubeflow.org for one API version."""
    version = api.split("/")[1]
    schema = {
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": spec_schema(api, kube_version),
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        },
    }
    entry: dict = {"name": version, "served": True, "storage": True, "schema": {"openAPIV3Schema": schema},
                   "subresources": {"status": {}}}
    if api == V1:  # TO@v1.9.0: printer columns State and Age
        entry["additionalPrinterColumns"] = [
            {"name": "State", "type": "string", "jsonPath": ".status.conditions[-1:].type"},
            {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
        ]
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"mpijobs.{GROUP}"},
        "spec": {
            "group": GROUP,
            "names": {"kind": "MPIJob", "listKind": "MPIJobList", "plural": "mpijobs", "singular": "mpijob"},
            "scope": "Namespaced",
            "versions": [entry],
        },
    }


def environment_crd(options: Options) -> tuple[dict, str]:
    """The CRD of an environment rendered with --with-crd, and its `# Source:` comment; under
    Argo CD applied first and server-side: it is larger than the 262,144 bytes client-side
    apply can annotate."""
    crd = new_crd(options.own.api, options.kube_version)
    crd["metadata"]["labels"] = {MANAGED_BY: "mpigen"}
    if options.gitops == "argocd":
        crd["metadata"]["annotations"] = {ARGOCD_SYNC_OPTIONS: "ServerSideApply=true", ARGOCD_SYNC_WAVE: "-2"}
    return crd, f"Source: mpigen --with-crd ({options.own.api}, Kubernetes {options.kube_version})"
