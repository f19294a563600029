"""render and check when a few blueprints changed: what those give now, patched into the last run's
record of the repository (mpigen.cache.runs), written or compared file by file, without running
the pipeline over the others.

It answers only where its answer is the full run's, and otherwise leaves the run to the pipeline
(which writes a new record):
- every input file is one the record knows, in the same order, and either has the stat or the
  bytes it had, or gives a result of the same shape (mpigen.pipeline.results.shape: only the bytes
  of its own documents differ); at most FEW of them changed;
- every file of every folder the record names holds the bytes the record says (its stat as
  mpigen last saw it, or else its bytes: mpigen.cache.folders), the index included;
- for render, the change is small enough to be written in place (mpigen.output.commit).
Then the output folder changes only in those documents and in its index, and the folders of
the GitOps controllers not at all."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path

from mpigen.cache.fingerprint import context, key_settings
from mpigen.cache.folders import FolderRecord
from mpigen.cache.memo import File, read_key
from mpigen.cache.runs import LastRender, RunRecord, input_stat
from mpigen.errors import InputError
from mpigen.load.files import find_yaml_files
from mpigen.output.commit import IN_PLACE_SHARE
from mpigen.output.index import INDEX, patched_index
from mpigen.output.staged import StagedFiles
from mpigen.output.staleness import FolderReport, changes_report
from mpigen.output.write import patch_folder
from mpigen.pipeline.assembly import Result
from mpigen.pipeline.run import ordered
from mpigen.pipeline.settings import RunSettings
from mpigen.project.options import Setup, Warn
from mpigen.project.rendered import memo_of, settings_of

FEW = 32  # more changed files than this are rendered in parallel by the pipeline


@dataclass
class _Patch:
    """The record, and what the changed files give now: path in the output folder -> the new
    bytes of each file whose bytes change (the index not among them)."""

    record: RunRecord
    run: LastRender
    out: str  # the output folder's name among run.folders
    new: dict[str, bytes]
    restated: bool  # the record has a new stat of some input file


def render(setup: Setup, warn: Warn) -> LastRender | None:
    """Write what changed into the output folder, when the record can say what; returns the
    record as it now is (None: nothing written, the pipeline must run). A wait for the
    folder's lock goes to `warn`."""
    patch = _patch(setup)
    if patch is None or not _others_hold(setup, patch.run, patch.out):
        return None
    expected = patch.run.folders[patch.out]
    if (len(patch.new) + bool(patch.new)) * IN_PLACE_SHARE > len(expected):
        return None  # a large change is swapped in (mpigen.output.commit)
    changes = _with_index(setup.output, expected, patch.new)
    if changes is None or not patch_folder(setup.output, expected, changes, setup.cache, warn):
        return None
    expected.update((path, hashlib.sha256(data).digest()) for path, data in changes.items())
    if changes or patch.restated:
        patch.record.save(patch.run)
    return patch.run


def check(setup: Setup) -> tuple[LastRender, list[tuple[Path, FolderReport]]] | None:
    """The report of each folder (the output folder first), when the record can say what
    changed (None: the pipeline must run)."""
    patch = _patch(setup)
    if patch is None or not _others_hold(setup, patch.run, patch.out):
        return None
    expected = patch.run.folders[patch.out]
    record = FolderRecord(setup.cache, setup.output)
    if not record.holds(setup.output.as_posix(), expected):
        return None
    record.save()
    changes = _with_index(setup.output, expected, patch.new)
    if changes is None:
        return None
    reports = [(setup.output, changes_report(setup.output, changes))]
    reports += [(Path(folder), FolderReport()) for folder in patch.run.folders if folder != patch.out]
    return patch.run, reports


def remember(setup: Setup, result: Result, folders: list[tuple[Path, StagedFiles]]) -> None:
    """Record that these folders (the output folder first: each with the files a render gives
    it, the index among them) hold the render of the inputs of `result`."""
    if setup.cache is None or setup.output is None or result.inputs is None or not result.jobs:
        return
    run_context = _contexts(setup, settings_of(setup))[1]
    run = LastRender([(known.path, known.named) for known in result.inputs], {known.path: known for known in result.inputs},
              {folder.as_posix(): dict(files.sha256s()) for folder, files in folders},
              list(result.warnings), result.jobs, len(result.objects), result.folders)
    RunRecord(setup.cache, setup.output, run_context).save(run)


