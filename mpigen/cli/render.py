"""mpigen render: the blueprints rendered to standard output or into the output folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from mpigen.cli.arguments import announce, strict_option, flags, inputs
from mpigen.cli.exit_codes import SUCCESS
from mpigen.cli.progress import progress_bar
from mpigen.cli.streams import plural, print_diagnostics, say, stream_stdout
from mpigen.output.changes import DISCARD_EDITS
from mpigen.project.render import render

DESCRIPTION = ("Render every blueprint found in PATH (files, or folders searched recursively for *.yaml/*.yml "
               "with kind MPIJobBlueprint).")


def arguments(command: argparse.ArgumentParser) -> None:
    inputs(command)
    strict_option(command)
    where = command.add_mutually_exclusive_group()
    where.add_argument("--stdout", action="store_true", help="write one YAML stream to standard output")
    where.add_argument("-o", "--output", metavar="DIR", type=Path,
                       help="write one file per object under DIR, plus kustomization.yaml "
                            "(default with mpigen.yaml and no PATH: its output folder)")
    command.add_argument(DISCARD_EDITS, action="store_true",
                         help="replace the files mpigen wrote that were edited by hand since (without it, such a "
                              "file stops the render with an error naming it); files mpigen did not write are "
                              "never replaced")


def run(args: argparse.Namespace) -> int:
    announce(args)
    with progress_bar("rendering") as progress:
        done = render(flags(args, args.output, args.discard_edits), args.stdout, print_diagnostics, progress)
    if done.output is None:
        stream_stdout(done.documents())
        return SUCCESS
    envs = [e for e in done.envs if e]
    into = ", ".join(f"{done.output.as_posix()}/{e}" for e in envs) if envs else done.output.as_posix()
    also = "".join(f"; {what} into {folder.as_posix()}" for what, folder in done.companions)
    say(f"rendered {plural(done.jobs, 'job')} ({plural(done.objects, 'object')}) into {into}{also}")
    return SUCCESS
