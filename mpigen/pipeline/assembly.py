"""The result of a run: each environment's objects in install order (with the objects of the
environment itself: each of its targets', as the MPIJob CRD with --with-crd, and the PrometheusRule of its
jobs' alerts where it is monitored), the environments in order, and where
each job is named; the cluster-scoped objects of environments that share a cluster (mpigen.pipeline.settings
Environment.cluster_folder) once, in that cluster's folder, and refused where two of them differ under
one name."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from mpigen.emit.layout import object_path, step_placement
from mpigen.emit.rendered import RenderedObject
from mpigen.errors import Diagnostic, Mark, error
from mpigen.cache.runs import Input
from mpigen.pipeline.checks import Gathered
from mpigen.pipeline.settings import Environment, RunSettings
from mpigen.pipeline.step import Placement, emitted, stepped
from mpigen.render.namespaces import STEP, namespace_objects
from mpigen.render.watched import Watched

# An environment's alerts and dashboard (mpigen.monitoring), imported by their module's path
# when a monitored environment asks for them: most environments are not monitored, and every
# start would otherwise load the monitoring package (as the command table: mpigen.cli.main).
MONITORING_MODULES = ("mpigen.monitoring.prometheus_rule", "mpigen.monitoring.dashboard")


@dataclass
class Result:
    """What a run gives: its objects (each environment's in install order, the environments
    in order), its warnings, how many jobs (a blueprint under two overlays is two; validating
    counts blueprints), and, per environment, its name and GitOps profile."""

    objects: list[RenderedObject] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    jobs: int = 0
    envs: list[str] = field(default_factory=list)  # the environments rendered, in order
    profiles: list[str] = field(default_factory=list)  # the GitOps profile of each environment
    # (environment, namespace, job) -> where the job's metadata.name is written
    sources: dict[tuple[str, str, str], Mark | None] = field(default_factory=dict)
    inputs: list[Input] | None = None  # rendering with a cache: what the cache knows of each file
    # A folder of cluster-scoped objects -> the environments whose objects it holds, in order.
    clusters: dict[str, list[str]] = field(default_factory=dict)
    # Each environment's jobs as their alerts watch them (mpigen.render.watched), in file order:
    # a monitored environment's, or every one where the run's settings ask (`mpigen status`).
    watched: dict[str, list[Watched]] = field(default_factory=dict)

    @property
    def folders(self) -> list[str]:
        """The sub-folders of the output the run writes: each environment's, then each cluster's."""
        return [*self.envs, *self.clusters]


def assembled(settings: RunSettings, gathered: list[Gathered], inputs: list[Input] | None,
              diagnostics: list[Diagnostic]) -> Result:
    """The run's result from what each environment gathered (in the order of the settings);
    two environments that write one cluster-scoped object differently go to `diagnostics`."""
    result = Result(inputs=inputs)
    shared: dict[str, dict[tuple, tuple[RenderedObject, str]]] = {}
    for env, here in zip(settings.environments, gathered):
        result.sources.update({(env.name, *job): mark for job, mark in here.seen.items()})
        if settings.render and env.options is not None:
            if env.options.create_namespaces:
                here.objects.extend(_namespaces(env, here.objects))
            here.objects.extend(emitted(obj, comment, env.name, _placement(obj, env, options.target))
                                for options in env.all_options
                                for obj, comment in options.definition.environment_objects(options))
            if env.options.monitoring is not None:
                here.objects.extend(_monitoring(env, here.watched))
        if env.cluster_folder is not None:
            here.objects = _moved(env, here.objects, shared.setdefault(env.cluster_folder, {}), result, diagnostics)
        here.objects.sort(key=lambda o: o.sort_key)
        result.objects.extend(here.objects)
        result.envs.append(env.name)
        result.watched[env.name] = here.watched
        result.profiles.append(env.options.gitops if env.options is not None else "none")
        result.jobs = result.jobs + len(here.seen) if settings.render else max(result.jobs, len(here.seen))
    result.objects[:0] = [shared[folder][key][0] for folder in sorted(shared) for key in sorted(shared[folder])]
    return result


def _namespaces(env: Environment, objects: list[RenderedObject]) -> list[RenderedObject]:
    """A Namespace per namespace the environment's jobs' objects use (mpigen.render.namespaces);
    under flux, where a target of the environment applies its objects in steps, in a folder of
    their own, which a Kustomization applies before every step (mpigen.emit.companions)."""
    used = sorted({obj.sort_key[2] for obj in objects if not obj.cluster_scoped and obj.sort_key[2]})
    return [emitted(obj, comment, env.name, _placement(obj, env, STEP))
            for obj, comment in namespace_objects(used, env.options)]


def _monitoring(env: Environment, watched: list) -> list[RenderedObject]:
    """The environment's PrometheusRule, and its Grafana dashboard where it asks for one (each
    in shards where one object would not fit: mpigen.monitoring.shards)."""
    options = env.options
    rules, dashboard = (importlib.import_module(module) for module in MONITORING_MODULES)
    made = rules.prometheus_rules(env.name, watched, options.monitoring, options.gitops)
    if options.monitoring.dashboard is not None:
        made += dashboard.dashboard_config_maps(env.name, watched, options.monitoring, options.gitops)
    return [emitted(obj, comment, env.name, _placement(obj, env, rules.ALERTS_STEP))
            for obj, comment in made]


def _placement(obj: dict, env: Environment, step: str) -> Placement:
    """The file of an object of the environment's own (one a target renders once per environment,
    its Namespaces, its PrometheusRule or dashboard); under flux, where a target of the
    environment applies its objects in steps, in the folder `step` that a Kustomization of the
    environment applies (the target's own, as mpigen.pipeline.step.placed_object places its jobs'
    objects beside the steps; or one of their own: mpigen.render.namespaces.STEP, the
    monitoring's ALERTS_STEP), so that no Kustomization applies the steps' objects twice."""
    if not stepped(env):
        return Placement(object_path(obj), "", False)
    return Placement(*reversed(step_placement(obj, object_path(obj), step, None)), False)


def _moved(env: Environment, objects: list[RenderedObject], folder: dict[tuple, tuple[RenderedObject, str]],
           result: Result, diagnostics: list[Diagnostic]) -> list[RenderedObject]:
    """The environment's objects but the cluster-scoped ones, which go to its cluster's folder
    (`folder`: each object there, and the first environment that wrote it) at the folder's top."""
    kept = []
    for obj in objects:
        if not obj.cluster_scoped:
            kept.append(obj)
            continue
        envs = result.clusters.setdefault(env.cluster_folder, [])
        if env.name not in envs:
            envs.append(env.name)
        there = obj._replace(env=env.cluster_folder, path=obj.path.rsplit("/", 1)[-1], root="")
        first, owner = folder.setdefault(obj.sort_key, (there, env.name))
        if first.digest != there.digest:
            mark = Mark(env.overlay.doc.path) if env.overlay is not None else None
            diagnostics.append(error(mark, f"environments {owner} and {env.name} apply to one cluster and both write "
                                           f"{there.out_path}, with different content: a cluster holds one; make "
                                           "them write the same, or give one of them another name"))
    return kept
