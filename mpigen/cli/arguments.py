"""The argument groups several commands share (the inputs of a render, the cluster to talk to),
and the options they give the facade."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path

from mpigen.cli.streams import say
from mpigen.project.options import ClusterFlags, Flags
from mpigen.project.repository import describe
from mpigen.compile.mpijob import MPIJOB_APIS
from mpigen.errors import not_one_of
from mpigen.render.target import DEFAULT_KUBE_VERSION, DEFAULT_KUBECTL_DELIVERY_IMAGE
from mpigen.formats.types import GITOPS_PROFILES
from mpigen.render.targets import TARGETS


def inputs(command: argparse.ArgumentParser, paths: bool = True, verbose_also: str = "") -> None:
    """PATH, --overlay and the render options (verbose_also: what else -v says in this command)."""
    if paths:
        command.add_argument("paths", nargs="*", metavar="PATH",
                             help="blueprint files or folders (default: mpigen.yaml's blueprints, or blueprints/)")
    else:
        command.set_defaults(paths=[])
    command.add_argument("--overlay", action="append", metavar="NAME_OR_PATH", default=None,
                         help="render for this overlay (a folder under overlays/, or a path); repeatable, "
                              "each overlay into its own folder (default: mpigen.yaml's overlays when no "
                              "PATH is given)")
    command.add_argument("--target", choices=TARGETS, type=one_of(TARGETS), default=None,
                         help="static: the objects the MPI Operator (v1alpha2) would create (default); "
                              "jobset: one JobSet per job, ranks started over SSH (needs JobSet); "
                              "mpijob: the MPIJob resource, for clusters that run an operator; "
                              "trainjob: a Kubeflow Trainer v2 TrainJob and its runtime")
    command.add_argument("--with-crd", action="store_true", default=None,
                         help="with --target mpijob: also emit the MPIJob CustomResourceDefinition")
    command.add_argument("--kube-version", metavar="1.N", default=None,
                         help=f"Kubernetes version of the CRD's pod template schema (default {DEFAULT_KUBE_VERSION})")
    command.add_argument("--mpijob-api", choices=MPIJOB_APIS, default=None,
                         help="with --target mpijob: kubeflow.org/v2beta1 (the MPI Operator v0.4+, "
                              "default) or kubeflow.org/v1 (the Kubeflow training-operator)")
    command.add_argument("--gitops", choices=GITOPS_PROFILES, type=one_of(GITOPS_PROFILES), default=None,
                         help="GitOps profile; none keeps the operator's names (default)")
    command.add_argument("-v", "--verbose", action="store_true",
                         help="say which mpigen.yaml the run uses (that of this folder or of the nearest folder "
                              f"above it), on standard error{verbose_also}")
    command.add_argument("--no-cache", action="store_true",
                         help="render every blueprint again, without the cache of earlier runs' results "
                              "($MPIGEN_CACHE_DIR, else ~/.cache/mpigen); the output is the same either way")
    command.add_argument("--kubectl-delivery-image", metavar="IMAGE", default=None,
                         help="image of the launcher's kubectl-delivery init container "
                              f"(default: {DEFAULT_KUBECTL_DELIVERY_IMAGE}, as the operator's deployment)")


def one_of(choices) -> Callable[[str], str]:
    """An argument type that refuses a value not among choices as mpigen.yaml and ARGOCD_ENV_*
    do: with what exists and the nearest (argparse would say only `invalid choice`)."""
    def check(value: str) -> str:
        if value not in choices:
            raise argparse.ArgumentTypeError(not_one_of(repr(value), value, choices))
        return value

    return check


def cluster_options(command: argparse.ArgumentParser, flag: str) -> None:
    """--kubeconfig and --context, for the command's `flag` that reads the cluster (--server, --live)."""
    command.add_argument("--kubeconfig", metavar="FILE", default=None,
                         help=f"with {flag}: the kubeconfig file (default: KUBECONFIG, ~/.kube/config)")
    command.add_argument("--context", metavar="NAME", default=None,
                         help=f"with {flag}: the kubeconfig context (default: its current context)")


def flags(args: argparse.Namespace, output: Path | None, discard_edits: bool = False) -> Flags:
    """The options `inputs` parsed, with the command's output folder (None: not given) and,
    for render, --discard-edits."""
    return Flags(paths=tuple(args.paths), overlays=None if args.overlay is None else tuple(args.overlay),
                 output=output, target=args.target, gitops=args.gitops,
                 kubectl_delivery_image=args.kubectl_delivery_image, mpijob_api=args.mpijob_api,
                 with_crd=args.with_crd, kube_version=args.kube_version, cache=not args.no_cache,
                 discard_edits=discard_edits)


def cluster(args: argparse.Namespace) -> ClusterFlags:
    """The options `cluster_options` parsed. The kubeconfig is made absolute here, where it
    was typed: a run started in a sub-folder of the repository works from the repository."""
    return ClusterFlags(os.path.abspath(args.kubeconfig) if args.kubeconfig else None, args.context)


def announce(args: argparse.Namespace) -> None:
    """With -v: which mpigen.yaml the run uses, on standard error."""
    if args.verbose:
        say(describe())
