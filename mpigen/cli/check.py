"""mpigen check: fail when the committed output folder is not what a render gives now."""

from __future__ import annotations

import argparse
from pathlib import Path

from mpigen.cli.arguments import announce, strict_option, flags, inputs
from mpigen.cli.colour import unified_diff
from mpigen.cli.exit_codes import DIFFERENCES_FOUND, SUCCESS
from mpigen.cli.progress import progress_bar
from mpigen.cli.streams import colour_on_stdout, plural, print_diagnostics, say, write_stdout
from mpigen.project.check import check

DESCRIPTION = ("Render in memory and compare with the output folder: exit 0 when identical, 1 with a unified diff "
               "per stale, missing or extra file.")


def arguments(command: argparse.ArgumentParser) -> None:
    inputs(command)
    strict_option(command)
    command.add_argument("-o", "--output", metavar="DIR", type=Path,
                         help="the output folder to check (default: mpigen.yaml's output)")


def run(args: argparse.Namespace) -> int:
    announce(args)
    with progress_bar("rendering") as progress:
        checked = check(flags(args, args.output), print_diagnostics, progress)
    stale = False
    painted = colour_on_stdout()
    for folder, report in checked.reports:
        write_stdout(unified_diff(report.diff) if painted else report.diff)
        if report.stale:
            stale = True
            say(f"{folder.as_posix()} is stale: {report.summary()}; run `mpigen render` and commit the result")
    if stale:
        return DIFFERENCES_FOUND
    names = [folder.as_posix() for folder, _ in checked.reports]
    folders = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    verb = "is" if len(names) == 1 else "are"
    say(f"{folders} {verb} up to date ({plural(checked.jobs, 'job')})")
    return SUCCESS
