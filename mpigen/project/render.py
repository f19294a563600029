"""render: the project rendered, then written to its output folder (or returned for stdout), with
the GitOps controllers' companion folders of the whole repository (check compares them too).

The documents are not held in memory: a new output folder is written by the render's workers
as they go (mpigen.output.staged), and otherwise the texts wait in a spill file
(mpigen.emit.spill) until they are written or printed; only each object's key and place are
kept."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from mpigen.cache.kustomizations import kustomizations
from mpigen.emit.companions import argocd_applications, flux_kustomizations
from mpigen.errors import InputError, UsageError
from mpigen.emit.layout import folder_files
from mpigen.emit.spill import Spill
from mpigen.output.failure import WriteFailed, machine_error
from mpigen.output.write import refusals, write_folder
from mpigen.output.safety import refuse_overlap
from mpigen.output.staged import StagedFiles, StagedFolder
from mpigen.emit.rendered import RenderedObject, TextStore
from mpigen.pipeline.assembly import Result
from mpigen.pipeline.run import Progress
from mpigen.project import incremental
from mpigen.project.options import Flags, Setup, resolve
from mpigen.project.rendered import Warn, rendered, settings_of
from mpigen.overlay.resolve import bare_name
from mpigen.project.repository import CREATE_CONFIG, NO_CONFIG
from mpigen.render.target import FluxSteps
from mpigen.pipeline.step import flux_layouts


@dataclass(frozen=True)
class Rendered:
    """What `render` made (how many jobs and objects, in which sub-folders: the environments', and
    those of their clusters), and the output folder it wrote it into (None: nothing written, the
    documents are for stdout)."""

    jobs: int
    objects: int
    envs: list[str]
    output: Path | None
    result: Result | None = None  # for stdout: the objects, their texts kept in `store`
    store: object = None  # (mpigen.emit.rendered.TextStore)
    companions: tuple[tuple[str, Path], ...] = ()  # (what, folder) of each companion folder written

    def documents(self) -> Iterator[bytes]:
        """The bytes of each object's document, in output order (for --stdout); then the
        store is closed."""
        try:
            for item in self.result.objects:
                yield item.text.encode("utf-8") if item.ref is None else self.store.read(item.path, item.ref)
        finally:
            self.store.close()


def render(flags: Flags, stdout: bool, warn: Warn, progress: Progress | None = None) -> Rendered:
    """Render the project (telling `progress` how far it is); unless `stdout`, write its output
    folder and the companion folders in place of what they held. Raises InputError (nothing
    written) and UsageError."""
    setup = resolve(flags, warn)
    if not stdout and setup.output is None:
        if setup.config is None:
            raise UsageError(f"{NO_CONFIG} to name the output folder: say where the output goes, mpigen render "
                             f"PATH --stdout or mpigen render PATH -o DIR, {CREATE_CONFIG}")
        raise UsageError(f"say where the output goes: --stdout or -o DIR ({setup.config.path} names the output "
                         "folder of the whole repository, rendered with no PATH)")
    if stdout:
        spill = Spill()
        result = rendered(setup, warn, progress, spill)
        return Rendered(result.jobs, len(result.objects), result.envs, None, result, spill)
    refuse_overlap(setup.output, setup.inputs)
    _refuse_part_of_the_repository(flags, setup)
    # --strict: a full run, whose warnings are known before anything is written (a patch in
    # place writes first and learns the warnings of the files it renders as it goes).
    patched = None if setup.strict else incremental.render(setup, warn)
    if patched is not None:
        warn(patched.warnings)
        return Rendered(patched.jobs, patched.objects, patched.envs, setup.output,
                        companions=companion_folders(setup))
    store = _store(setup.output)
    try:
        result = _rendered_into(setup, warn, progress, store)
        _write(setup, result, store, warn)
    finally:
        if isinstance(store, StagedFolder):
            store.remove()
        else:
            store.close()
    return Rendered(result.jobs, len(result.objects), result.folders, setup.output,
                    companions=companion_folders(setup))


def _refuse_part_of_the_repository(flags: Flags, setup: Setup) -> None:
    """A render with PATH into the output folder mpigen.yaml owns, or a folder in it or around
    it: that folder holds the render of every blueprint under every overlay of mpigen.yaml.
    Without --overlay the run owns the whole folder, and would replace every environment's
    folder with these blueprints un-overlaid; with --overlay, blueprints other than
    mpigen.yaml's would replace that environment's jobs with these alone. Refused (UsageError,
    nothing written), with the commands that do what was meant. `render BLUEPRINTS --overlay
    dev -o OUT`, mpigen.yaml's own blueprints for one of its environments, writes that
    environment's folder only, and is what `mpigen render --overlay dev` does."""
    config = setup.config
    if config is None or not flags.paths or setup.output is None:
        return
    owned = Path(os.path.realpath(config.model.output))
    target = Path(os.path.realpath(setup.output))
    if target != owned and owned not in target.parents and target not in owned.parents:
        return
    partial = sorted(map(os.path.realpath, setup.paths)) != sorted(map(os.path.realpath, config.model.blueprints))
    if setup.scope != ("",) and not partial:
        return
    paths = " ".join(p.as_posix() for p in setup.paths)
    environments = ", ".join(bare_name(spec) or Path(spec).name for spec in config.model.overlays)
    holds = f"every blueprint under each of its overlays ({environments})" if environments else "every blueprint"
    raise UsageError(f"{setup.output.as_posix()} is {'' if target == owned else 'in '}the output folder of "
                     f"{config.path}, {config.model.output}, which holds the render of {holds}: a render of "
                     f"{paths} alone would replace it. Render the repository into it with `mpigen render` (no "
                     f"PATH; `mpigen render --overlay NAME` for one environment), or these blueprints elsewhere: "
                     f"`mpigen render {paths} -o OTHER_DIR` or `mpigen render {paths} --stdout`")


