"""The options of a run, resolved in one place for every command that renders or validates.

Each option takes the first value given by, in order:

1. the command-line flag (--target, --gitops, --overlay, -o, ...) and the PATH arguments;
2. Argo CD's Config Management Plugin settings, ARGOCD_ENV_MPIGEN_OVERLAY, ARGOCD_ENV_MPIGEN_GITOPS
   and ARGOCD_ENV_MPIGEN_TARGET (spec.source.plugin.env of the Application);
3. the overlay's own `gitops:`, `target:`, `podSecurity:`, `createNamespaces:`, `monitoring:` and each key
   of `versions:` (or its nearest base's), for that overlay's folder;
4. mpigen.yaml, that of the working folder or of the nearest folder above it (the run then
   works from that folder: mpigen.project.repository; it must be the user's, or trusted:
   mpigen.load.trust): its target, gitops, kubeVersion, podSecurity, createNamespaces, monitoring, versions
   and the keys of every target's options always; its blueprints, overlays and output folder only when no
   PATH is given;
5. the defaults: blueprints/, no overlay, no output folder, mpigen.render.target.Options and
   the defaults of the target's own options.

A job's target is the one exception to "an environment, one value": the flag (or
ARGOCD_ENV_MPIGEN_TARGET) for every job; else the first target rule (`targets`) that selects the
job, the overlay's own, then its bases' from the last applied, then mpigen.yaml's; else the
environment's target as above (targeting; docs/overlays.md, "A target per group of jobs").

A target's own options (mpigen.render.target.TargetOptions: its flags, mpigen.yaml and overlay
keys) are resolved in that order too, for the environment's target and each target its rules
name; mpigen.yaml's are the defaults of the environments that render with that target. Each target refuses what it must of the values given, judged with an
environment that renders with it, else with the run's options (a flag of its own given where
no environment renders with it).

ARGOCD_APP_NAMESPACE, when set, is the namespace of every blueprint that names none.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mpigen.cache.folder import cache_folder, judged
from mpigen.errors import NOWHERE, InputError, Warn, error, not_one_of
from mpigen.formats.monitoring import MonitoringSettings, monitoring_of
from mpigen.formats.types import GITOPS_PROFILES
from mpigen.load.document import Document
from mpigen.overlay.resolve import Overlay, bare_name, resolve as resolve_overlays
from mpigen.pipeline.settings import Targeting
from mpigen.project.config import Config, load_config
from mpigen.project.helper_image import helper_image_warnings
from mpigen.project.target_rules import overlay_rule_problems, target_rules
from mpigen.project.repository import CREATE_CONFIG, NO_CONFIG, Moved, enter_repository
from mpigen.render import targets
from mpigen.render.target import Options, Target

DEFAULT_PATHS = ("blueprints",)
ARGOCD_ENV = {"overlays": "ARGOCD_ENV_MPIGEN_OVERLAY", "gitops": "ARGOCD_ENV_MPIGEN_GITOPS",
              "target": "ARGOCD_ENV_MPIGEN_TARGET"}


@dataclass(frozen=True)
class Flags:
    """What the command line says (None: the flag was not given)."""

    paths: tuple[str, ...] = ()
    overlays: tuple[str, ...] | None = None
    output: Path | None = None
    target: str | None = None
    gitops: str | None = None
    kube_version: str | None = None
    target_flags: Mapping[str, Any] = field(default_factory=dict)  # the targets' flags given, by name
    cache: bool = True  # --no-cache: False
    discard_edits: bool = False  # render --discard-edits: files edited by hand may be replaced
    strict: bool = False  # --strict: a warning of the blueprints or overlays is an error (mpigen.project.strict)


@dataclass(frozen=True)
class ClusterFlags:
    """--kubeconfig and --context (None: KUBECONFIG or ~/.kube/config, and its current context)."""

    kubeconfig: str | None = None
    context: str | None = None


@dataclass(frozen=True)
class Setup:
    """What a command works on: the resolved options of one run."""

    paths: list[Path]
    overlays: list[Overlay]
    options: Options
    output: Path | None
    scope: tuple[str, ...]  # the prefixes of the output folder this run owns
    env_options: list[Options] | None = None  # per overlay, when they differ (an overlay's gitops)
    targetings: list[Targeting] | None = None  # per environment: its target rules and their targets' options
    default_namespace: str | None = None  # for blueprints that name none (else "default")
    config: Config | None = None  # mpigen.yaml, when there is one
    whole_repo: bool = False  # no PATH and no overlay asked for: the repository as mpigen.yaml describes it
    cache: Path | None = None  # the cache folder of incremental renders, judged (mpigen.cache.folder); None: no cache
    discard_edits: bool = False  # a render may replace the files of its folders edited by hand
    strict: bool = False  # a warning of the blueprints or overlays is an error (mpigen.project.strict)

    @property
    def inputs(self) -> list[Path]:
        """What the run reads: the blueprint paths, the folders of the overlays and of their bases."""
        folders: dict[str, Path] = {}
        pending = list(self.overlays)
        while pending:
            overlay = pending.pop()
            folders.setdefault(str(Path(overlay.doc.path).parent), Path(overlay.doc.path).parent)
            pending += overlay.bases
        return [*self.paths, *sorted(folders.values())]


def resolve(flags: Flags, warn: Warn) -> Setup:
    """The options of a run, from the flags, ARGOCD_ENV_*, the overlays, mpigen.yaml and the
    defaults, in the order of this module's docstring, and the cache folder it may use (why
    it may not goes to `warn`, once a run). Raises InputError."""
    named_cache = cache_folder() if flags.cache else None  # a relative MPIGEN_CACHE_DIR is the working folder's
    flags = _rebased(_with_argocd_env(flags), enter_repository())
    config = load_config()
    if not flags.paths and config is None and not os.path.lexists(DEFAULT_PATHS[0]):
        raise InputError([error(NOWHERE, f"{NO_CONFIG}, and no {DEFAULT_PATHS[0]}/ folder here to read by "
                                         "default: name the blueprints (mpigen validate PATH, mpigen render PATH "
                                         f"--stdout or -o DIR), {CREATE_CONFIG}")])
    whole_repo = not flags.paths and config is not None
    paths = [Path(p) for p in (flags.paths or (config.model.blueprints if config else DEFAULT_PATHS))]
    overlays = _overlays(flags, config if whole_repo else None, warn)
    output = flags.output
    if output is None and whole_repo:
        output = Path(config.model.output)
    # A run owns the whole output folder when it renders the whole repository (so an overlay
    # dropped from mpigen.yaml disappears), else only the folders of the overlays it renders.
    scope = tuple(f"{o.name}/" for o in overlays) if overlays and flags.overlays else ("",)
    options = _options(flags, config)
    warn(helper_image_warnings(flags.target_flags, config))
    env_options = None
    problems = overlay_rule_problems(overlays)  # reported with an overlay's unknown target, in one run
    try:
        if overlays:  # an overlay's profile and target win over mpigen.yaml's, not over the flags
            env_options = [_overlay_options(options, overlay, flags, config) for overlay in overlays]
    except InputError as exc:
        raise InputError(problems + exc.diagnostics) from None
    if problems:
        raise InputError(problems)
    targetings = [targeting(here, overlay, flags, config)
                  for here, overlay in zip(env_options or [options], overlays or [None])]
    _check_targets(flags, config, options, [*(env_options or ()), *(o for t in targetings for o in t.ruled)])
    # Under Argo CD, a blueprint without a namespace goes to the Application's destination.
    default_namespace = os.environ.get("ARGOCD_APP_NAMESPACE") or None
    cache = judged(named_cache)
    if cache.warning is not None:
        warn([cache.warning])
    return Setup(paths, overlays, options, output, scope, env_options, targetings, default_namespace, config,
                 whole_repo and not flags.overlays, cache.folder, flags.discard_edits, flags.strict)


def _rebased(flags: Flags, moved: Moved | None) -> Flags:
    """The flags of a run started in a sub-folder of the repository, their paths (PATH, an
    overlay's path, -o) rebased onto the repository's folder, where the run now works. A bare
    overlay name names an overlay of the repository wherever the run starts."""
    if moved is None:
        return flags
    overlays = flags.overlays
    if overlays is not None:
        overlays = tuple(spec if bare_name(spec) else moved.path(spec) for spec in overlays)
    output = None if flags.output is None else Path(moved.path(str(flags.output)))
    return replace(flags, paths=tuple(moved.path(p) for p in flags.paths), overlays=overlays, output=output)


def _overlays(flags: Flags, config: Config | None, warn: Warn) -> list[Overlay]:
    """The overlays the flags name, else those of mpigen.yaml (when given), each problem of
    mpigen.yaml's at its line there."""
    if flags.overlays:
        return resolve_overlays(list(flags.overlays), Path("."), warn=warn)
    if config is None or not config.model.overlays:
        return []
    specs = list(config.model.overlays)
    marks = [config.doc.value_mark(("overlays", i)) for i in range(len(specs))]
    return resolve_overlays(specs, Path("."), marks, warn)


def _overlay_options(options: Options, overlay: Overlay, flags: Flags, config: Config | None) -> Options:
    """The options of one overlay's folder: its own (or its nearest base's) gitops and target
    where no flag sets them, and its target's own options with the overlay's keys; a target
    mpigen does not have is an error at the overlay's line."""
    if overlay.gitops and flags.gitops is None:
        options = replace(options, gitops=overlay.gitops)
    if overlay.pod_security:
        options = replace(options, pod_security=overlay.pod_security)
    if overlay.create_namespaces is not None:
        options = replace(options, create_namespaces=overlay.create_namespaces)
    if overlay.monitoring is not None:
        owner = next(o for o in reversed(overlay.chain()) if o.model.monitoring is not None)
        _check_dashboard_builders(overlay.monitoring, owner.doc)
        options = replace(options, monitoring=monitoring_of(overlay.monitoring))
    if overlay.trainer_version is not None:
        options = replace(options, trainer_version=overlay.trainer_version)
    if overlay.kueue_version is not None:
        options = replace(options, kueue_version=overlay.kueue_version)
    target = overlay.target
    if target is not None and target not in targets.TARGETS:
        owner = next(o for o in reversed(overlay.chain()) if o.model.target is not None)
        raise InputError([error(owner.doc.value_mark(("target",)),
                                not_one_of(f"target: {target!r}", target, targets.TARGETS))])
    if target and flags.target is None:
        options = replace(options, target=target)
    target_here = targets.TARGETS[options.target]
    return replace(options, definition=target_here,
                   own=target_here.options.build(_given(target_here, flags, config, overlay)))


def _check_dashboard_builders(settings: MonitoringSettings | None, doc: Document) -> None:
    """A dashboard asked for needs Grafana's builders, the optional dependency of the dashboard
    extra (mpigen.monitoring.dashboard imports them when it builds one): missing, an error at the
    `dashboard` key of the file that asks (raises InputError)."""
    if settings is None or not settings.enabled or not settings.dashboard.enabled:
        return
    try:
        installed = importlib.util.find_spec("grafana_foundation_sdk") is not None
    except (ImportError, ValueError):  # ValueError: a module set to None (no spec)
        installed = False
    if not installed:
        raise InputError([error(doc.key_mark(("monitoring", "dashboard")),
                                "monitoring.dashboard needs Grafana's dashboard builders (grafana-foundation-sdk), "
                                "which are not installed: pip install 'mpigen[dashboard]', or set "
                                "dashboard.enabled: false")])


def _with_argocd_env(flags: Flags) -> Flags:
    """The flags, with the ARGOCD_ENV_* settings of those not given on the command line."""
    for key, name in ARGOCD_ENV.items():
        value = os.environ.get(name, "").strip()
        if not value or getattr(flags, key) is not None:
            continue
        if key == "overlays":
            flags = replace(flags, overlays=tuple(v.strip() for v in value.split(",") if v.strip()))
            continue
        allowed = GITOPS_PROFILES if key == "gitops" else targets.TARGETS
        if value not in allowed:
            raise InputError([error(NOWHERE, not_one_of(f"{name}={value!r}", value, allowed))])
        flags = replace(flags, **{key: value})
    return flags


def _options(flags: Flags, config: Config | None) -> Options:
    """How to render: each flag, else mpigen.yaml's value, else the default."""
    def pick(flag: str, key: str):
        value = getattr(flags, flag)
        return value if value is not None else getattr(config.model, key) if config else None

    if config is not None:
        _check_dashboard_builders(config.model.monitoring, config.doc)
    chosen = {"target": pick("target", "target") or next(iter(targets.TARGETS)), "gitops": pick("gitops", "gitops"),
              "kube_version": pick("kube_version", "kubeVersion"),
              "pod_security": config.model.podSecurity if config else None,
              "create_namespaces": config.model.createNamespaces if config else None,
              "monitoring": monitoring_of(config.model.monitoring) if config else None,
              "trainer_version": config.model.versions.trainer if config and config.model.versions else None,
              "kueue_version": config.model.versions.kueue if config and config.model.versions else None}
    options = Options(**{k: v for k, v in chosen.items() if v is not None})
    target = targets.TARGETS[options.target]
    return replace(options, definition=target, own=target.options.build(_given(target, flags, config)))


def _check_targets(flags: Flags, config: Config | None, options: Options, env_options: list[Options]) -> None:
    """What each target refuses of the values given (raises InputError), judged with the
    options of the first environment that renders with it, else with the run's: mpigen.yaml's
    keys of a target are the defaults of the environments that render with it (withCRD gives
    the MPIJob CRD to the mpijob environments, and none to an overlay's jobset environment),
    and are refused only where no environment does."""
    for target in targets.TARGETS.values():
        here = next((o for o in env_options if o.target == target.name), options)
        target.options.check(_given(target, flags, config), here)


def targeting(options: Options, overlay: Overlay | None, flags: Flags, config: Config | None) -> Targeting:
    """An environment's target rules, in the order they are tried (its overlay's, then its bases'
    from the last applied to the first, as a later base's values win over an earlier's, then
    mpigen.yaml's), and the options of each other target they name, built as the environment's
    own target's are; none under a --target flag, which wins over every rule."""
    if flags.target is not None:
        return Targeting()
    chain = reversed(overlay.chain()) if overlay is not None else ()
    rules = [*(rule for item in chain for rule in target_rules(item.doc, item.model.targets)),
             *(target_rules(config.doc, config.model.targets, reported=not flags.paths) if config else ())]
    ruled = {}
    for rule in rules:
        target = targets.TARGETS[rule.target]
        if rule.target != options.target and rule.target not in ruled:
            ruled[rule.target] = replace(options, target=rule.target, definition=target,
                                         own=target.options.build(_given(target, flags, config, overlay)))
    return Targeting(tuple(rules), tuple(ruled.values()))


def _given(target: Target, flags: Flags, config: Config | None, overlay: Overlay | None = None) -> dict[str, Any]:
    """The values given of the target's own options, by field: its flag, else the overlay's key
    (or its nearest base's), else mpigen.yaml's."""
    given = {}
    for setting in target.options.settings:
        sources = (flags.target_flags.get(setting.flag.name) if setting.flag else None,
                   overlay.inherited(setting.overlay_key) if overlay and setting.overlay_key else None,
                   getattr(config.model, setting.config_key) if config and setting.config_key else None)
        value = next((value for value in sources if value is not None), None)
        if value is not None:
            given[setting.field] = value
    return given
