"""The overlay format (apiVersion mpigen.dev/v1alpha1, kind Overlay): one environment's changes to blueprints.

    apiVersion: mpigen.dev/v1alpha1
    kind: Overlay
    bases: [gpu-cluster]                 # other overlays, applied first, in order
    namespace: ml-prod                   # every blueprint's namespace
    labels: {env: prod}                  # added to metadata.labels (never to selectors)
    annotations: {}
    patches:                             # JSON merge patches (RFC 7386) on the blueprint
      - target: {name: "resnet*", labelSelector: "team=vision"}
        patch: {spec: {workers: 16}}
    targets:                             # the target of some jobs: the first rule that selects a job gives its
      - jobs: {name: "bert-*"}           # target (before the overlay's target; docs/overlays.md, "A target per
        target: trainjob                 # group of jobs")
    podSecurity: restricted              # the Pod Security level its namespaces enforce (checked at render)
    createNamespaces: true               # write its jobs' Namespace objects (docs/gitops.md)
    monitoring: {prometheusRule: {labels: {release: prometheus}}}   # alerts per job (docs/monitoring.md)
    versions: {trainer: v2.4, kueue: v0.18}   # what its clusters run (mpigen.formats.versions)
    images:                              # like kustomize `images`
      - {name: horovod/horovod, newName: registry.example.com/horovod, newTag: 0.28.1-prod}

An overlay lives in its own folder, `overlays/<name>/`; the folder name is the overlay's
name and the name of its output folder (mpigen.overlay.resolve).
"""

from typing import Any, Literal, Optional

from pydantic import Field, model_validator

from mpigen.formats.base import Model
from mpigen.formats.monitoring import MonitoringSettings
from mpigen.formats.trainer import Runtime
from mpigen.formats.types import GitOpsProfile, LabelKey, LabelValue, PodSecurityLevel
from mpigen.formats.versions import VersionsSettings
from mpigen.kube.image import TAG
from mpigen.kube.names import DNS1123_LABEL

OVERLAY_KIND = "Overlay"

# The repository part of an image reference: what `images[].name` matches.
_REPOSITORY = r"^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._/-][a-z0-9]+)*)*$"
_TAG = f"^{TAG}$"
_DIGEST = r"^[a-z0-9]+([+._-][a-z0-9]+)*:[0-9a-fA-F]{32,}$"


class Target(Model):
    name: Optional[str] = Field(None, min_length=1, max_length=253,
                                description="Blueprint names to patch, a shell-style glob (*, ?, [...]).",
                                examples=["resnet*"])
    labelSelector: Optional[str] = Field(None, min_length=1, max_length=4096,
                                         description="A Kubernetes label selector on the blueprint's labels.",
                                         examples=["team=vision,tier in (prod, batch)"])


class Patch(Model):
    target: Target = Field(default_factory=Target, description="Which blueprints; all when empty.")
    patch: dict[str, Any] = Field(description="A JSON merge patch (RFC 7386) on the blueprint: mappings merge, "
                                              "lists and other values replace, null removes.")


class TargetRule(Model):
    """A target for the jobs a selector picks, as a patch's `target` picks blueprints."""

    jobs: Target = Field(description="Which jobs: metadata.name by a shell-style glob, and/or a label selector on "
                                     "metadata.labels (both: a job must match both), as the overlay leaves them.",
                         examples=[{"name": "bert-*"}, {"labelSelector": "queue=gpu"}])
    target: str = Field(min_length=1, description="The target of the jobs it selects, unless a rule before it "
                                                  "selects them (the --target flag wins over every rule).",
                        examples=["jobset"])

    @model_validator(mode="after")
    def _selects_some(self) -> "TargetRule":
        if self.jobs.name is None and self.jobs.labelSelector is None:
            raise ValueError("a rule selects its jobs by jobs.name or jobs.labelSelector; for every job, "
                             "write the target alone (target: NAME)")
        return self


