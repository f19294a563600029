"""The command line: mpigen render | validate | schema.

Exit codes: 0 success, 2 invalid input (every problem printed as PATH:LINE:COLUMN:
error: MESSAGE on stderr; nothing written), 3 an internal error (a bug: please report).
Imports stay inside the commands so that `mpigen --help` and the render path load
only what they use.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

DEFAULT_PATHS = ("blueprints",)


def _parser() -> argparse.ArgumentParser:
    from mpigen import __version__
    from mpigen.render import GITOPS_PROFILES, TARGETS

    parser = argparse.ArgumentParser(
        prog="mpigen",
        description="Compile MPI training job blueprints into the Kubernetes objects the Kubeflow MPI "
                    "Operator would create, as deterministic manifests.")
    parser.add_argument("--version", action="version", version=f"mpigen {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    render = commands.add_parser("render", help="render blueprints to Kubernetes manifests",
                                 description="Render every blueprint found in PATH (files, or folders searched "
                                             "recursively for *.yaml/*.yml with kind MPIJobBlueprint).")
    render.add_argument("paths", nargs="*", metavar="PATH", help="blueprint files or folders (default: blueprints/)")
    where = render.add_mutually_exclusive_group(required=True)
    where.add_argument("--stdout", action="store_true", help="write one YAML stream to standard output")
    where.add_argument("-o", "--output", metavar="DIR", type=Path,
                       help="write one file per object under DIR, plus kustomization.yaml")
    render.add_argument("--target", choices=TARGETS, default="static",
                        help="static: the objects the MPI Operator (v1alpha2) would create (default)")
    render.add_argument("--gitops", choices=GITOPS_PROFILES, default="none",
                        help="GitOps profile; none keeps the operator's names (default)")
    render.add_argument("--kubectl-delivery-image", metavar="IMAGE", default=None,
                        help="image of the launcher's kubectl-delivery init container "
                             "(default: mpioperator/kubectl-delivery:latest, as the operator's deployment)")

    validate = commands.add_parser("validate", help="check blueprints without writing anything")
    validate.add_argument("paths", nargs="*", metavar="PATH", help="blueprint files or folders (default: blueprints/)")

    commands.add_parser("schema", help="print the JSON Schema of the blueprint format")
    return parser


def main(argv: list[str] | None = None) -> int:
    from mpigen.errors import InputError

    args = _parser().parse_args(argv)
    try:
        return {"render": _render, "validate": _validate, "schema": _schema}[args.command](args)
    except InputError as exc:
        # Only the diagnostics, one line each (PATH:LINE:COLUMN: error: MESSAGE), so that
        # editors and CI annotations can parse every line of stderr.
        for diagnostic in exc.diagnostics:
            print(diagnostic, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except Exception as exc:  # a bug: say so, without a traceback unless asked
        if os.environ.get("MPIGEN_DEBUG"):
            raise
        print(f"mpigen: internal error: {type(exc).__name__}: {exc} (set MPIGEN_DEBUG=1 for a traceback, "
              "and please report it)", file=sys.stderr)
        return 3


def _paths(args) -> list[Path]:
    return [Path(p) for p in (args.paths or DEFAULT_PATHS)]


def _print_warnings(warnings) -> None:
    for diagnostic in warnings:
        print(diagnostic, file=sys.stderr)


def _require_jobs(result_jobs: int, paths: list[Path]) -> None:
    from mpigen.errors import InputError, Mark, error

    if result_jobs == 0:
        shown = ", ".join(p.as_posix() for p in paths)
        raise InputError([error(Mark(paths[0].as_posix()),
                                f"no blueprint found in {shown}; a blueprint is a YAML document with "
                                "apiVersion: mpigen.dev/v1alpha1 and kind: MPIJobBlueprint")])


def _render(args) -> int:
    from mpigen.pipeline import render_paths
    from mpigen.render import Options

    options = Options(target=args.target, gitops=args.gitops,
                      **({"kubectl_delivery_image": args.kubectl_delivery_image}
                         if args.kubectl_delivery_image else {}))
    paths = _paths(args)
    if args.output is not None:
        _refuse_overlap(args.output, paths)
    result = render_paths(paths, options)
    _require_jobs(result.jobs, paths)
    _print_warnings(result.warnings)
    if args.stdout:
        from mpigen.emit import dump_object

        # Bytes, not text: UTF-8 and LF whatever the locale or platform.
        out = sys.stdout.buffer
        for item in result.objects:
            out.write(dump_object(item.obj, item.comment).encode("utf-8"))
        out.flush()
    else:
        from mpigen.output import folder_files, write_folder

        write_folder(args.output, folder_files(result.objects))
        print(f"mpigen: rendered {result.jobs} job{'s' if result.jobs != 1 else ''} "
              f"({len(result.objects)} objects) into {args.output.as_posix()}", file=sys.stderr)
    return 0


def _refuse_overlap(out: Path, paths: list[Path]) -> None:
    """The output folder must not contain, or lie inside, what is being read."""
    from mpigen.errors import InputError, Mark, error

    target = out.resolve()
    problems = []
    for path in paths:
        source = path.resolve()
        if target == source or source in target.parents or target in source.parents:
            problems.append(error(Mark(out.as_posix()),
                                  f"the output folder overlaps the input {path.as_posix()}; "
                                  "write the output to a folder of its own"))
    if problems:
        raise InputError(problems)


def _validate(args) -> int:
    from mpigen.pipeline import validate_paths

    paths = _paths(args)
    checked, warnings = validate_paths(paths)
    _require_jobs(len(checked), paths)
    _print_warnings(warnings)
    print(f"mpigen: {len(checked)} blueprint{'s' if len(checked) != 1 else ''} valid", file=sys.stderr)
    return 0


def _schema(args) -> int:
    import json

    from mpigen.blueprint import json_schema

    sys.stdout.buffer.write((json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return 0


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
