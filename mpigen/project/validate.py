"""validate: the blueprints checked without writing anything; with --output or --server, every
rendered object checked too (against the Kubernetes schemas, or by the API server as a dry run)."""

from __future__ import annotations

from dataclasses import dataclass

from mpigen.pipeline.run import Progress, validate_paths
from mpigen.project.cluster import connect
from mpigen.project.options import ClusterFlags, Flags, Setup, resolve
from mpigen.project.rendered import Warn, memo_of, rendered, require_jobs, settings_of
from mpigen.project.strict import input_warnings
from mpigen.kube.versions import require_kube_version
from mpigen.review.live import validate_on_server
from mpigen.review.object_reports import ObjectReport
from mpigen.review.schemas import validate_rendered


@dataclass(frozen=True)
class Validated:
    """Every blueprint is valid: how many, under how many overlays."""

    blueprints: int
    overlays: int


@dataclass(frozen=True)
class ObjectsChecked:
    """A report per rendered object, and what they were checked against."""

    reports: list[ObjectReport]
    against: str         # "Kubernetes 1.30", "the API server URL (dry run)"
    jobs: int
    server: str | None   # the API server's URL, with --server


def validate(flags: Flags, output: bool, server: bool, cluster: ClusterFlags,
             warn: Warn, progress: Progress | None = None) -> Validated | ObjectsChecked:
    """Check the blueprints (and overlays), telling `progress` how far it is; with `server`,
    send every rendered object to the cluster as a server-side dry-run apply; with `output`,
    check every rendered object against the Kubernetes schemas. Raises InputError."""
    setup = resolve(flags, warn)
    if server:
        return _on_server(setup, cluster, warn, progress)
    if output:
        return _against_schemas(setup, warn, progress)
    settings = settings_of(setup, render=False)
    result = validate_paths(setup.paths, settings, memo_of(setup, settings), progress)
    require_jobs(result.jobs, setup.paths)
    input_warnings(setup, result.warnings, warn)
    return Validated(result.jobs, len(setup.overlays))


def _on_server(setup: Setup, cluster: ClusterFlags, warn: Warn, progress: Progress | None) -> ObjectsChecked:
    """Every rendered object as a server-side dry-run apply with strict field validation."""
    live = connect(cluster, "--server")
    result = rendered(setup, warn, progress)
    reports = validate_on_server(live, result.objects)
    return ObjectsChecked(reports, f"the API server {live.server} (dry run)", result.jobs, live.server)


def _against_schemas(setup: Setup, warn: Warn, progress: Progress | None) -> ObjectsChecked:
    """Every rendered object against the schemas of the Kubernetes version (kubernetes-validate)."""
    version = setup.options.kube_version
    require_kube_version(version, "--output", "validating the output needs the Kubernetes schemas of the "
                                              "kubernetes-validate package: pip install 'mpigen[crd]'")
    result = rendered(setup, warn, progress)
    return ObjectsChecked(validate_rendered(result.objects, version), f"Kubernetes {version}", result.jobs, None)
