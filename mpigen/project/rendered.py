"""The project's blueprints rendered in memory, as every command that renders needs them: finding
no blueprint at all is an error, warnings go where the command prints them, and the progress of
a long render to the command's Progress."""

from __future__ import annotations

from pathlib import Path

from mpigen.errors import InputError, Mark, error
from mpigen.pipeline import Progress, Result, Store, render_paths
from mpigen.project.options import Setup, Warn


def rendered(setup: Setup, warn: Warn, progress: Progress | None = None, store: Store | None = None) -> Result:
    """The render of the setup's blueprints, its warnings given to `warn` and its progress
    (files done, files in all) to `progress`, its texts put in `store` when given;
    InputError when there is no blueprint at all."""
    result = render_paths(setup.paths, setup.options, setup.overlays, setup.env_options, setup.default_namespace,
                          progress, setup.cache, store)
    require_jobs(result.jobs, setup.paths)
    warn(result.warnings)
    return result


def require_jobs(jobs: int, paths: list[Path]) -> None:
    """An empty render must never reach a GitOps controller that would prune everything."""
    if jobs == 0:
        shown = ", ".join(p.as_posix() for p in paths)
        raise InputError([error(Mark(paths[0].as_posix()),
                                f"no blueprint found in {shown}; a blueprint is a YAML document with "
                                "apiVersion: mpigen.dev/v1alpha1 and kind: MPIJobBlueprint")])
