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
from mpigen.errors import not_one_of
from mpigen.render import targets
from mpigen.render.target import DEFAULT_KUBE_VERSION, Flag
from mpigen.formats.types import GITOPS_PROFILES


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
    command.add_argument("--target", choices=targets.TARGETS, type=one_of(targets.TARGETS), default=None,
                         help=target_help())
    for flag in target_flags():
        if flag.switch:
            command.add_argument(flag.name, action="store_true", default=None, help=flag.help)
        else:
            command.add_argument(flag.name, metavar=flag.metavar, choices=flag.choices, default=None, help=flag.help)
    command.add_argument("--kube-version", metavar="1.N", default=None,
                         help=f"Kubernetes version of the CRD's pod template schema (default {DEFAULT_KUBE_VERSION})")
    command.add_argument("--gitops", choices=GITOPS_PROFILES, type=one_of(GITOPS_PROFILES), default=None,
                         help="GitOps profile; none keeps the operator's names (default)")
    command.add_argument("-v", "--verbose", action="store_true",
                         help="say which mpigen.yaml the run uses (that of this folder or of the nearest folder "
                              f"above it), on standard error{verbose_also}")
    command.add_argument("--no-cache", action="store_true",
                         help="render every blueprint again, without the cache of earlier runs' results "
                              "($MPIGEN_CACHE_DIR, else ~/.cache/mpigen); the output is the same either way")


def strict_option(command: argparse.ArgumentParser) -> None:
    """--strict, of the commands that render or validate (validate, render, check)."""
    command.add_argument("--strict", action="store_true",
                         help="make every warning about the blueprints, the overlays or mpigen.yaml an error "
                              "(exit 2, nothing written): for CI and pre-commit")


def target_help() -> str:
    """--target's help: each target's line, the default (the table's first) first, then by name."""
    default, *others = targets.TARGETS.values()
    return "; ".join(f"{target.name}: {target.options.help}" if target.options.help else target.name
                     for target in [default, *sorted(others, key=lambda target: target.name)])


def target_flags() -> list[Flag]:
    """The flags the targets add, in the table's order."""
    return [setting.flag for target in targets.TARGETS.values() for setting in target.options.settings
            if setting.flag is not None]


def one_of(choices) -> Callable[[str], str]:
    """An argument type that refuses a value not among choices as mpigen.yaml and ARGOCD_ENV_*
    do: with what exists and the nearest (argparse would say only `invalid choice`)."""
    def check(value: str) -> str:
        if value not in choices:
            raise argparse.ArgumentTypeError(not_one_of(repr(value), value, choices))
        return value

    return check


def cluster_options(command: argparse.ArgumentParser, flag: str | None) -> None:
    """--kubeconfig and --context, for the command's `flag` that reads the cluster (--server,
    --live; None: the command always reads it, as status)."""
    given = f"with {flag}: the" if flag else "the"
    command.add_argument("--kubeconfig", metavar="FILE", default=None,
                         help=f"{given} kubeconfig file (default: KUBECONFIG, ~/.kube/config)")
    command.add_argument("--context", metavar="NAME", default=None,
                         help=f"{given} kubeconfig context (default: its current context)")


def flags(args: argparse.Namespace, output: Path | None, discard_edits: bool = False) -> Flags:
    """The options `inputs` parsed, with the command's output folder (None: not given) and,
    for render, --discard-edits."""
    return Flags(paths=tuple(args.paths), overlays=None if args.overlay is None else tuple(args.overlay),
                 output=output, target=args.target, gitops=args.gitops, kube_version=args.kube_version,
                 target_flags={flag.name: getattr(args, flag.dest) for flag in target_flags()},
                 cache=not args.no_cache, discard_edits=discard_edits, strict=getattr(args, "strict", False))


def cluster(args: argparse.Namespace) -> ClusterFlags:
    """The options `cluster_options` parsed. The kubeconfig is made absolute here, where it
    was typed: a run started in a sub-folder of the repository works from the repository."""
    return ClusterFlags(os.path.abspath(args.kubeconfig) if args.kubeconfig else None, args.context)


def announce(args: argparse.Namespace) -> None:
    """With -v: which mpigen.yaml the run uses, on standard error."""
    if args.verbose:
        say(describe())
