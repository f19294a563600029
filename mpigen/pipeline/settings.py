"""What one run of the pipeline is asked to do: its environments (each with its name, overlay
and options), the namespace of blueprints that name none, and whether it renders or only
validates. Built once by the caller and passed down every call, into the worker processes too."""

from __future__ import annotations

from dataclasses import dataclass, replace

from mpigen.overlay.resolve import Overlay
from mpigen.pipeline.results import UsedPatch
from mpigen.pipeline.targeting import Rule, chosen_rule
from mpigen.render.target import Options
from mpigen.render.targets import resolved


@dataclass(frozen=True)
class Environment:
    """One environment of a run: its output sub-folder's name ("" without overlays), the
    overlay that makes it (None: the blueprints as written), its options (None: a
    validation that checks no target or profile), with its own target: that of the jobs no
    rule selects, and its target rules, in order, with the options of the other targets they
    name (mpigen.pipeline.targeting)."""

    name: str
    overlay: Overlay | None
    options: Options | None
    # The output folder its cluster-scoped objects go to, with those of the other environments
    # on its cluster (mpigen.emit.companion_names.cluster_folder); None: its own folder.
    cluster_folder: str | None = None
    targeting: Targeting | None = None

    @property
    def rules(self) -> tuple[Rule, ...]:
        return self.targeting.rules if self.targeting is not None and self.options is not None else ()

    @property
    def all_options(self) -> tuple[Options, ...]:
        """The options of each target its jobs may render with: its own, then its rules' others."""
        if self.options is None:
            return ()
        return (self.options, *(self.targeting.ruled if self.targeting is not None else ()))

    def job_options(self, name: object, labels: object, used: set[UsedPatch]) -> Options | None:
        """The options the job of this metadata.name and labels renders with: those of the target
        of the first rule that selects it, else the environment's (the rules it uses go to `used`)."""
        rule = chosen_rule(self.rules, name, labels, used)
        if rule is None:
            return self.options
        return next(options for options in self.all_options if options.target == rule.target)


@dataclass(frozen=True)
class Targeting:
    """An environment's target rules, in the order they are tried, and the options of each other
    target they name (its own options, from the flags, its overlay and mpigen.yaml)."""

    rules: tuple[Rule, ...] = ()
    ruled: tuple[Options, ...] = ()


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

    @property
    def targetings(self) -> list[tuple[tuple[Rule, ...], tuple[Options, ...]]]:
        """Each environment's target rules and the options of their other targets, in order."""
        return [(env.rules, env.all_options[1:]) for env in self.environments]

    @property
    def rules(self) -> list[Rule]:
        """Every environment's rules, in order (a rule of a shared base or of mpigen.yaml once per environment)."""
        return [rule for env in self.environments for rule in env.rules]


def run_settings(options: Options | None, overlays: list[Overlay] | None = None,
                 env_options: list[Options] | None = None, default_namespace: str | None = None,
                 render: bool = True, cluster_folders: list[str | None] | None = None,
                 targetings: list[Targeting] | None = None) -> RunSettings:
    """The settings of a run under these overlays (none: one environment of the blueprints as
    written), overlay i with env_options[i] when given, else each with `options`, with
    cluster_folders[i] and targetings[i] (its target rules) when given."""
    overlays = list(overlays or [])
    if not env_options or options is None:
        env_options = [options] * max(1, len(overlays))
    env_options = [resolved(here) if here is not None else None for here in env_options]
    rules = [replace(t, ruled=tuple(resolved(o) for o in t.ruled)) if t is not None else None
             for t in targetings or [None] * max(1, len(overlays))]
    if not overlays:
        return RunSettings((Environment("", None, env_options[0], None, rules[0]),), default_namespace, render)
    folders = cluster_folders or [None] * len(overlays)
    return RunSettings(tuple(Environment(overlay.name, overlay, here, folder, targeting)
                             for overlay, here, folder, targeting in zip(overlays, env_options, folders, rules)),
                       default_namespace, render)
