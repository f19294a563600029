"""The result of a run: each environment's objects in install order (with the objects of the
environment itself, its target's, as the MPIJob CRD with --with-crd), the environments in order, and where
each job is named."""

from __future__ import annotations

from dataclasses import dataclass, field

from mpigen.emit.layout import object_path
from mpigen.emit.rendered import RenderedObject
from mpigen.errors import Diagnostic, Mark
from mpigen.cache.runs import Input
from mpigen.pipeline.checks import Gathered
from mpigen.pipeline.settings import RunSettings
from mpigen.pipeline.step import Placement, emitted
from mpigen.render.targets import TARGETS


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


def assembled(settings: RunSettings, gathered: list[Gathered], inputs: list[Input] | None) -> Result:
    """The run's result from what each environment gathered (in the order of the settings)."""
    result = Result(inputs=inputs)
    for env, here in zip(settings.environments, gathered):
        result.sources.update({(env.name, *job): mark for job, mark in here.seen.items()})
        if settings.render and env.options is not None:
            once = TARGETS[env.options.target].environment_objects(env.options)
            here.objects.extend(emitted(obj, comment, env.name, Placement(object_path(obj), "", False))
                                for obj, comment in once)
        here.objects.sort(key=lambda o: o.sort_key)
        result.objects.extend(here.objects)
        result.envs.append(env.name)
        result.profiles.append(env.options.gitops if env.options is not None else "none")
        result.jobs = result.jobs + len(here.seen) if settings.render else max(result.jobs, len(here.seen))
    return result
