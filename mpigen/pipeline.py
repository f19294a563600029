"""The whole pipeline for a set of paths: load -> (overlay) -> validate -> compile -> render -> emit.

Each stage is a pure function of the previous stage's output; this module only chains
them and carries each object's provenance (which blueprint and overlay it came from).
With overlays, every blueprint is rendered once per overlay; the output of each overlay
is its own environment (its own folder under -o, with its own kustomization.yaml).

Blueprints are independent of each other: what the cache holds of a file is taken as it
is, and the files it lacks of a large repository are split into slices rendered in
parallel processes (one per core); results are put back in input order, so the output is
the same bytes as a serial run. Every MAX_SLICE files the caller's Progress hears how
many are done (the command line draws a bar with it; the pipeline prints nothing).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from mpigen.cache.fingerprint import run_settings
from mpigen.cache.memo import run_memo
from mpigen.cache.shape import shape
from mpigen.cache.texts import packed, placed
from mpigen.compile.blueprint import compile_blueprint
from mpigen.emit.install_order import sort_key
from mpigen.emit.layout import object_path, step_placement
from mpigen.emit.rendered import RenderedObject, Store
from mpigen.emit.comments import OBJECT as GENERATED, SHARED_SOURCE, source_comment
from mpigen.emit.yaml import dump_object
from mpigen.errors import Diagnostic, InputError, Mark, error
from mpigen.load.blueprints import load_files
from mpigen.load.files import find_yaml_files
from mpigen.overlay.apply import Usage, apply, with_namespace
from mpigen.render.scripts import template
from mpigen.render.target import Lifecycle, Options
from mpigen.render.targets import APPLIED_FIRST, IMPORTABLE, RESERVED, TARGETS, render_job, target_checks
from mpigen.validate.document import attributed, validate_document, written_problems
from mpigen.validate.written_patches import written_patch_problems

# Below this many blueprint renders, starting processes costs more than it saves.
PARALLEL_THRESHOLD = 300
MAX_SLICE = 200  # files a worker takes at a time (and a serial run between two reports of progress)

Progress = Callable[[int, int], None]  # (files done, files in all): at the start, then every MAX_SLICE files
__all__ = ["RenderedObject", "Result", "Store", "Progress", "render_paths", "validate_paths", "run_paths"]


@dataclass
class Result:
    objects: list[RenderedObject] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    jobs: int = 0
    envs: list[str] = field(default_factory=list)  # the environments rendered, in order
    profiles: list[str] = field(default_factory=list)  # the GitOps profile of each environment
    # (environment, namespace, job) -> where the job's metadata.name is written
    sources: dict[tuple[str, str, str], Mark] = field(default_factory=dict)
    inputs: list[tuple] | None = None  # rendering with a cache: (path, named, stat, key, shape) of each file


@dataclass
class _DocResult:
    """What one blueprint document gives under one environment."""

    diagnostics: list[Diagnostic]
    name_mark: object = None            # where metadata.name is written (for duplicates)
    job: tuple[str, str] | None = None  # (namespace, name) when valid
    objects: list[RenderedObject] = field(default_factory=list)
    pending: tuple | None = None        # what _render takes, until the objects are rendered


@dataclass
class _Chunk:
    """What one blueprint file gives: loading problems, per environment the result of each
    blueprint document in it, in file order, the overlay patches it used, and its shape."""

    problems: list[Diagnostic]
    per_env: list[list[_DocResult]]
    used: set
    shape: bytes | None = None  # mpigen.cache.shape, made as it is computed (the cache keeps it)


# The only classes a cache entry may hold: what _one_file gives, packed (mpigen.cache.texts).
CACHED_CLASSES = frozenset({("mpigen.pipeline", "_Chunk"), ("mpigen.pipeline", "_DocResult"),
                            ("mpigen.emit.rendered", "RenderedObject"), ("mpigen.cache.store", "CachedText"),
                            ("mpigen.errors", "Diagnostic"), ("mpigen.errors", "Mark")})

# State shared with forked worker processes (set before the fork, read-only after).
_WORK: dict = {}


def _process(files: list) -> list[_Chunk]:
    """Load these files (which the cache lacks), then patch, validate, render and emit each
    blueprint in them under every environment; each file's result is stored in the cache."""
    out = []
    for file in files:
        one = _WORK["memo"].result(file, _one_file)
        one.per_env = [[replace(r, objects=_stored(r.objects)) if r.objects else r for r in results]
                       for results in one.per_env]
        out.append(one)
    return out


