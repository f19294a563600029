"""The repository file mpigen.yaml: what `mpigen render` and `mpigen check` do with no paths.

    apiVersion: mpigen.dev/v1alpha1
    kind: Config
    blueprints: [blueprints]        # files or folders (default: blueprints)
    overlays: [dev, staging, prod]  # rendered into <output>/<overlay>/ (default: none)
    output: rendered                # the output folder (default: rendered)
    target: static                  # default options; command-line flags win
    targets:                        # the target of some jobs, before any `target` (docs/overlays.md)
      - {jobs: {name: kueue-*}, target: jobset}
    gitops: none
    kubectlDeliveryImage: mpioperator/kubectl-delivery:latest
    podSecurity: baseline           # the Pod Security level the namespaces enforce (default: no check)
    createNamespaces: true          # write the jobs' Namespace objects (default: false; docs/gitops.md)
    trainingRuntime: {name: mpi-openmpi}   # target trainjob: the runtime of blueprints that name none
    monitoring: {prometheusRule: {labels: {release: prometheus}}}   # alerts per job (docs/monitoring.md)
    versions: {trainer: v2.4, kueue: v0.19}   # what the clusters run (mpigen.formats.versions)

mpigen.project.config reads it from the folder a run works in: the working folder or, from a
sub-folder, the nearest folder above it that holds one (mpigen.project.repository); every
path in it is relative to the folder that holds it.
"""

from typing import Annotated, Literal, Optional

from pydantic import AfterValidator, Field

from mpigen.formats.base import Model
from mpigen.formats.monitoring import MonitoringSettings
from mpigen.formats.overlay import TargetRule
from mpigen.formats.trainer import Runtime
from mpigen.formats.types import ImageReference, PodSecurityLevel
from mpigen.formats.versions import VersionsSettings
from mpigen.kube.names import DNS1123_LABEL, DNS1123_SUBDOMAIN, printable

CONFIG_FILE = "mpigen.yaml"
# Every string of mpigen.yaml ends up in the output (paths, names, URLs): nothing unprintable.
Text = Annotated[str, AfterValidator(printable)]
CONFIG_KIND = "Config"


class ArgoCDConfig(Model):
    """Where the Argo CD Applications for the argocd profile come from and go to."""

    repoURL: Text = Field(min_length=1, pattern=r"^\S+$", description="This repository's URL, as Argo CD knows it.",
                          examples=["https://git.example.com/ml/training.git"])
    targetRevision: Text = Field("HEAD", min_length=1, description="Branch, tag or commit Argo CD follows.")
    project: str = Field("default", pattern=DNS1123_SUBDOMAIN, max_length=253,
                         description="Argo CD project (AppProject) of the Applications.")
    namespace: str = Field("argocd", pattern=DNS1123_LABEL, max_length=63, description="Namespace Argo CD runs in.")
    destination: Text = Field("https://kubernetes.default.svc", min_length=1, pattern=r"^\S+$",
                              description="Cluster (API server URL or Argo CD cluster name) unless an overlay "
                                          "names its own with `cluster`.")
    applications: Text = Field("argocd", min_length=1,
                               description="Folder for the generated Applications, outside the synced folders.")


class FluxConfig(Model):
    """Where the Flux Kustomizations for the flux profile come from and go to."""

    sourceRef: str = Field("flux-system", pattern=DNS1123_SUBDOMAIN, max_length=253,
                           description="The GitRepository (in the Kustomizations' namespace) holding this repository.")
    namespace: str = Field("flux-system", pattern=DNS1123_LABEL, max_length=63,
                           description="Namespace of the Kustomizations.")
    interval: str = Field("10m", pattern=r"^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$", description="Reconcile interval.")
    timeout: str = Field("30m", pattern=r"^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$",
                         description="How long a job's workers may take to become ready.")
    kustomizations: Text = Field("flux", min_length=1,
                                 description="Folder for the generated Kustomizations, outside the synced folders.")


class ConfigModel(Model):
    apiVersion: Literal["mpigen.dev/v1alpha1"]
    kind: Literal["Config"]
    blueprints: list[Text] = Field(default_factory=lambda: ["blueprints"], min_length=1,
                                   description="Blueprint files or folders.")
    overlays: list[Text] = Field(default_factory=list,
                                 description="Overlays to render, each into <output>/<overlay>/.")
    output: Text = Field("rendered", min_length=1, description="The output folder.")
    target: Optional[str] = Field(None, description="Default --target.")
    targets: list[TargetRule] = Field(
        default_factory=list,
        description="Targets of groups of jobs, in every environment: the first rule that selects a job gives its "
                    "target, after an overlay's own rules and before any `target` (the --target flag wins over "
                    "every rule).",
        examples=[[{"jobs": {"name": "kueue-*"}, "target": "jobset"}]])
    gitops: Optional[str] = Field(None, description="Default --gitops.")
    kubectlDeliveryImage: Optional[ImageReference] = Field(None, description="Default --kubectl-delivery-image.")
    mpijobApi: Optional[Literal["kubeflow.org/v2beta1", "kubeflow.org/v1"]] = Field(
        None, description="Default --mpijob-api (with target mpijob).")
    withCRD: Optional[bool] = Field(None, description="Default --with-crd (with target mpijob).")
    kubeVersion: Optional[str] = Field(None, pattern=r"^1\.[0-9]+$",
                                       description="Default --kube-version: the Kubernetes version the output is "
                                                   "for (the MPIJob CRD's pod template schema).", examples=["1.30"])
    podSecurity: Optional[PodSecurityLevel] = Field(
        None, description="The Pod Security Standards level the namespaces enforce (pod-security.kubernetes.io/"
                          "enforce), at --kube-version: every pod is checked against it at render time (default: "
                          "no check; an overlay's podSecurity wins).", examples=["baseline"])
    createNamespaces: Optional[bool] = Field(
        None, description="Write a Namespace object for each namespace the environment's jobs use, with the Pod "
                          "Security labels of podSecurity, so that a new cluster's first sync finds them "
                          "(docs/gitops.md; default: false; an overlay's createNamespaces wins).", examples=[True])
    trainingRuntime: Optional[Runtime] = Field(
        None, description="Default spec.runtime of the blueprints that give none (target trainjob): e.g. "
                          "{name: mpi-openmpi} on clusters whose platform team provides the runtime.")
    monitoring: Optional[MonitoringSettings] = Field(
        None, description="A PrometheusRule per environment with alerts for each of its jobs (docs/monitoring.md; "
                          "default: none; an overlay's monitoring wins).")
    versions: Optional[VersionsSettings] = Field(
        None, description="The operator versions the clusters run (default: Trainer v2.3, Kueue v0.19; an overlay's key "
                          "wins).",
        examples=[{"trainer": "v2.4", "kueue": "v0.19"}])
    argocd: Optional[ArgoCDConfig] = Field(
        None, description="Generate an Argo CD Application per output folder rendered with the argocd profile.")
    flux: Optional[FluxConfig] = Field(
        None, description="Generate the Flux Kustomizations of every job rendered with the flux profile.")

