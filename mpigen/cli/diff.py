"""mpigen diff: two renders compared object by object, as text, markdown or json."""

from __future__ import annotations

import argparse
from pathlib import Path

from mpigen.cli import colour
from mpigen.cli.arguments import announce, cluster, cluster_options, flags, inputs
from mpigen.cli.exit_codes import DIFFERENCES_FOUND, SUCCESS
from mpigen.cli.progress import progress_bar
from mpigen.cli.streams import colour_on_stdout, print_diagnostics, write_stdout
from mpigen.project.diff import Sides, diff
from mpigen.review.diff.budget import COMMENT_LIMIT, DEFAULT_MORE, Budget
from mpigen.review.diff.text_format import PLAIN, Style

DESCRIPTION = ("Compare two renders object by object: the output committed at a git revision (--base) against "
               "a fresh render of the working tree, or against the output committed at another revision "
               "(--head); or two output folders (OLD_DIR NEW_DIR). Exit 0 when the same, 1 when not.")

# The text report on a terminal: job titles bold, immutable changes bold red, objects added
# green, removed red, changed yellow (markdown and json are for programs and comments: plain).
COLOURS = Style(title=colour.painter(colour.BOLD), immutable=colour.painter(colour.BOLD_RED),
                added=colour.painter(colour.GREEN), removed=colour.painter(colour.RED),
                changed=colour.painter(colour.YELLOW), hunk=colour.painter(colour.CYAN))


def arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("dirs", nargs="*", metavar="OLD NEW",
                         help="two rendered output folders; or, when neither is a path, two git revisions "
                              "(as --base OLD --head NEW)")
    command.add_argument("--base", metavar="REV", default=None,
                         help="git revision of the old render (default: the merge base with the default branch)")
    command.add_argument("--head", metavar="REV", default=None,
                         help="git revision of the new render (default: a fresh render of the working tree)")
    command.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                         help="text (default), markdown for a pull-request comment, or json")
    command.add_argument("--max-chars", metavar="N", type=_chars, default=None,
                         help=f"cut the text or markdown report to N characters, the overview kept and the "
                              f"details in order of importance (0: no limit; default: {COMMENT_LIMIT:,} for "
                              "markdown, what a GitHub comment takes, and no limit for text); json is never cut")
    command.add_argument("--more", metavar="WHERE", default=DEFAULT_MORE,
                         help="where a cut report's reader finds the rest, in its last line `N more changes "
                              f"... left out to fit: see WHERE` (default: {DEFAULT_MORE})")
    command.add_argument("--fail-on", choices=("any", "immutable"), default="any",
                         help="exit 1 on any difference (default), or only on changes Kubernetes refuses to apply")
    # The new side of --base is the repository's render (mpigen.yaml, or blueprints/ with -o):
    # positional arguments are the two folders of the other form.
    inputs(command, paths=False)
    command.add_argument("-o", "--output", metavar="DIR", type=Path,
                         help="the output folder in the repository (default: mpigen.yaml's output)")
    command.add_argument("--live", action="store_true",
                         help="compare the render with the objects in the cluster (needs mpigen[cluster])")
    cluster_options(command, "--live")


def run(args: argparse.Namespace) -> int:
    announce(args)
    with progress_bar("rendering") as progress:
        sides = Sides(tuple(args.dirs), args.base, args.head, args.live)
        report = diff(flags(args, args.output), sides, cluster(args), print_diagnostics, progress)
    budget = None if args.max_chars is None else Budget(args.max_chars, args.more)
    if budget is None and args.more != DEFAULT_MORE:
        budget = Budget(COMMENT_LIMIT if args.format == "markdown" else 0, args.more)
    write_stdout(report.format(args.format, COLOURS if colour_on_stdout() else PLAIN, budget))
    differs = report.immutable() if args.fail_on == "immutable" else report.differs()
    return DIFFERENCES_FOUND if differs else SUCCESS


def _chars(value: str) -> int:
    """--max-chars: a whole number of characters, 0 for no limit; a budget too small for the
    overview itself is refused by argparse's usage error."""
    if not value.isdigit():
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number of characters")
    chars = int(value)
    if 0 < chars < MIN_CHARS:
        raise argparse.ArgumentTypeError(f"{chars} is too few to say anything: give at least {MIN_CHARS} (or 0)")
    return chars


MIN_CHARS = 2000  # the overview and the closing lines of a report of a few jobs
