"""The command line: mpigen render | check | diff | status | import | validate | schema | completion.

Each command is a module of this package (DESCRIPTION, arguments(parser), run(args)) named in
COMMANDS and imported only when that command runs, so that `mpigen --help` and each command
load only what they use. Exit codes: mpigen.cli.exit_codes; every problem with the input is
printed as PATH:LINE:COLUMN: error: MESSAGE on stderr, and nothing is written. Bare `mpigen`
prints the help and exits 0.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from dataclasses import dataclass
from types import ModuleType

from mpigen import __version__
from mpigen.cli.exit_codes import INPUT_ERROR, INTERNAL_ERROR, INTERRUPTED, SUCCESS
from mpigen.cli.streams import print_diagnostics, say_error, silence_stdout
from mpigen.errors import InputError, UsageError, not_one_of

DESCRIPTION = ("Compile MPI training job blueprints into the Kubernetes objects the Kubeflow MPI Operator would "
               "create, as deterministic manifests. In a folder with mpigen.yaml, `mpigen render` and `mpigen "
               "check` with no paths work on the whole repository.")


@dataclass(frozen=True)
class Command:
    module: str   # its module in this package
    summary: str  # its line in `mpigen --help`


COMMANDS = {
    "render": Command("mpigen.cli.render", "render blueprints to Kubernetes manifests"),
    "check": Command("mpigen.cli.check", "fail when the committed output folder is stale"),
    "diff": Command("mpigen.cli.diff", "compare two renders object by object"),
    "status": Command("mpigen.cli.status", "show what the cluster has of every job, beside what Git says"),
    "import": Command("mpigen.cli.import_", "turn MPIJob manifests into blueprints"),
    "validate": Command("mpigen.cli.validate", "check blueprints without writing anything"),
    "schema": Command("mpigen.cli.schema", "print the JSON Schema of the blueprint format"),
    "completion": Command("mpigen.cli.completion", "print the shell completion script (bash, zsh or fish)"),
}


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors are `error: MESSAGE` after the usage, as every
    other error of mpigen (argparse's own would be `mpigen render: error: MESSAGE`), its
    `error:` in colour on a terminal."""

    def error(self, message: str):  # never returns: exit 2, as argparse's
        self.print_usage(sys.stderr)
        say_error(message)
        self.exit(INPUT_ERROR)


def parser(modules: dict[str, ModuleType]) -> argparse.ArgumentParser:
    """mpigen's parser: the commands of `modules` (name -> module) with their arguments, the
    others by their summary only (what `mpigen --help` shows)."""
    top = Parser(prog="mpigen", description=DESCRIPTION)
    top.add_argument("--version", action="version", version=f"mpigen {__version__}")
    commands = top.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command, info in COMMANDS.items():
        if command in modules:
            module = modules[command]
            module.arguments(commands.add_parser(command, help=info.summary, description=module.DESCRIPTION))
        else:
            commands.add_parser(command, help=info.summary)
    return top


def full_parser() -> argparse.ArgumentParser:
    """The parser with every command's arguments (for shell completion: it imports them all)."""
    return parser({name: importlib.import_module(info.module) for name, info in COMMANDS.items()})


def parse(argv: list[str]) -> tuple[argparse.Namespace, ModuleType]:
    """The arguments and the module of the command they name. Only that command's module is
    imported and its arguments added; the others appear in `mpigen --help` by their summary."""
    name = next((arg for arg in argv if not arg.startswith("-")), None)
    modules = {name: imported(COMMANDS[name].module)} if name in COMMANDS else {}
    top = parser(modules)
    if name is not None and name not in COMMANDS:  # argparse would say only `invalid choice`
        top.error(f"argument COMMAND: {not_one_of(repr(name), name, COMMANDS)}")
    return top.parse_args(argv), modules.get(name)


def imported(module: str) -> ModuleType:
    """A command's module, imported the first time without the cyclic garbage collector: its
    passes over what importing makes (the modules, their classes and functions, the models'
    schemas), all of which lives as long as the process, took some 5% of a one-blueprint
    render. Those objects are then set aside (gc.freeze), so that no later pass walks them
    either, and the render's forked workers share their memory pages: Python's advice for a
    process that forks (the gc module's documentation, gc.freeze)."""
    if module in sys.modules:
        return sys.modules[module]
    enabled = gc.isenabled()
    gc.disable()
    try:
        return importlib.import_module(module)
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def main(argv: list[str] | None = None) -> int:
    # pydantic looks for plugins among every installed package's entry points on first use
    # (reading each distribution's metadata: some 20 million instructions, 1.5% of a
    # one-blueprint render); the command line uses none, and a user's own setting wins.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

    argv = sys.argv[1:] if argv is None else argv
    if not argv:  # as kubectl and helm: the help, and success (1 would say "differences found")
        parser({}).print_help()
        return SUCCESS
    args, command = parse(argv)
    try:
        return command.run(args)
    except InputError as exc:
        # Only the diagnostics, one line each (PATH:LINE:COLUMN: error: MESSAGE), so that
        # editors and CI annotations can parse every line of stderr.
        print_diagnostics(exc.diagnostics)
        return INPUT_ERROR
    except UsageError as exc:
        say_error(str(exc))
        return INPUT_ERROR
    except KeyboardInterrupt:
        return INTERRUPTED
    except BrokenPipeError:
        silence_stdout()
        return SUCCESS
    except MemoryError:  # the machine's limit (ulimit -v, a container's memory), not a bug
        say_error("mpigen ran out of memory; give it more (ulimit -v, the container's memory limit) or "
                  "render fewer blueprints at once")
        return INPUT_ERROR
    except Exception as exc:  # a bug: say so, without a traceback unless asked
        if os.environ.get("MPIGEN_DEBUG"):
            raise
        say_error(f"internal error: {type(exc).__name__}: {exc} (set MPIGEN_DEBUG=1 for a traceback, and "
                  "please report it)")
        return INTERNAL_ERROR
