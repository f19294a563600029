"""status: every job of the environment as Git says it (a render of the repository, as `render`
reads it), and what the cluster has of each (one list call per kind and namespace,
mpigen.status.cluster), judged job by job (mpigen.status.judge)."""

from __future__ import annotations

from dataclasses import replace

from mpigen.emit.spill import Spill
from mpigen.errors import InputError, Mark, UsageError, error
from mpigen.kube.labels import JOB_LABEL
from mpigen.load.parser import parse
from mpigen.pipeline.assembly import Result
from mpigen.pipeline.run import Progress, render_paths
from mpigen.project.cluster import connect
from mpigen.project.options import ClusterFlags, Flags, Setup, resolve
from mpigen.project.rendered import Warn, memo_of, require_jobs, settings_of
from mpigen.project.strict import input_warnings
from mpigen.status.cluster import read
from mpigen.status.judge import judge
from mpigen.status.model import ObjectRef, Wanted
from mpigen.status.report import Row


def wanted_jobs(flags: Flags, warn: Warn, progress: Progress | None = None) -> list[Wanted]:
    """Every job of the run's environments, as Git says it: rendered as `render` renders it
    (the run's settings ask every job's Watched, which only a monitored environment's jobs
    have otherwise), in environment order, then by namespace and name. An archived job is not
    there (Git has no job); a queued job that is `completed` is, without objects."""
    setup = resolve(flags, warn)
    _one_cluster(flags, setup)
    settings = replace(settings_of(setup), watched=True)
    spill = Spill()
    try:
        result = render_paths(setup.paths, settings, memo_of(setup, settings), progress, spill)
        require_jobs(result.jobs, setup.paths)
        input_warnings(setup, result.warnings, warn)
        refs = _object_refs(result, spill)
    finally:
        spill.close()
    out = []
    for env in result.envs:
        for watched in sorted(result.watched.get(env, []), key=lambda w: (w.namespace, w.job)):
            objects = tuple(refs.get((env, watched.namespace, watched.job), ()))
            out.append(Wanted(env, watched.target, watched, objects))
    if not out:
        raise InputError([error(Mark(setup.paths[0].as_posix()), "every job here is archived: Git runs none, "
                                                                   "and there is nothing to ask the cluster")])
    return out


def _one_cluster(flags: Flags, setup: Setup) -> None:
    """A run reads one cluster: the environments of mpigen.yaml are each for its own, so with
    more than one the command names those to read (UsageError); --overlay given may name
    several (environments that share a cluster)."""
    if flags.overlays is None and len(setup.overlays) > 1:
        names = ", ".join(overlay.name for overlay in setup.overlays)
        raise UsageError(f"{setup.config.path if setup.config else 'the run'} has {len(setup.overlays)} environments "
                         f"({names}), each for its cluster: say which this cluster runs with --overlay NAME (repeat "
                         "it for environments that share a cluster)")


def observe(cluster, wanted: list[Wanted]) -> list[Row]:
    """What the cluster has of each job now, judged (one reading of the cluster)."""
    seen = read(cluster, wanted)
    return [Row(job, judge(job, seen[(job.namespace, job.job)])) for job in wanted]


def cluster_of(flags: ClusterFlags):
    """The cluster `status` reads (mpigen.review.live.Cluster)."""
    return connect(flags, "mpigen status")


def _object_refs(result: Result, spill: Spill) -> dict[tuple[str, str, str], list[ObjectRef]]:
    """(environment, namespace, job) -> the objects rendered for that job (labelled with it)."""
    out: dict[tuple[str, str, str], list[ObjectRef]] = {}
    for item in result.objects:
        text = item.text if item.ref is None else spill.read(item.path, item.ref).decode("utf-8")
        obj = parse(text, item.out_path)[0].data
        meta = obj.get("metadata", {})
        job = meta.get("labels", {}).get(JOB_LABEL)
        if job is None or "namespace" not in meta:
            continue  # the environment's own objects, and cluster-scoped ones jobs share
        ref = ObjectRef(obj["apiVersion"], obj["kind"], meta["name"])
        out.setdefault((item.env, meta["namespace"], job), []).append(ref)
    return out
