"""A run of the pipeline over a set of paths: every file's result, in input order (what the
cache's memo holds of it, or what the per-file step gives, in worker processes for a large
run), through the checks across jobs, assembled into the run's result. Every MAX_SLICE files
the caller's Progress hears how many are done (the command line draws a bar with it; the
pipeline prints nothing)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

from mpigen.cache.memo import Memo, run_memo
from mpigen.emit.rendered import TextStore
from mpigen.errors import Diagnostic, InputError
from mpigen.load.files import find_yaml_files
from mpigen.pipeline import pool
from mpigen.pipeline.assembly import Result, assembled
from mpigen.pipeline.checks import Gathered, overlay_problems, unused_patches
from mpigen.pipeline.results import FileResult, UsedPatch
from mpigen.pipeline.settings import RunSettings
from mpigen.pipeline.step import File, file_results

Progress = Callable[[int, int], None]  # (files done, files in all): at the start, then every MAX_SLICE files


def run_paths(paths: list[Path], settings: RunSettings, memo: Memo | None = None, progress: Progress | None = None,
              store: TextStore | None = None) -> Result:
    """Render (or only validate) every blueprint under paths in every environment of the
    settings, telling `progress` every MAX_SLICE files, with what the cache's `memo` holds of
    each file (None: no cache); with a `store`, the render's processes put the objects' texts
    there. Raises InputError with every problem of every blueprint in every environment."""
    files, problems = find_yaml_files(paths)
    memo = memo or run_memo(None, [])
    done, report = 0, progress or (lambda done, total: None)
    report(done, len(files))
    gathered = [Gathered() for _ in settings.environments]
    diagnostics: list[Diagnostic] = list(problems)
    used: set[UsedPatch] = set()
    inputs = [] if memo.store is not None and settings.render else None
    for file, result in zip(files, ordered(files, settings, memo, store)):
        done += 1
        if inputs is not None and (known := memo.input(file, result.shape)) is not None:
            inputs.append(known)
        if done % pool.MAX_SLICE == 0 or done == len(files):
            report(done, len(files))
        diagnostics.extend(result.problems)
        used |= result.used
        for here, results in zip(gathered, result.per_env):
            here.add(results, diagnostics)
    result = assembled(settings, gathered, inputs, diagnostics)
    diagnostics += overlay_problems(settings.overlays, diagnostics)
    errors = [d for d in diagnostics if d.severity == "error"]
    if errors:
        raise InputError(errors)
    warnings = [d for d in diagnostics if d.severity != "error"]
    warnings += unused_patches(settings.overlays, used, gathered, settings.rules)
    result.warnings = sorted(set(warnings))
    return result


def ordered(files: list[File], settings: RunSettings, memo: Memo, store: TextStore | None = None) -> Iterator[FileResult]:
    """What each file gives, in order, as it comes: what the cache holds, or what the files it
    lacks give (in worker processes on large inputs: mpigen.pipeline.pool)."""
    misses = memo.misses(files)
    work = partial(file_results, settings=settings, memo=memo, store=store)
    computed = pool.computed(misses, work, len(misses) * len(settings.environments))
    try:
        for file in files:
            found = memo.found(file, store)
            yield found if found is not None else next(computed)
    finally:
        computed.close()


def render_paths(paths: list[Path], settings: RunSettings, memo: Memo | None = None,
                 progress: Progress | None = None, store: TextStore | None = None) -> Result:
    """Every blueprint under paths rendered in every environment of the settings (which render)."""
    return run_paths(paths, settings, memo, progress, store)


def validate_paths(paths: list[Path], settings: RunSettings, memo: Memo | None = None,
                   progress: Progress | None = None) -> Result:
    """Every check of render_paths (the profile's included), without rendering (settings.render
    is False): result.jobs counts the valid blueprints."""
    return run_paths(paths, settings, memo, progress)
