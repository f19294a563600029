"""check: the project rendered (its texts kept in a spill file, or in the cache where they come
from it) and compared with its output folder, file by file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mpigen.errors import InputError, UsageError
from mpigen.emit.spill import Spill
from mpigen.output.changes import edited_note
from mpigen.output.plan import plan_folder
from mpigen.output.staleness import FolderReport, compare_folder
from mpigen.pipeline.run import Progress
from mpigen.project import incremental
from mpigen.project.options import Flags, resolve
from mpigen.project.render import companion_files, output_files
from mpigen.project.rendered import Warn, rendered
from mpigen.project.repository import NO_CONFIG
from mpigen.project.strict import input_warnings


@dataclass(frozen=True)
class Checked:
    """Each folder compared (the output folder first, then the companion folders) and how
    many jobs were rendered."""

    reports: list[tuple[Path, FolderReport]]
    jobs: int


def check(flags: Flags, warn: Warn, progress: Progress | None = None) -> Checked:
    """Compare the output folder (and the companion folders of the whole repository) with a
    fresh render. Raises InputError and UsageError."""
    setup = resolve(flags, warn)
    if setup.output is None:
        where = f"{NO_CONFIG} to name it" if setup.config is None else f"{setup.config.path} names it for no PATH"
        raise UsageError(f"say which output folder to check: -o DIR ({where})")
    patched = incremental.check(setup)
    if patched is not None:
        run, reports = patched
        input_warnings(setup, run.warnings, warn)
        return Checked(reports, run.jobs)
    spill = Spill()
    try:
        result = rendered(setup, warn, progress, spill)
        files = output_files(result, spill, setup.cache)
        plan = plan_folder(setup.output, files, setup.scope)
        if plan.problems:
            raise InputError(plan.problems + plan.warnings)
        warn(plan.warnings)
        reports = [(setup.output, compare_folder(setup.output, plan, setup.cache))]
    finally:
        spill.close()
    planned = [(setup.output, files)]
    for folder, texts in companion_files(setup, result):
        companion = plan_folder(folder, texts)
        warn(companion.warnings)
        reports.append((folder, compare_folder(folder, companion, setup.cache)))
        planned.append((folder, companion.files))
    warn([edited_note(folder, path) for folder, report in reports for path in report.edited])
    if not any(report.stale for _, report in reports):  # the folders are the render of the inputs
        incremental.remember(setup, result, planned)
    return Checked(reports, result.jobs)
