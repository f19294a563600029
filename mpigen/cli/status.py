"""mpigen status: every job of the environment, what Git says of it and what the cluster has of
it, one line each (or JSON); with --watch, read again and printed again until Ctrl-C."""

from __future__ import annotations

import argparse
import time

from mpigen.cli import colour
from mpigen.cli.arguments import announce, cluster, cluster_options, flags, inputs
from mpigen.cli.exit_codes import NOT_AS_GIT_SAYS, SUCCESS
from mpigen.cli.progress import progress_bar
from mpigen.cli.streams import colour_on_stdout, print_diagnostics, say, write_stdout
from mpigen.project.status import cluster_of, observe, wanted_jobs
from mpigen.status.report import Row, as_git_says, json_report, summary, text_report

DESCRIPTION = ("Show what the cluster has of every job of the environment, beside what Git says of it (spec.state "
               "and its run's name): missing, pending, queued, held, starting, running, succeeded, failed or "
               "stopped, with the detail, and an older run still present. The jobs are read as `render` reads "
               "the repository; the cluster with one list call per kind and namespace (needs mpigen[cluster]). "
               "Exit 0 when every job is as Git says, 1 when one failed, is missing, or runs when Git stops or "
               "holds it (or is stopped when Git runs it), 2 on errors.")

DEFAULT_INTERVAL = 5.0  # seconds between two readings under --watch
# The STATE column on a terminal: what goes as Git says green, what waits yellow, what Git
# stopped on purpose plain; what is not as Git says red, whatever its state (failed, missing, a
# job that runs when Git stops or holds it, one stopped when Git runs it).
STATE_COLOURS = {"running": colour.GREEN, "succeeded": colour.GREEN, "pending": colour.YELLOW,
                 "queued": colour.YELLOW, "held": colour.CYAN, "starting": colour.YELLOW}
CLEAR_SCREEN = "\x1b[H\x1b[2J"


def arguments(command: argparse.ArgumentParser) -> None:
    inputs(command)
    command.add_argument("-o", "--output", choices=("text", "json"), default="text",
                         help="text (default: one line per job) or json (the fields docs/cli.md lists)")
    command.add_argument("--watch", action="store_true",
                         help="read the cluster again every --interval seconds and print the report again, "
                              "until Ctrl-C (exit 130)")
    command.add_argument("--interval", metavar="SECONDS", type=_seconds, default=DEFAULT_INTERVAL,
                         help=f"with --watch: the seconds between two readings (default {DEFAULT_INTERVAL:g})")
    cluster_options(command, None)


def run(args: argparse.Namespace) -> int:
    announce(args)
    reading = cluster_of(cluster(args))  # the client and the kubeconfig before the render
    with progress_bar("rendering") as progress:
        wanted = wanted_jobs(flags(args, None), print_diagnostics, progress)
    while True:
        rows = observe(reading, wanted)
        if args.watch and colour_on_stdout():
            write_stdout(CLEAR_SCREEN)
        write_stdout(_report(rows, args.output))
        say(summary(rows))
        if not args.watch:
            return SUCCESS if as_git_says(rows) else NOT_AS_GIT_SAYS
        time.sleep(args.interval)  # Ctrl-C: KeyboardInterrupt, exit 130 (mpigen.cli.main)
        if not colour_on_stdout():
            write_stdout("\n")


def _report(rows: list[Row], output: str) -> str:
    """The report on standard output: JSON never in colour, the table's states on a terminal."""
    if output == "json":
        return json_report(rows)
    return text_report(rows, _painted) if colour_on_stdout() else text_report(rows)


def _painted(state: str, as_git_says: bool) -> str:
    if not as_git_says:
        return colour.paint(state, colour.BOLD_RED)
    return colour.paint(state, STATE_COLOURS[state]) if state in STATE_COLOURS else state


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds") from None
    if not seconds > 0 or seconds != seconds or seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"{value!r}: give a number of seconds above 0, such as 5")
    return seconds
