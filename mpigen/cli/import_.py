"""mpigen import: MPIJob and TrainJob manifests turned into blueprints, on standard output or into a folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from mpigen.cli.exit_codes import SUCCESS
from mpigen.cli.streams import plural, print_diagnostics, say, write_stdout
from mpigen.project.import_ import STREAM_SCHEMA_LINE, import_

DESCRIPTION = ("Read MPIJob manifests (kubeflow.org/v1alpha2, v1 or v2beta1) and Kubeflow Trainer TrainJobs "
               "(trainer.kubeflow.org/v1alpha1, with the runtimes they reference among the files) and write the "
               "equivalent blueprints. What a blueprint cannot express is reported with its position (a warning, an "
               "error with --strict).")


def arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("files", nargs="+", metavar="FILE",
                         help="MPIJob and TrainJob manifests, and the TrainingRuntimes and ClusterTrainingRuntimes "
                              "the TrainJobs reference")
    into = command.add_mutually_exclusive_group()
    into.add_argument("--stdout", action="store_true",
                      help="write the blueprints as one YAML stream on standard output (the default)")
    into.add_argument("-o", "--output", metavar="DIR", type=Path,
                      help="write DIR/<namespace>/<name>.yaml, all or nothing, never over an existing path")
    command.add_argument("--strict", action="store_true",
                         help="what a blueprint cannot express is an error, not a warning")


def run(args: argparse.Namespace) -> int:
    texts = import_(args.files, args.output, args.strict, print_diagnostics)
    if args.output is None:
        write_stdout(STREAM_SCHEMA_LINE, *texts.values())  # saved in blueprints/, as the examples
    else:
        say(f"imported {plural(len(texts), 'blueprint')} into {args.output.as_posix()}")
    return SUCCESS