def _one_file(file, read) -> _Chunk:
    """What one file gives (its text from `read`). Only the results are kept, never the
    loaded documents (with the marks of every key and value, they are the bulk)."""
    chunk = _Chunk([], [[] for _ in range(max(1, len(_WORK["overlays"])))], set())
    docs, chunk.problems = load_files([file], read, IMPORTABLE)
    validated = [_environments(doc, chunk.used) for doc in docs]
    del docs  # rendering needs the blueprints, not the documents and their marks
    for results in validated:
        for env_results, result in zip(chunk.per_env, results):
            if result.pending is not None:
                result.objects, result.pending = _render(*result.pending), None
            env_results.append(result)
    chunk.shape = shape(chunk)
    return chunk


def _stored(objects: list[RenderedObject]) -> list[RenderedObject]:
    """The objects with their texts put in the render's Store, if it has one (only each object's
    key and place go back to the parent); a shared cluster-scoped object keeps its text."""
    store = _WORK["store"]
    if store is None:
        return objects
    return [o._replace(text="", ref=store.put(o.out_path, o.text)) if not o.shared
            else o for o in objects]


def _environments(doc, used: set) -> list[_DocResult]:
    """What one blueprint document gives under each environment.

    Every value the file states must be valid as written, even where an overlay replaces
    it: when every overlay changed the blueprint, its own values are checked once more
    as written (mpigen.validate.document.written_problems), reported once at the blueprint's
    line. Otherwise one environment validates the file's values as they are."""
    overlays, namespace = _WORK["overlays"], _WORK["default_namespace"]
    if namespace:
        doc = with_namespace(doc, namespace)
    if overlays:
        usage = Usage(used)
        patched = [apply(overlay, doc, usage) for overlay in overlays]
    else:
        patched = [doc]
    written = written_problems(doc, RESERVED) if all(p is not doc for p in patched) else []
    return [_result(p, overlay, options, written)
            for p, overlay, options in zip(patched, overlays or [None], _WORK["env_options"])]


def _result(patched, overlay, options, written: list[Diagnostic]) -> _DocResult:
    blueprint, diagnostics = validate_document(patched, RESERVED)
    diagnostics = written + diagnostics
    if blueprint is not None and options is not None:
        diagnostics += target_checks(patched, blueprint, options)
    if any(d.severity == "error" for d in diagnostics):
        blueprint = None
    result = _DocResult([attributed(d, patched) for d in diagnostics])
    if blueprint is not None:
        result.job = (blueprint.metadata.namespace, blueprint.metadata.name)
        result.name_mark = patched.value_mark(("metadata", "name"))
        if _WORK["render"]:
            result.pending = (blueprint, patched.path, overlay, options)
    return result


def _render(blueprint, source: str, overlay, options) -> list[RenderedObject]:
    env = overlay.name if overlay is not None else ""
    comment = source_comment(source, overlay.doc.path if overlay is not None else "")
    spec = blueprint.spec
    lifecycle = Lifecycle(spec.state, spec.run, spec.runPolicy.ttlSecondsAfterFinished)
    rendered = []
    for obj in render_job(compile_blueprint(blueprint), options, lifecycle):
        path, root, running = placed_object(obj, options, blueprint.metadata.name)
        shown = comment if obj["metadata"].get("namespace") else SHARED_SOURCE
        text = dump_object(obj, shown, GENERATED)
        rendered.append(RenderedObject(sort_key(obj, APPLIED_FIRST), path, text, env, running, root, None,
                                       hashlib.sha256(text.encode("utf-8")).digest()))
    return rendered


def placed_object(obj: dict, options: Options, job: str) -> tuple[str, str, bool]:
    """Where an object of job `job` goes (its path, and its kustomize root under the flux
    profile when its target applies in steps), and whether the running job scales it itself."""
    target = TARGETS[options.target]
    path, root, flux = object_path(obj), "", target.flux
    if options.gitops == "flux" and flux is not None:
        root, path = step_placement(obj, path, flux.step_of(obj), job if flux.per_job else None)
    return path, root, target.scales_itself(obj)


