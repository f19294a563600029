"""mpigen completion: the script that teaches bash, zsh or fish to complete mpigen's commands,
options and their values, made by shtab from the parser itself, on standard output."""

from __future__ import annotations

import argparse

import shtab

from mpigen.cli.exit_codes import SUCCESS
from mpigen.cli.main import COMMANDS, full_parser
from mpigen.cli.streams import write_stdout

DESCRIPTION = ("Print the shell completion script of mpigen: commands, options, their choices, and files or "
               "folders where a value names one. Load it with `source <(mpigen completion bash)`, "
               "`eval \"$(mpigen completion zsh)\"` (after compinit) or `mpigen completion fish | source`, "
               "or install it as docs/cli.md says.")
SHELLS = ("bash", "zsh", "fish")
# What a value names, by its metavar: a file or a folder (PATH: either), completed from the disk.
PATHS = {"PATH": shtab.FILE, "FILE": shtab.FILE, "NAME_OR_PATH": shtab.FILE, "DIR": shtab.DIRECTORY}


def arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("shell", choices=SHELLS, help="the shell: bash, zsh or fish")


def run(args: argparse.Namespace) -> int:
    parser = full_parser()
    _complete_paths(parser)
    for action in parser._actions:  # a menu shows each command's one-line summary, not its description
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                command.description = COMMANDS[name].summary
    write_stdout(shtab.complete(parser, shell=args.shell))
    return SUCCESS


def _complete_paths(parser: argparse.ArgumentParser) -> None:
    """Mark every argument whose value is a path, in every command, for shtab."""
    for action in parser._actions:  # argparse has no public list of its actions; shtab reads the same
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                _complete_paths(command)
        elif action.metavar in PATHS:
            action.complete = PATHS[action.metavar]
