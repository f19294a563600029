"""The static target's own options: the image of the launcher's kubectl-delivery init container
(--kubectl-delivery-image, mpigen.yaml's kubectlDeliveryImage)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mpigen.errors import NOWHERE, InputError, error
from mpigen.kube.image import image_problem
from mpigen.render.target import Flag, Options, Setting, TargetOptions

# The launcher's init container, as the operator's deployment has it (kubeflow/mpi-operator
# deploy/v1alpha2/mpi-operator.yaml, v0.2.0 to v0.3.0). A moving tag, and deliberately so: the
# kubexec.sh this target writes copies /opt/kube/hosts, which only the kubectl-delivery built since
# 07bbb45 (2020-08) writes; the tags sources name (0.2.0 in the operator's Helm values, v0.2.3)
# are older, and no source gives a digest of `latest`. docs/targets.md#the-helper-image says how
# to pin it; mpigen.project.helper_image warns when a user's choice moves.
DEFAULT_KUBECTL_DELIVERY_IMAGE = "mpioperator/kubectl-delivery:latest"


@dataclass(frozen=True)
class StaticOptions:
    kubectl_delivery_image: str = DEFAULT_KUBECTL_DELIVERY_IMAGE


def build(given: Mapping[str, Any]) -> StaticOptions:
    return StaticOptions(**given)


def check(given: Mapping[str, Any], options: Options) -> None:
    """The image is written into every launcher: an image reference (mpigen.yaml's value is
    checked as the file is read; the same message for either)."""
    image = given.get("kubectl_delivery_image")
    problem = None if image is None else image_problem(image)
    if problem:
        raise InputError([error(NOWHERE, f"--kubectl-delivery-image: {image!r} is not an image reference: {problem}")])


OPTIONS = TargetOptions(
    help="the objects the MPI Operator (v1alpha2) would create (default)",
    settings=(Setting("kubectl_delivery_image", Flag(
        "--kubectl-delivery-image", metavar="IMAGE",
        help="image of the launcher's kubectl-delivery init container "
             f"(default: {DEFAULT_KUBECTL_DELIVERY_IMAGE}, as the operator's deployment)"),
        config_key="kubectlDeliveryImage"),),
    build=build, check=check,
    # v1alpha2 is the controller the operator removed in 2021 (kubeflow/mpi-operator#438); its launcher
    # runs as root (kubexec.sh writes /etc/hosts) and holds pods/exec on the workers (docs/targets.md,
    # "Pod Security" and "What each needs")
    who_runs="no operator: Kubernetes' StatefulSet and Job controllers run what the MPI Operator's deprecated "
             "v1alpha2 made, a root launcher with `pods/exec` rights")
