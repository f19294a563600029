"""What one run of the pipeline is asked to do: its environments (each with its name, overlay
and options), the namespace of blueprints that name none, and whether it renders or only
validates. Built once by the caller and passed down every call, into the worker processes too."""

from __future__ import annotations

from dataclasses import dataclass

from mpigen.overlay.resolve import Overlay
from mpigen.render.target import Options


@dataclass(frozen=True)
class Environment:
    """One environment of a run: its output sub-folder's name ("" without overlays), the
    overlay that makes it (None: the blueprints as written) and its options (None: a
    validation that checks no target or profile)."""

    name: str
    overlay: Overlay | None
    options: Options | None
    # The output folder its cluster-scoped objects go to, with those of the other environments
    # on its cluster (mpigen.emit.companion_names.cluster_folder); None: its own folder.
    cluster_folder: str | None = None


@dataclass(frozen=True)
class RunSettings:
    """The environments of a run, in output order, the namespace of blueprints that name
    none (None: "default"), whether the blueprints are rendered or only validated, and whether
    every job's Watched is asked for in every environment (`mpigen status`; otherwise only a
    monitored environment's jobs have one, for their alerts)."""

    environments: tuple[Environment, ...]
    default_namespace: str | None = None
    render: bool = True
    watched: bool = False

    @property
    def overlays(self) -> list[Overlay]:
        """The overlays of the run, one per environment (none: the blueprints as written)."""
        return [env.overlay for env in self.environments if env.overlay is not None]

    @property
    def options(self) -> list[Options | None]:
        """Each environment's options, in order."""
        return [env.options for env in self.environments]


def run_settings(options: Options | None, overlays: list[Overlay] | None = None,
                 env_options: list[Options] | None = None, default_namespace: str | None = None,
                 render: bool = True, cluster_folders: list[str | None] | None = None) -> RunSettings:
    """The settings of a run under these overlays (none: one environment of the blueprints as
    written), overlay i with env_options[i] when given, else each with `options`, and with
    cluster_folders[i] when given."""
    overlays = list(overlays or [])
    if not env_options or options is None:
        env_options = [options] * max(1, len(overlays))
    if not overlays:
        return RunSettings((Environment("", None, env_options[0]),), default_namespace, render)
    folders = cluster_folders or [None] * len(overlays)
    return RunSettings(tuple(Environment(overlay.name, overlay, here, folder)
                             for overlay, here, folder in zip(overlays, env_options, folders)),
                       default_namespace, render)