def _contexts(setup: Setup, settings: RunSettings) -> tuple[bytes, bytes]:
    """The context of each input file's key (mpigen.cache.fingerprint.file_key), and that of
    the record: everything else that decides the folders."""
    given = key_settings(settings.overlays, settings.options, settings.default_namespace, settings.render,
                         settings.targetings)
    config = repr(setup.config.model.model_dump()) if setup.config is not None else ""
    extra = (repr(setup.scope), repr(setup.whole_repo), repr([p.as_posix() for p in setup.paths]), config)
    return context(*given), context(*given, *extra)


def _patch(setup: Setup) -> _Patch | None:
    if setup.cache is None or setup.output is None:
        return None
    files, problems = find_yaml_files(setup.paths)
    settings = settings_of(setup)
    files_context, run_context = _contexts(setup, settings)
    record = RunRecord(setup.cache, setup.output, run_context)
    run = record.load()
    out = setup.output.as_posix()
    if problems or run is None or out not in run.folders or run.files != [(f.as_posix(), n) for f, n in files]:
        return None
    found = _changed_inputs(files, run, record.now, files_context)
    if found is None:
        return None
    changed, restated = found
    new = _new_texts(setup, settings, run, out, changed) if changed else {}
    return None if new is None else _Patch(record, run, out, new, restated or bool(changed))


def _changed_inputs(files: list[File], run: LastRender, now: int, files_context: bytes) -> tuple[list[File], bool] | None:
    """The files whose bytes are not those the record knows (None: more than FEW, or one that
    cannot be read: the pipeline says why), and whether one with its old bytes has a new stat
    (which the record now has)."""
    changed, restated = [], False
    for path, named in files:
        name = path.as_posix()
        status = input_stat(path, now)
        old = run.inputs[name]
        if status is not None and status == old.stat:
            continue
        try:
            status, key, _ = read_key((path, named), files_context, now)  # stated again, just before the read
        except InputError:
            return None
        if key == old.key:
            restated = restated or status != old.stat
            run.inputs[name] = replace(old, stat=status)
        elif len(changed) == FEW:
            return None
        else:
            changed.append((path, named))
    return changed, restated


def _new_texts(setup: Setup, settings: RunSettings, run: LastRender, out: str,
               changed: list[File]) -> dict[str, bytes] | None:
    """The new bytes of each output file of the changed files whose bytes change (None: a
    result of another shape)."""
    memo = memo_of(setup, settings)
    expected, new = run.folders[out], {}
    for file, result in zip(changed, list(ordered(changed, settings, memo))):
        name = file[0].as_posix()
        known = memo.input(file, result.shape)
        if known is None or known.shape is None or known.shape != run.inputs[name].shape:
            return None
        run.inputs[name] = known
        for o in (o for results in result.per_env for r in results for o in r.objects):
            target = o.out_path
            if target not in expected:
                return None
            if o.digest != expected[target]:
                new[target] = o.text.encode("utf-8")
    return new


def _with_index(out: Path, expected: dict[str, bytes], new: dict[str, bytes]) -> dict[str, bytes] | None:
    """The new bytes of each changed file of the output folder, and of its index when any
    changes (None: the index is not the one the record knows)."""
    if not new:
        return {}
    index = _patched_index(out, expected, new)
    return None if index is None else {**new, INDEX: index}


def _patched_index(out: Path, expected: dict[str, bytes], changes: dict[str, bytes]) -> bytes | None:
    """The output folder's index with the new digest of each changed file (None: the index
    is not the one the record knows)."""
    try:
        with open(out / INDEX, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if hashlib.sha256(data).digest() != expected.get(INDEX):
        return None
    return patched_index(data, {path: (expected[path].hex(), hashlib.sha256(text).hexdigest())
                                for path, text in changes.items()})


def _others_hold(setup: Setup, run: LastRender, out: str) -> bool:
    """Whether the folders of the GitOps controllers hold what the record says."""
    for folder, expected in run.folders.items():
        if folder == out:
            continue
        record = FolderRecord(setup.cache, Path(folder))
        if not record.holds(folder, expected):
            return False
        record.save()
    return True
