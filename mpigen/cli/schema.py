"""mpigen schema: the JSON Schema of a file format, on standard output."""

from __future__ import annotations

import argparse

from mpigen.cli.exit_codes import SUCCESS
from mpigen.cli.streams import write_stdout
from mpigen.project.schema import FORMATS, schema

DESCRIPTION = None


def arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--kind", choices=tuple(FORMATS), default="MPIJobBlueprint",
                         help="the file format: blueprints (default), overlays, or mpigen.yaml")


def run(args: argparse.Namespace) -> int:
    write_stdout(schema(args.kind))
    return SUCCESS