def _store(out: Path) -> StagedFolder | Spill:
    """A new output folder is written by the render's workers; an existing one is compared
    with what the render kept in its spill."""
    if not os.path.lexists(out) and out.parent.is_dir():
        try:
            return StagedFolder(out)
        except WriteFailed as failed:
            raise machine_error(out, failed) from None
    return Spill()


def _rendered_into(setup: Setup, warn: Warn, progress: Progress | None, store: StagedFolder | Spill) -> Result:
    try:
        return rendered(setup, warn, progress, store)
    except OSError as exc:
        if isinstance(store, StagedFolder):
            raise machine_error(setup.output, store.failed(exc)) from None
        raise


def _write(setup: Setup, result: Result, store: TextStore, warn: Warn) -> None:
    """Write the output folder and the companion folders."""
    companions = companion_files(setup, result)
    for folder, _ in companions:
        refuse_overlap(folder, setup.inputs)
        refuse_overlap(folder, [setup.output], "the output folder")
    output = output_files(result, store, setup.cache)
    others = [(folder, StagedFiles(None, {}, theirs)) for folder, theirs in companions]
    # A companion folder that cannot take its files (one in the way, one edited by hand) stops
    # the run before the output folder changes, and the output folder's problems are named
    # too; each folder is then written in one step of its own, the output folder first.
    refused = [d for folder, files in others
               for d in refusals(folder, files, ("",), setup.cache, setup.discard_edits, warn)]
    if refused:
        raise InputError(refused + refusals(setup.output, output, setup.scope, setup.cache, setup.discard_edits, warn))
    warn(write_folder(setup.output, output, setup.scope, setup.cache, setup.discard_edits, warn))
    for folder, files in others:
        warn(write_folder(folder, files, ("",), setup.cache, setup.discard_edits, warn))
    incremental.remember(setup, result, [(setup.output, output), *others])


def output_files(result: Result, store: TextStore, cache: Path | None) -> StagedFiles:
    """The files of the output folder a render gives (its index left out), each text read
    from `store` where the render put it there (mpigen.emit.layout.folder_files), each
    kustomization.yaml made once per cache folder (mpigen.cache.kustomizations)."""
    refs: dict[str, RenderedObject] = {}
    texts = folder_files(result.objects, result.envs, refs, kustomizations(cache))
    return StagedFiles(store, refs, texts)


def companion_folders(setup: Setup) -> tuple[tuple[str, Path], ...]:
    """(what, folder) of each companion folder mpigen.yaml asks for, written when the whole
    repository is rendered into its output folder (see mpigen.emit.companions)."""
    config = setup.config
    if config is None or not setup.whole_repo or setup.output is None:
        return ()
    argocd, flux = config.model.argocd, config.model.flux
    return ((("Argo CD Applications", Path(argocd.applications)),) if argocd is not None else ()) + (
        (("Flux Kustomizations", Path(flux.kustomizations)),) if flux is not None else ())


def companion_files(setup: Setup, result: Result) -> list[tuple[Path, dict[str, str]]]:
    """[(folder, files)] of the GitOps controllers' objects mpigen.yaml asks for, when the
    whole repository is rendered into its output folder (see mpigen.emit.companions)."""
    makers = {"Argo CD Applications": lambda: argocd_applications(setup.config.model.argocd, setup.output, result,
                                                                  setup.overlays),
              "Flux Kustomizations": lambda: flux_kustomizations(setup.config.model.flux, setup.output, result,
                                                                      _flux_steps(setup), setup.overlays)}
    return [(folder, makers[what]()) for what, folder in companion_folders(setup)]


def _flux_steps(setup: Setup) -> Callable[[str], tuple[FluxSteps, ...]]:
    """The Flux steps of each environment's targets that apply in steps (by the environment's name)."""
    steps = {env.name: flux_layouts(env) for env in settings_of(setup).environments}
    return steps.__getitem__
