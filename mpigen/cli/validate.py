"""mpigen validate: the blueprints checked without writing anything, and the rendered objects with
--output (the Kubernetes schemas) or --server (the API server's dry run)."""

from __future__ import annotations

import argparse

from mpigen.cli.arguments import announce, strict_option, cluster, cluster_options, flags, inputs
from mpigen.cli.exit_codes import INPUT_ERROR, SUCCESS
from mpigen.cli.progress import progress_bar
from mpigen.cli.streams import plural, print_diagnostics, say, write_stdout
from mpigen.project.validate import Validated, validate
from mpigen.review.object_reports import FORMATS, format_text, summary

DESCRIPTION = ("Check blueprints (and overlays) without writing anything. With --output, also check every rendered "
               "object against the Kubernetes schemas of --kube-version (strict: unknown fields are errors) and "
               "MPIJobs against the CRD mpigen generates, and report per object.")


def arguments(command: argparse.ArgumentParser) -> None:
    inputs(command, verbose_also="; with --output or --server --format text, every object's verdict, not "
                                 "only the problems")
    strict_option(command)
    command.add_argument("--output", action="store_true",
                         help="validate the rendered objects too (needs the kubernetes-validate package)")
    command.add_argument("--server", action="store_true",
                         help="send every rendered object to the cluster as a server-side dry-run apply with strict "
                              "field validation, and report the API server's answer (needs mpigen[cluster])")
    command.add_argument("--format", choices=("text", "json", "junit"), default="text",
                         help="with --output or --server: the report on standard output: text (default), json, "
                              "or junit XML")
    cluster_options(command, "--server")


def run(args: argparse.Namespace) -> int:
    """Exit 2 when an object is invalid: a cluster would refuse what mpigen would write."""
    announce(args)
    doing = "rendering" if args.output or args.server else "validating"
    with progress_bar(doing) as progress:
        checked = validate(flags(args, None), args.output, args.server, cluster(args), print_diagnostics, progress)
    if isinstance(checked, Validated):
        per = f" under {plural(checked.overlays, 'overlay')}" if checked.overlays else ""
        say(f"{plural(checked.blueprints, 'blueprint')} valid{per}")
        return SUCCESS
    if args.format == "text":  # the problems only, unless -v; the summary once, below
        write_stdout(format_text(checked.reports, checked.against, every=args.verbose))
    else:
        write_stdout(FORMATS[args.format](checked.reports, checked.against))
    counts = summary(checked.reports)
    if checked.server is not None:
        say(f"{counts['objects']} objects sent to {checked.server} as a dry run: {counts['valid']} accepted, "
            f"{counts['invalid']} refused")
    else:
        say(f"{counts['objects']} objects of {plural(checked.jobs, 'job')} against {checked.against}: "
            f"{counts['valid']} valid, {counts['invalid']} invalid, {counts['skipped']} skipped")
    return INPUT_ERROR if counts["invalid"] else SUCCESS
