"""The project's blueprints rendered in memory, as every command that renders needs them: finding
no blueprint at all is an error, warnings go where the command prints them, and the progress of
a long render to the command's Progress."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from mpigen.cache.fingerprint import key_settings
from mpigen.cache.memo import Memo, run_memo
from mpigen.emit import companion_names
from mpigen.emit.companions import destination
from mpigen.errors import InputError, Mark, error
from mpigen.emit.rendered import TextStore
from mpigen.pipeline.assembly import Result
from mpigen.pipeline.run import Progress, render_paths
from mpigen.pipeline.settings import RunSettings, run_settings
from mpigen.project.options import Setup, Warn
from mpigen.project.strict import input_warnings


def rendered(setup: Setup, warn: Warn, progress: Progress | None = None, store: TextStore | None = None) -> Result:
    """The render of the setup's blueprints, its warnings given to `warn` and its progress
    (files done, files in all) to `progress`, its texts put in `store` when given;
    InputError when there is no blueprint at all."""
    settings = settings_of(setup)
    result = render_paths(setup.paths, settings, memo_of(setup, settings), progress, store)
    require_jobs(result.jobs, setup.paths)
    input_warnings(setup, result.warnings, warn)
    return result


def settings_of(setup: Setup, render: bool = True) -> RunSettings:
    """What a run of the pipeline over the setup's blueprints is asked to do (rendering, or
    only validating)."""
    return run_settings(setup.options, setup.overlays, setup.env_options, setup.default_namespace, render,
                        cluster_folders(setup), setup.targetings)


def cluster_folders(setup: Setup) -> list[str | None] | None:
    """Per environment, the folder of the output its cluster-scoped objects go to, shared with
    the other environments on its cluster, or None (its own folder). Only where mpigen writes the
    companions that apply them (a whole-repository render with mpigen.yaml's argocd or flux
    section) and more than one environment applies to that cluster: Flux applies every flux
    environment to the cluster it runs in, Argo CD each argocd environment to its destination.
    Otherwise whoever applies an environment's folder gets all it needs, as without a profile."""
    config = setup.config
    if config is None or not setup.whole_repo or not setup.overlays or not setup.env_options:
        return None
    argocd, flux = config.model.argocd, config.model.flux
    companions = [companion_names.cluster_kustomization() if options.gitops == "flux" and flux is not None else
                  companion_names.cluster_application(destination(overlay, argocd))
                  if options.gitops == "argocd" and argocd is not None else None
                  for overlay, options in zip(setup.overlays, setup.env_options)]
    sharing = Counter(companions)
    return [companion_names.cluster_folder(c) if c is not None and sharing[c] > 1 else None for c in companions]


def memo_of(setup: Setup, settings: RunSettings) -> Memo:
    """What the setup's cache folder holds of the files of a run under these settings (no
    cache folder: nothing)."""
    return run_memo(setup.cache, key_settings(settings.overlays, settings.options, settings.default_namespace,
                                              settings.render, settings.targetings, settings.watched))


def require_jobs(jobs: int, paths: list[Path]) -> None:
    """An empty render must never reach a GitOps controller that would prune everything."""
    if jobs == 0:
        shown = ", ".join(p.as_posix() for p in paths)
        raise InputError([error(Mark(paths[0].as_posix()),
                                f"no blueprint found in {shown}; a blueprint is a YAML document with "
                                "apiVersion: mpigen.dev/v1alpha1 and kind: MPIJobBlueprint")])