class ImageRewrite(Model):
    name: str = Field(pattern=_REPOSITORY, max_length=1024,
                      description="Repository to rewrite, as written in blueprints, without tag or digest.",
                      examples=["horovod/horovod"])
    newName: Optional[str] = Field(None, pattern=_REPOSITORY, max_length=1024, examples=["registry.example.com/horovod"])
    newTag: Optional[str] = Field(None, pattern=_TAG, examples=["0.28.1-prod"])
    digest: Optional[str] = Field(None, pattern=_DIGEST, max_length=1024, examples=["sha256:" + "0" * 64])

    @model_validator(mode="after")
    def _something_to_do(self) -> "ImageRewrite":
        if self.newName is None and self.newTag is None and self.digest is None:
            raise ValueError("an image rewrite needs newName, newTag or digest")
        if self.newTag is not None and self.digest is not None:
            raise ValueError("give newTag or digest, not both (a digest pins the image on its own)")
        return self


class OverlayModel(Model):
    apiVersion: Literal["mpigen.dev/v1alpha1"]
    kind: Literal["Overlay"]
    bases: list[str] = Field(default_factory=list, description="Overlays applied before this one: names of "
                                                               "folders under the repository's overlays/, or "
                                                               "paths relative to this file's folder.")
    namespace: Optional[str] = Field(None, pattern=DNS1123_LABEL, max_length=63,
                                     description="Replaces every blueprint's namespace.", examples=["ml-prod"])
    labels: dict[LabelKey, LabelValue] = Field(
        default_factory=dict, description="Added to every blueprint's labels (never to selectors).",
        examples=[{"env": "prod"}])
    annotations: dict[LabelKey, str] = Field(default_factory=dict,
                                             description="Added to every blueprint's annotations.")
    patches: list[Patch] = Field(default_factory=list,
                                 description="JSON merge patches, applied in order to the blueprints they select.")
    images: list[ImageRewrite] = Field(default_factory=list,
                                       description="Image rewrites by repository, applied after the patches.")
    cluster: Optional[str] = Field(
        None, min_length=1, pattern=r"^\S+$",
        description="The cluster this environment runs on (an API server URL or an Argo CD cluster name): the "
                    "destination of its Argo CD Application.", examples=["https://prod.k8s.example.com"])
    gitops: Optional[GitOpsProfile] = Field(
        None, description="GitOps profile of this environment (the --gitops flag wins; default: mpigen.yaml's).",
        examples=["argocd"])
    trainingRuntime: Optional[Runtime] = Field(
        None, description="Target trainjob: the runtime of this environment's blueprints that give no spec.runtime "
                          "(default: mpigen.yaml's).", examples=[{"name": "mpi-openmpi"}])
    target: Optional[str] = Field(
        None, min_length=1,
        description="Target of this environment, e.g. jobset on a cluster that runs JobSet (the --target flag wins; "
                    "default: mpigen.yaml's).", examples=["jobset"])
    targets: list[TargetRule] = Field(
        default_factory=list,
        description="Targets of groups of jobs: the first rule that selects a job gives its target; this overlay's "
                    "rules come before its bases' (the last base's first) and mpigen.yaml's, all before any `target` "
                    "(the --target flag wins over every rule).",
        examples=[[{"jobs": {"labelSelector": "queue"}, "target": "jobset"}]])
    podSecurity: Optional[PodSecurityLevel] = Field(
        None, description="The Pod Security Standards level this environment's namespaces enforce: every pod is "
                          "checked against it at render time (default: mpigen.yaml's, else no check).",
        examples=["restricted"])
    createNamespaces: Optional[bool] = Field(
        None, description="Write a Namespace object for each namespace this environment's jobs use, with the Pod "
                          "Security labels of its podSecurity (docs/gitops.md; default: mpigen.yaml's, else false).",
        examples=[True])
    monitoring: Optional[MonitoringSettings] = Field(
        None, description="A PrometheusRule with alerts for each of this environment's jobs (docs/monitoring.md; "
                          "default: mpigen.yaml's; enabled: false turns it off).")
    versions: Optional[VersionsSettings] = Field(
        None, description="The operator versions this environment's clusters run, each key inherited on its own "
                          "(default: its nearest base's, else mpigen.yaml's).", examples=[{"trainer": "v2.4", "kueue": "v0.18"}])