def _run(files, overlays, env_options, default_namespace=None, render=True, memo=None, store=None):
    """What each file gives, in order, as it comes: what the cache holds, or what the files
    it lacks give, in contiguous slices shared by one process per core on large inputs. A
    worker holds what a slice gives until the slice is done, so slices are at most MAX_SLICE
    files, whatever the size of the repository; the caller keeps what it needs of each file
    and drops the rest."""
    memo = memo or run_memo(None, files, [], CACHED_CLASSES, packed)
    _WORK.update(overlays=overlays, env_options=env_options, default_namespace=default_namespace, render=render,
                 memo=memo, store=store)
    computed = _computed(memo.misses, max(1, len(overlays)))
    try:
        for file in files:
            found = memo.found(file)
            yield placed(found, store) if found is not None else next(computed)
    finally:
        computed.close()
        _WORK.clear()


def _computed(files: list, envs: int):
    """What each of these files gives, in order. When processes cannot be had (no memory or
    threads left to start them) or one dies (killed by the kernel's out-of-memory killer),
    the remaining slices are processed in this process: the same results, never a hang or a
    lost slice."""
    workers = _workers(len(files) * envs)
    size = max(1, min(MAX_SLICE, -(-len(files) // (workers * 2)) if workers > 1 else len(files)))
    slices = [files[start:start + size] for start in range(0, len(files), size)]
    done = 0
    if workers > 1:
        try:
            for results in _parallel(slices, workers):
                yield from results
                done += 1
        except (OSError, RuntimeError):  # BrokenProcessPool is a RuntimeError
            pass
    for part in slices[done:]:
        yield from _process(part)


def _parallel(slices: list, workers: int):
    """_process of each slice in forked worker processes, results in order."""
    # The process pool (with logging, pickle and subprocess, about 8 ms of every start) is
    # loaded only for inputs large enough to be rendered in parallel.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    for name in ("hostfile.j2", "kubexec.sh.j2"):  # compiled once, before the fork: the workers share them
        template(name)
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
    try:
        yield from pool.map(_process, slices)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _workers(renders: int) -> int:
    if renders < PARALLEL_THRESHOLD or os.environ.get("MPIGEN_PROCESSES") == "1":
        return 1
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return max(1, min(cores, 8))


def run_paths(paths: list[Path], options=None, overlays=None, env_options=None, default_namespace=None,
              render: bool = True, progress: Progress | None = None, cache: Path | None = None,
              store: Store | None = None) -> Result:
    """Render (or only validate) every blueprint under paths for every overlay (with
    env_options[i] for overlay i when given), telling `progress` every MAX_SLICE files, with what
    the cache folder `cache` holds of each file (None: no cache); with a `store`, the render's
    processes put the objects' texts there. Raises InputError with
    every problem of every blueprint under every overlay."""
    files, problems = find_yaml_files(paths)
    done, report = 0, progress or (lambda done, total: None)
    report(done, len(files))
    overlays, env_options = _environments_of(options, overlays, env_options)
    envs = [_Env() for _ in range(max(1, len(overlays)))]
    diagnostics: list[Diagnostic] = list(problems)
    used: set = set()
    memo = run_memo(cache, files, settings(options, overlays, env_options, default_namespace, render),
                    CACHED_CLASSES, packed)
    inputs = [] if cache is not None and render else None
    for file, chunk in zip(files, _run(files, overlays, env_options, default_namespace, render, memo, store)):
        done += 1
        if inputs is not None and (seen := memo.inputs.get(name := file[0].as_posix())) is not None:
            inputs.append((name, file[1], *seen, chunk.shape))
        if done % MAX_SLICE == 0 or done == len(files):
            report(done, len(files))
        diagnostics.extend(chunk.problems)
        used |= chunk.used
        for env, results in zip(envs, chunk.per_env):
            env.add(results, diagnostics)
    result = Result(inputs=inputs)
    for env_index, env in enumerate(envs):
        name = overlays[env_index].name if overlays else ""
        result.sources.update({(name, *job): mark for job, mark in env.seen.items()})
        options_here = env_options[env_index]
        if render and options_here is not None:
            env.objects += environment_objects(options_here, name)
        env.objects.sort(key=lambda o: o.sort_key)
        result.objects.extend(env.objects)
        result.envs.append(name)
        result.profiles.append(options_here.gitops if options_here is not None else "none")
        # Rendering counts jobs (a blueprint under two overlays is two jobs); validating
        # counts blueprints.
        result.jobs = result.jobs + len(env.seen) if render else max(result.jobs, len(env.seen))
    if overlays:
        diagnostics += _unreported(written_patch_problems(overlays, RESERVED), diagnostics)
    errors = [d for d in diagnostics if d.severity == "error"]
    if errors:
        raise InputError(errors)
    warnings = [d for d in diagnostics if d.severity != "error"]
    if overlays:
        warnings += Usage(used).unused(overlays)
    result.warnings = sorted(set(warnings))
    return result


def _environments_of(options, overlays, env_options) -> tuple[list, list]:  # the overlays, each one's options
    overlays = list(overlays or [])
    return overlays, env_options if env_options and options is not None else [options] * max(1, len(overlays))


def settings(options, overlays=None, env_options=None, default_namespace=None, render: bool = True) -> list[str]:
    """The settings of a run, as its cache keys take them (mpigen.cache.fingerprint.run_settings)."""
    overlays, env_options = _environments_of(options, overlays, env_options)
    return run_settings(overlays, env_options, default_namespace, render)


def file_results(files: list, options, overlays=None, env_options=None, default_namespace=None, cache=None):
    """(what each of these few files gives, its objects with their texts; the Memo, with each one's stat and key)."""
    overlays, env_options = _environments_of(options, overlays, env_options)
    memo = run_memo(cache, files, run_settings(overlays, env_options, default_namespace, True), CACHED_CLASSES, packed)
    return list(_run(files, overlays, env_options, default_namespace, True, memo)), memo


@dataclass
class _Env:
    """What one environment has gathered so far: its jobs (where each is named, for
    duplicates), its objects, and the job that renders each object (for collisions)."""

    seen: dict = field(default_factory=dict)
    objects: list = field(default_factory=list)
    owners: dict = field(default_factory=dict)  # sort key (kind, namespace, name) -> the job's name mark
    digests: dict = field(default_factory=dict)  # sort key -> the sha256 of the first job's text of it

    def add(self, results: list[_DocResult], diagnostics: list[Diagnostic]) -> None:
        for item in results:
            diagnostics.extend(item.diagnostics)
            if item.job is None:
                continue
            if item.job in self.seen:
                diagnostics.append(_duplicate(item.name_mark, self.seen[item.job], item.job))
                continue
            self.seen[item.job] = item.name_mark
            for obj in item.objects:
                owner = self.owners.setdefault(obj.sort_key, item.name_mark)
                if owner is item.name_mark:
                    self.objects.append(obj)
                    self.digests[obj.sort_key] = obj.digest
                elif not obj.shared or self.digests[obj.sort_key] != obj.digest:
                    fix = (" with other content; give one of them another spec.runtime.name" if obj.shared
                           else "; rename one of the jobs")
                    diagnostics.append(error(item.name_mark, f"job {item.job[0]}/{item.job[1]} renders {obj.path}, "
                                                             f"as the job at {owner} does{fix}"))


def _unreported(problems: list[Diagnostic], diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The problems of overlay patches as written that no blueprint they were applied to
    reported already (as `MESSAGE (applied to BLUEPRINT)`, at the same place)."""
    shown = {(d.mark, d.message.rsplit(" (applied to ", 1)[0]) for d in diagnostics}
    return [d for d in problems if (d.mark, d.message) not in shown]


def environment_objects(options: Options, env: str) -> list[RenderedObject]:
    """What the environment's target renders once per environment (the target's environment_objects)."""
    out = []
    for obj, comment in TARGETS[options.target].environment_objects(options):
        text = dump_object(obj, comment, GENERATED)
        out.append(RenderedObject(sort_key(obj, APPLIED_FIRST), object_path(obj), text, env,
                                  digest=hashlib.sha256(text.encode("utf-8")).digest()))
    return out


def _duplicate(mark, first, job: tuple[str, str]) -> Diagnostic:
    return error(mark, f"job {job[0]}/{job[1]} is already defined at {first}; job names must be unique per namespace")


def render_paths(paths: list[Path], options, overlays=None, env_options=None, default_namespace=None,
                 progress: Progress | None = None, cache: Path | None = None, store: Store | None = None) -> Result:
    return run_paths(paths, options, overlays, env_options, default_namespace, progress=progress, cache=cache,
                     store=store)


def validate_paths(paths: list[Path], options=None, overlays=None, env_options=None,
                   default_namespace=None, progress: Progress | None = None, cache: Path | None = None) -> Result:
    """Every check of render_paths (the profile's included), without rendering:
    result.jobs counts the valid blueprints."""
    return run_paths(paths, options, overlays, env_options, default_namespace, render=False, progress=progress,
                     cache=cache)
