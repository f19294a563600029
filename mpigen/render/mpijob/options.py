"""The mpijob target's own options: the operator API of the MPIJob (--mpijob-api, mpigen.yaml's
mpijobApi) and whether to add its CustomResourceDefinition (--with-crd, withCRD)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mpigen.compile.mpijob import MPIJOB_APIS, V2BETA1
from mpigen.errors import NOWHERE, InputError, error
from mpigen.kube.versions import require_kube_version
from mpigen.render.target import DEFAULT_KUBE_VERSION, Flag, Options, Setting, TargetOptions

NAME = "mpijob"


@dataclass(frozen=True)
class MpiJobOptions:
    api: str = V2BETA1  # kubeflow.org/v2beta1 or kubeflow.org/v1
    with_crd: bool = False  # add the MPIJob CustomResourceDefinition


def with_crd(options: Options) -> bool:
    """Whether an environment's options ask for the CRD (--with-crd, mpigen.yaml's withCRD)."""
    return isinstance(options.own, MpiJobOptions) and options.own.with_crd


def build(given: Mapping[str, Any]) -> MpiJobOptions:
    return MpiJobOptions(**given)


def check(given: Mapping[str, Any], options: Options) -> None:
    """--with-crd belongs to the mpijob target, and the CRD's pod schema must exist for the
    Kubernetes version asked for."""
    asked = given.get("with_crd", False)
    if asked and options.target != NAME:
        raise InputError([error(NOWHERE, "--with-crd adds the MPIJob CRD, which only the mpijob target "
                                                    "uses; add --target mpijob")])
    if asked or options.kube_version != DEFAULT_KUBE_VERSION:
        require_kube_version(options.kube_version, "--with-crd", "the MPIJob CRD takes the pod schema from the "
                                                                 "kubernetes-validate package: pip install 'mpigen[crd]'")


OPTIONS = TargetOptions(
    help="the MPIJob resource, for clusters that run an operator",
    who_runs="the MPI Operator (v2beta1) or the Kubeflow training-operator (v1)",
    settings=(
        Setting("with_crd", Flag("--with-crd", switch=True,
                                 help="with --target mpijob: also emit the MPIJob CustomResourceDefinition"),
                config_key="withCRD"),
        Setting("api", Flag("--mpijob-api", choices=MPIJOB_APIS,
                            help="with --target mpijob: kubeflow.org/v2beta1 (the MPI Operator v0.4+, "
                                 "default) or kubeflow.org/v1 (the Kubeflow training-operator)"),
                config_key="mpijobApi"),
    ),
    build=build, check=check)
