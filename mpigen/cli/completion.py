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
# bash: an overlay's name is a folder of the repository's overlays/ that holds overlay.yaml (the
# repository: the nearest folder up with mpigen.yaml, as mpigen finds it, else this one); a word
# with a '/' or a leading '.' is a path, completed as a file.
OVERLAY_NAMES_BASH = r"""
_mpigen_compgen_overlays() {
  local top=$PWD file
  while [[ -n $top && ! -f $top/mpigen.yaml ]]; do top=${top%/*}; done
  [[ -n $top ]] || top=$PWD
  if [[ $1 == */* || $1 == .* ]]; then compgen -f -- "$1"; return; fi
  for file in "$top"/overlays/*/overlay.yaml; do
    [[ -f $file ]] || continue
    file=${file%/overlay.yaml}; file=${file##*/}
    [[ $file == "$1"* ]] && printf '%s\n' "$file"
  done
}
"""
OVERLAY = {**shtab.FILE, "bash": "_mpigen_compgen_overlays", "preamble": {"bash": OVERLAY_NAMES_BASH}}
# What a value names, by its metavar: a file or a folder (PATH: either), completed from the disk;
# an overlay by its name (bash) or its path.
PATHS = {"PATH": shtab.FILE, "FILE": shtab.FILE, "NAME_OR_PATH": OVERLAY, "DIR": shtab.DIRECTORY}


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
