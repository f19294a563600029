"""The command line: mpigen render | check | diff | validate | schema | import.

Exit codes: 0 success, 2 invalid input (every problem printed as PATH:LINE:COLUMN:
error: MESSAGE on stderr; nothing written), 3 an internal error (a bug: please report).
Imports stay inside the commands so that `mpigen --help` and the render path load
only what they use.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path

DEFAULT_PATHS = ("blueprints",)
CONFIG_FILE = "mpigen.yaml"  # as mpigen.formats.config.CONFIG_FILE, without importing it


def _parser() -> argparse.ArgumentParser:
    from mpigen import __version__
    from mpigen.render.target import DEFAULT_KUBE_VERSION
    from mpigen.render.targets import GITOPS_PROFILES, TARGETS
    from mpigen.compile.mpijob import MPIJOB_APIS

    parser = argparse.ArgumentParser(
        prog="mpigen",
        description="Compile MPI training job blueprints into the Kubernetes objects the Kubeflow MPI "
                    "Operator would create, as deterministic manifests. In a folder with mpigen.yaml, "
                    "`mpigen render` and `mpigen check` with no paths work on the whole repository.")
    parser.add_argument("--version", action="version", version=f"mpigen {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def inputs(command, render_options=True, paths=True):
        if paths:
            command.add_argument("paths", nargs="*", metavar="PATH",
                                 help="blueprint files or folders (default: mpigen.yaml's blueprints, or blueprints/)")
        else:
            command.set_defaults(paths=[])
        command.add_argument("--overlay", action="append", metavar="NAME_OR_PATH", default=None,
                             help="render for this overlay (a folder under overlays/, or a path); repeatable, "
                                  "each overlay into its own folder (default: mpigen.yaml's overlays when no "
                                  "PATH is given)")
        if render_options:
            command.add_argument("--target", choices=TARGETS, default=None,
                                 help="static: the objects the MPI Operator (v1alpha2) would create (default); "
                                      "mpijob: the MPIJob resource, for clusters that run an operator")
            command.add_argument("--with-crd", action="store_true", default=None,
                                 help="with --target mpijob: also emit the MPIJob CustomResourceDefinition")
            command.add_argument("--kube-version", metavar="1.N", default=None,
                                 help=f"Kubernetes version of the CRD's pod template schema (default {DEFAULT_KUBE_VERSION})")
            command.add_argument("--mpijob-api", choices=MPIJOB_APIS, default=None,
                                 help="with --target mpijob: kubeflow.org/v2beta1 (the MPI Operator v0.4+, "
                                      "default) or kubeflow.org/v1 (the Kubeflow training-operator)")
            command.add_argument("--gitops", choices=GITOPS_PROFILES, default=None,
                                 help="GitOps profile; none keeps the operator's names (default)")
            command.add_argument("--kubectl-delivery-image", metavar="IMAGE", default=None,
                                 help="image of the launcher's kubectl-delivery init container "
                                      "(default: mpioperator/kubectl-delivery:latest, as the operator's deployment)")

    def cluster_options(command):
        command.add_argument("--kubeconfig", metavar="FILE", default=None,
                             help="with --server/--live: the kubeconfig file (default: KUBECONFIG, ~/.kube/config)")
        command.add_argument("--context", metavar="NAME", default=None,
                             help="with --server/--live: the kubeconfig context (default: its current context)")

    render = commands.add_parser("render", help="render blueprints to Kubernetes manifests",
                                 description="Render every blueprint found in PATH (files, or folders searched "
                                             "recursively for *.yaml/*.yml with kind MPIJobBlueprint).")
    inputs(render)
    where = render.add_mutually_exclusive_group()
    where.add_argument("--stdout", action="store_true", help="write one YAML stream to standard output")
    where.add_argument("-o", "--output", metavar="DIR", type=Path,
                       help="write one file per object under DIR, plus kustomization.yaml "
                            "(default with mpigen.yaml and no PATH: its output folder)")

    check = commands.add_parser("check", help="fail when the committed output folder is stale",
                                description="Render in memory and compare with the output folder: exit 0 when "
                                            "identical, 1 with a unified diff per stale, missing or extra file.")
    inputs(check)
    check.add_argument("-o", "--output", metavar="DIR", type=Path,
                       help="the output folder to check (default: mpigen.yaml's output)")

    diff = commands.add_parser("diff", help="compare two renders object by object",
                               description="Compare two renders object by object: the committed output at a git "
                                           "revision against a fresh render of the working tree (--base), or two "
                                           "output folders (OLD_DIR NEW_DIR). Exit 0 when the same, 1 when not.")
    diff.add_argument("dirs", nargs="*", metavar="DIR", help="OLD_DIR NEW_DIR: two rendered output folders")
    diff.add_argument("--base", metavar="REV", default=None,
                      help="git revision of the old render (default: the merge base with the default branch)")
    diff.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                      help="text (default), markdown for a pull-request comment, or json")
    diff.add_argument("--fail-on", choices=("any", "immutable"), default="any",
                      help="exit 1 on any difference (default), or only on changes Kubernetes refuses to apply")
    # The new side of --base is the repository's render (mpigen.yaml, or blueprints/ with -o):
    # positional arguments are the two folders of the other form.
    inputs(diff, paths=False)
    diff.add_argument("-o", "--output", metavar="DIR", type=Path,
                      help="the output folder in the repository (default: mpigen.yaml's output)")
    diff.add_argument("--live", action="store_true",
                      help="compare the render with the objects in the cluster (needs mpigen[cluster])")
    cluster_options(diff)

    importer = commands.add_parser("import", help="turn MPIJob manifests into blueprints",
                                   description="Read MPIJob manifests (kubeflow.org/v1alpha2, v1 or v2beta1) and "
                                               "write the equivalent blueprints. What a blueprint cannot express is "
                                               "reported with its position (a warning, an error with --strict).")
    importer.add_argument("files", nargs="+", metavar="FILE", help="MPIJob manifests")
    into = importer.add_mutually_exclusive_group()
    into.add_argument("--stdout", action="store_true",
                      help="write the blueprints as one YAML stream on standard output (the default)")
    into.add_argument("-o", "--output", metavar="DIR", type=Path,
                      help="write DIR/<namespace>/<name>.yaml, all or nothing, never over an existing path")
    importer.add_argument("--strict", action="store_true",
                          help="what a blueprint cannot express is an error, not a warning")

    validate = commands.add_parser("validate", help="check blueprints without writing anything",
                                   description="Check blueprints (and overlays) without writing anything. With "
                                               "--output, also check every rendered object against the Kubernetes "
                                               "schemas of --kube-version (strict: unknown fields are errors) and "
                                               "MPIJobs against the CRD mpigen generates, and report per object.")
    inputs(validate)
    validate.add_argument("--output", action="store_true",
                          help="validate the rendered objects too (needs the kubernetes-validate package)")
    validate.add_argument("--server", action="store_true",
                          help="send every rendered object to the cluster as a server-side dry-run apply with strict "
                               "field validation, and report the API server's answer (needs mpigen[cluster])")
    validate.add_argument("--format", choices=("text", "json", "junit"), default="text",
                          help="with --output or --server: the report on standard output: text (default), json, "
                               "or junit XML")
    cluster_options(validate)

    schema = commands.add_parser("schema", help="print the JSON Schema of the blueprint format")
    schema.add_argument("--kind", choices=("MPIJobBlueprint", "Overlay", "Config"), default="MPIJobBlueprint",
                        help="the file format: blueprints (default), overlays, or mpigen.yaml")
    return parser


def main(argv: list[str] | None = None) -> int:
    from mpigen.errors import InputError

    # pydantic looks for plugins among every installed package's entry points on first use
    # (about 50 ms of a cold start); the command line uses none.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

    args = _parser().parse_args(argv)
    try:
        commands = {"render": _render, "check": _check, "diff": _diff, "validate": _validate, "schema": _schema,
                    "import": _import}
        return commands[args.command](args)
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
    except MemoryError:  # the machine's limit (ulimit -v, a container's memory), not a bug
        print("error: mpigen ran out of memory; give it more (ulimit -v, the container's memory limit) or "
              "render fewer blueprints at once", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug: say so, without a traceback unless asked
        if os.environ.get("MPIGEN_DEBUG"):
            raise
        print(f"mpigen: internal error: {type(exc).__name__}: {exc} (set MPIGEN_DEBUG=1 for a traceback, "
              "and please report it)", file=sys.stderr)
        return 3


@dataclass
class _Setup:
    """What a command works on, from its arguments, mpigen.yaml and the defaults (in that order)."""

    paths: list[Path]
    overlays: list
    options: object
    output: Path | None
    scope: tuple[str, ...]  # the prefixes of the output folder this run owns
    env_options: list | None = None  # per overlay, when they differ (an overlay's gitops)
    default_namespace: str | None = None  # for blueprints that name none (else "default")
    config: object = None  # mpigen.yaml, when there is one
    whole_repo: bool = False  # no PATH and no --overlay: the repository as mpigen.yaml describes it


# Argo CD passes a Config Management Plugin's settings as ARGOCD_ENV_<NAME> variables
# (spec.source.plugin.env of the Application); mpigen takes them as flags given on the
# command line (flags actually given still win).
ARGOCD_ENV = {"overlay": "ARGOCD_ENV_MPIGEN_OVERLAY", "gitops": "ARGOCD_ENV_MPIGEN_GITOPS",
              "target": "ARGOCD_ENV_MPIGEN_TARGET"}


def _argocd_env(args) -> None:
    from mpigen.errors import InputError, Mark, error
    from mpigen.render.targets import GITOPS_PROFILES, TARGETS

    for flag, name in ARGOCD_ENV.items():
        value = os.environ.get(name, "").strip()
        if not value or not hasattr(args, flag) or getattr(args, flag) is not None:
            continue
        if flag == "overlay":
            args.overlay = [v.strip() for v in value.split(",") if v.strip()]
            continue
        allowed = GITOPS_PROFILES if flag == "gitops" else TARGETS
        if value not in allowed:
            raise InputError([error(Mark(name), f"{name}={value!r} is not one of {', '.join(allowed)}")])
        setattr(args, flag, value)


def _check_crd_options(options) -> None:
    from mpigen.errors import InputError, Mark, error
    from mpigen.render.target import DEFAULT_KUBE_VERSION

    if options.with_crd and options.target != "mpijob":
        raise InputError([error(Mark("--with-crd"), "--with-crd adds the MPIJob CRD, which only the mpijob target "
                                                    "uses; add --target mpijob")])
    if options.with_crd or options.kube_version != DEFAULT_KUBE_VERSION:
        from mpigen.render.mpijob.crd import available_kube_versions

        try:
            versions = available_kube_versions()
        except ModuleNotFoundError:
            raise InputError([error(Mark("--with-crd"), "the MPIJob CRD takes the pod schema from the "
                                                        "kubernetes-validate package: pip install 'mpigen[crd]'")])
        if options.kube_version not in versions:
            raise InputError([error(Mark("--kube-version"), f"Kubernetes {options.kube_version} is not one of the "
                                                            f"known versions {', '.join(versions)}")])


def _check_image_flag(image: str | None) -> None:
    """--kubectl-delivery-image is written into every launcher: an image reference."""
    if image is None:
        return
    from mpigen.errors import InputError, Mark, error
    from mpigen.kube.image import image_problem

    problem = image_problem(image)
    if problem:
        raise InputError([error(Mark("--kubectl-delivery-image"), f"{image!r} is not an image reference: {problem}")])


def _setup(args) -> _Setup:
    from mpigen.load.files import WORKING_FOLDER, input_exists
    from mpigen.render.target import Options

    _argocd_env(args)
    config = None
    # the config module (and its models) only when there is a config
    if input_exists(Path(CONFIG_FILE), CONFIG_FILE, WORKING_FOLDER):
        from mpigen.formats.config import load_config

        config = load_config()
    whole_repo = not args.paths and config is not None
    paths = [Path(p) for p in (args.paths or (config.model.blueprints if config else DEFAULT_PATHS))]
    overlay_specs = args.overlay if args.overlay else (config.model.overlays if whole_repo else [])
    overlays = []
    if overlay_specs:
        from mpigen.overlay.resolve import resolve

        overlays = resolve(list(overlay_specs), Path("."))
    output = getattr(args, "output", None)
    if output is None and whole_repo:
        output = Path(config.model.output)
    # A run owns the whole output folder when it renders the whole repository (so an overlay
    # dropped from mpigen.yaml disappears), else only the folders of the overlays it renders.
    scope = tuple(f"{o.name}/" for o in overlays) if overlays and args.overlay else ("",)
    def pick(flag, key):
        value = getattr(args, flag, None)
        return value if value is not None else getattr(config.model, key) if config else None

    chosen = {"target": pick("target", "target"), "gitops": pick("gitops", "gitops"),
              "kubectl_delivery_image": pick("kubectl_delivery_image", "kubectlDeliveryImage"),
              "mpijob_api": pick("mpijob_api", "mpijobApi"), "with_crd": pick("with_crd", "withCRD"),
              "kube_version": pick("kube_version", "kubeVersion")}
    _check_image_flag(getattr(args, "kubectl_delivery_image", None))
    options = Options(**{k: v for k, v in chosen.items() if v is not None})
    _check_crd_options(options)
    env_options = None
    if overlays and getattr(args, "gitops", None) is None:  # an overlay's profile wins over mpigen.yaml's
        env_options = [replace(options, gitops=o.gitops) if o.gitops else options for o in overlays]
    # Under Argo CD, a blueprint without a namespace goes to the Application's destination.
    default_namespace = os.environ.get("ARGOCD_APP_NAMESPACE") or None
    return _Setup(paths, overlays, options, output, scope, env_options, default_namespace, config,
                  whole_repo and not args.overlay)


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


def _usage_error(message: str) -> int:
    print(f"mpigen: error: {message}", file=sys.stderr)
    return 2


def _rendered(setup: _Setup):
    from mpigen.pipeline import render_paths

    result = render_paths(setup.paths, setup.options, setup.overlays, setup.env_options, setup.default_namespace)
    _require_jobs(result.jobs, setup.paths)
    _print_warnings(result.warnings)
    return result


def _render(args) -> int:
    setup = _setup(args)
    if not args.stdout and setup.output is None:
        return _usage_error("say where the output goes: --stdout or -o DIR (or run in a folder whose "
                            "mpigen.yaml names the output folder, with no PATH)")
    if setup.output is not None and not args.stdout:
        _refuse_overlap(setup.output, [*setup.paths, *_overlay_folders(setup.overlays)])
    result = _rendered(setup)
    if args.stdout:
        _write_stdout(*(item.text for item in result.objects))
    else:
        from mpigen.errors import InputError
        from mpigen.emit.layout import folder_files
        from mpigen.output.plan import plan_folder
        from mpigen.output.write import write_folder

        companions = _companions(setup, result)
        inputs = [*setup.paths, *_overlay_folders(setup.overlays)]
        for folder, _ in companions:
            _refuse_overlap(folder, inputs)
            _refuse_overlap(folder, [setup.output], "the output folder")
        # A companion folder that cannot take its files stops the run before the output
        # folder changes (each folder is then written in one step of its own).
        refused = [d for folder, texts in companions for d in plan_folder(folder, texts).problems]
        if refused:
            raise InputError(refused)
        _print_warnings(write_folder(setup.output, folder_files(result.objects, result.envs), setup.scope))
        for folder, texts in companions:
            _print_warnings(write_folder(folder, texts))
        envs = [e for e in result.envs if e]
        into = ", ".join(f"{setup.output.as_posix()}/{e}" for e in envs) if envs else setup.output.as_posix()
        print(f"mpigen: rendered {result.jobs} job{'s' if result.jobs != 1 else ''} "
              f"({len(result.objects)} objects) into {into}", file=sys.stderr)
    return 0


def _check(args) -> int:
    from mpigen.output.staleness import compare_folder
    from mpigen.emit.layout import folder_files
    from mpigen.output.plan import plan_folder

    setup = _setup(args)
    if setup.output is None:
        return _usage_error("say which output folder to check: -o DIR (or run in a folder whose mpigen.yaml "
                            "names it, with no PATH)")
    result = _rendered(setup)
    plan = plan_folder(setup.output, folder_files(result.objects, result.envs), setup.scope)
    if plan.problems:
        from mpigen.errors import InputError

        raise InputError(plan.problems + plan.warnings)
    _print_warnings(plan.warnings)
    reports = [(setup.output, compare_folder(setup.output, plan))]
    for folder, texts in _companions(setup, result):
        companion = plan_folder(folder, texts)
        _print_warnings(companion.warnings)
        reports.append((folder, compare_folder(folder, companion)))
    stale = False
    for folder, report in reports:
        _write_stdout(report.diff)
        if report.stale:
            stale = True
            print(f"mpigen: {folder.as_posix()} is stale: {report.summary()}; run `mpigen render` and commit "
                  "the result", file=sys.stderr)
    if stale:
        return 1
    names = [folder.as_posix() for folder, _ in reports]
    folders = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    verb = "is" if len(reports) == 1 else "are"
    print(f"mpigen: {folders} {verb} up to date ({result.jobs} job{'s' if result.jobs != 1 else ''})",
          file=sys.stderr)
    return 0


def _companions(setup: _Setup, result) -> list:
    """[(folder, files)] of the GitOps controllers' objects mpigen.yaml asks for, when the
    whole repository is rendered (see mpigen.emit.companions)."""
    config = setup.config
    if config is None or not setup.whole_repo or setup.output is None:
        return []
    from mpigen.emit.companions import argocd_applications, flux_kustomizations

    out = []
    if config.model.argocd is not None:
        argocd = config.model.argocd
        out.append((Path(argocd.applications), argocd_applications(argocd, setup.output, result, setup.overlays)))
    if config.model.flux is not None:
        flux = config.model.flux
        out.append((Path(flux.kustomizations), flux_kustomizations(flux, setup.output, result)))
    return out


def _diff(args) -> int:
    from mpigen.review.diff.compare import compare
    from mpigen.review.revision import folder_texts, render_texts, revision_texts

    if args.dirs and args.base is not None:
        return _usage_error("give either OLD_DIR NEW_DIR or --base REV, not both")
    if args.live and (args.dirs or args.base is not None):
        return _usage_error("--live compares the render with the cluster: give neither folders nor --base")
    if args.live:
        from mpigen.review.live import live_texts

        cluster = _cluster(args)
        new = render_texts(_rendered(_setup(args)))
        old = live_texts(cluster, new)
        old_label, new_label = f"cluster {cluster.server}", "working tree"
    elif args.dirs:
        if len(args.dirs) != 2:
            return _usage_error("give two folders to compare: OLD_DIR NEW_DIR")
        old_label, new_label = args.dirs
        old, new = folder_texts(Path(args.dirs[0])), folder_texts(Path(args.dirs[1]))
    else:
        setup = _setup(args)
        if setup.output is None:
            return _usage_error("say which output folder the base revision holds: -o DIR (or run in a folder "
                                "whose mpigen.yaml names it, with no PATH)")
        result = _rendered(setup)
        new = render_texts(result)
        rev, old = revision_texts(args.base, setup.output, setup.scope)
        old_label, new_label = rev, "working tree"
    report = compare(old, new, old_label, new_label)
    _write_stdout(report.format(args.format))
    if args.fail_on == "immutable":
        return 1 if report.immutable() else 0
    return 1 if report.differs() else 0


def _overlay_folders(overlays: list) -> list[Path]:
    """The folders of the overlays and of their bases: inputs too."""
    folders: dict[str, Path] = {}
    pending = list(overlays or [])
    while pending:
        overlay = pending.pop()
        folders.setdefault(str(Path(overlay.doc.path).parent), Path(overlay.doc.path).parent)
        pending += overlay.bases
    return sorted(folders.values())


def _refuse_overlap(out: Path, paths: list[Path], what: str = "the input") -> None:
    """An output folder must not contain, or lie inside, what is being read (blueprints,
    overlays) or another output folder."""
    from mpigen.errors import InputError, Mark, error

    # realpath, not Path.resolve: a link that loops is reported where it is read, not here
    target = Path(os.path.realpath(out))
    problems = []
    for path in paths:
        source = Path(os.path.realpath(path))
        if target == source or source in target.parents or target in source.parents:
            problems.append(error(Mark(out.as_posix()),
                                  f"the output folder overlaps {what} {path.as_posix()}; "
                                  "write the output to a folder of its own"))
    if problems:
        raise InputError(problems)


def _validate(args) -> int:
    from mpigen.pipeline import validate_paths

    setup = _setup(args)
    if args.server:
        return _validate_server(setup, args)
    if args.output:
        return _validate_output(setup, args.format)
    result = validate_paths(setup.paths, setup.options, setup.overlays, setup.env_options, setup.default_namespace)
    count = result.jobs
    _require_jobs(count, setup.paths)
    _print_warnings(result.warnings)
    per = f" under {len(setup.overlays)} overlay{'s' if len(setup.overlays) != 1 else ''}" if setup.overlays else ""
    print(f"mpigen: {count} blueprint{'s' if count != 1 else ''} valid{per}", file=sys.stderr)
    return 0


def _cluster(args):
    from importlib.util import find_spec

    from mpigen.errors import InputError, Mark, error

    if find_spec("kubernetes") is None:
        raise InputError([error(Mark("--server" if args.command == "validate" else "--live"),
                                "the live-cluster commands need the kubernetes client: pip install "
                                "'mpigen[cluster]'")])
    from mpigen.review.live import Cluster

    return Cluster(args.kubeconfig, args.context)


def _validate_server(setup: _Setup, args) -> int:
    """Every rendered object as a server-side dry-run apply; the report on stdout, exit 2
    when the API server refuses any."""
    from mpigen.review.live import validate_on_server
    from mpigen.review.object_reports import FORMATS, summary

    cluster = _cluster(args)
    result = _rendered(setup)
    reports = validate_on_server(cluster, result.objects)
    _write_stdout(FORMATS[args.format](reports, f"the API server {cluster.server} (dry run)"))
    counts = summary(reports)
    print(f"mpigen: {counts['objects']} objects sent to {cluster.server} as a dry run: {counts['valid']} accepted, "
          f"{counts['invalid']} refused", file=sys.stderr)
    return 2 if counts["invalid"] else 0


def _validate_output(setup: _Setup, report_format: str) -> int:
    """Render in memory and validate every object; the report on stdout, exit 2 when an
    object is invalid (a cluster would refuse what mpigen would write)."""
    from mpigen.render.mpijob.crd import available_kube_versions
    from mpigen.errors import InputError, Mark, error

    version = setup.options.kube_version
    try:
        versions = available_kube_versions()
    except ModuleNotFoundError:
        raise InputError([error(Mark("--output"), "validating the output needs the Kubernetes schemas of the "
                                                  "kubernetes-validate package: pip install 'mpigen[crd]'")])
    if version not in versions:
        raise InputError([error(Mark("--kube-version"), f"Kubernetes {version} is not one of the known versions "
                                                        f"{', '.join(versions)}")])
    from mpigen.review.object_reports import FORMATS, summary
    from mpigen.review.schemas import validate_rendered

    result = _rendered(setup)
    reports = validate_rendered(result.objects, version)
    _write_stdout(FORMATS[report_format](reports, f"Kubernetes {version}"))
    counts = summary(reports)
    print(f"mpigen: {counts['objects']} objects of {result.jobs} job{'s' if result.jobs != 1 else ''} against "
          f"Kubernetes {version}: {counts['valid']} valid, {counts['invalid']} invalid, {counts['skipped']} skipped",
          file=sys.stderr)
    return 2 if counts["invalid"] else 0


def _import(args) -> int:
    from mpigen.emit.yaml import dump_object
    from mpigen.errors import InputError, Mark, error
    from mpigen.review.importer.manifest import import_document
    from mpigen.review.importer.new_files import write_new_files
    from mpigen.load.files import display_path
    from mpigen.load.parser import load_file

    problems, texts, defined = [], {}, {}
    for name in args.files:
        path = Path(name)
        try:
            docs = load_file(path)
        except InputError as exc:
            problems += exc.diagnostics
            continue
        jobs = [d for d in docs if isinstance(d.data, dict) and d.data.get("kind") == "MPIJob"]
        if not jobs:
            problems.append(error(Mark(display_path(path)), "no MPIJob in this file"))
        for doc in jobs:
            imported = import_document(doc, strict=args.strict)
            problems += doc.problems + imported.diagnostics
            if imported.blueprint:
                meta = imported.blueprint["metadata"]
                job = (meta.get("namespace", "default"), meta["name"])
                mark = doc.value_mark(("metadata", "name"))
                if job in defined:
                    first = defined[job]
                    problems.append(error(mark, f"MPIJob {job[0]}/{job[1]} is already defined at {first}; each job "
                                                "becomes one blueprint, so names must be unique per namespace"))
                    continue
                defined[job] = mark
                texts[f"{job[0]}/{job[1]}.yaml"] = dump_object(imported.blueprint, f"Imported by mpigen from {doc.path}")
    errors = [d for d in problems if d.severity == "error"]
    if errors:
        raise InputError(errors)
    _print_warnings(sorted(problems))
    if args.output is None:
        _write_stdout("".join(texts[k] for k in sorted(texts)))
        return 0
    write_new_files(args.output, {k: texts[k].encode("utf-8") for k in sorted(texts)})
    print(f"mpigen: imported {len(texts)} blueprint{'s' if len(texts) != 1 else ''} into "
          f"{args.output.as_posix()}", file=sys.stderr)
    return 0


def _schema(args) -> int:
    import json

    from mpigen.formats.blueprint import Blueprint
    from mpigen.formats.schema import json_schema
    from mpigen.formats.config import ConfigModel
    from mpigen.formats.overlay import OverlayModel

    model = {"MPIJobBlueprint": Blueprint, "Overlay": OverlayModel, "Config": ConfigModel}[args.kind]
    _write_stdout(json.dumps(json_schema(model), indent=2, ensure_ascii=False) + "\n")
    return 0


def _write_stdout(*texts: str) -> None:
    """Write the texts to standard output, as UTF-8 bytes with LF endings whatever the locale or
    platform, and flush it. Every command writes its standard output through here.

    A reader that stops reading (`| head -1`) is not an error: the rest of the output is
    dropped quietly and the command's exit code still says what it found (as for
    `mpigen check | head`, 1 on drift). A standard output that cannot take the output
    (closed, a full disk, /dev/full) is an error of the machine: exit 2."""
    if not any(texts):
        return
    from mpigen.errors import InputError, Mark, error

    try:
        if sys.stdout is None:  # started with standard output closed (`>&-`)
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        sys.stdout.flush()
        out = sys.stdout.buffer
        for text in texts:
            out.write(text.encode("utf-8"))
        out.flush()
    except BrokenPipeError:
        _silence_stdout()
    except OSError as exc:
        _silence_stdout()  # so that the flush at exit does not fail again
        hint = {errno.EBADF: "it is closed: run the command with an open standard output",
                errno.ENOSPC: "free some space, or send the output elsewhere"}.get(
            exc.errno, "send the output to a file or a program that reads it")
        raise InputError([error(Mark(""), f"cannot write to standard output: {exc.strerror or exc}; {hint}")])


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that what is still buffered goes nowhere."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, 1 if sys.stdout is None else sys.stdout.fileno())
        finally:
            os.close(devnull)
    except OSError:
        pass
