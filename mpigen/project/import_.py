"""import: job manifests turned into blueprints, one per job (mpigen.importer), written all or
nothing."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from mpigen.errors import Diagnostic, InputError
from mpigen.importer.blueprints import blueprints
from mpigen.importer.new_files import write_new_files
from mpigen.project.repository import find_config


def import_(files: list[str], output: Path | None, strict: bool,
            warn: Callable[[Iterable[Diagnostic]], None]) -> dict[str, str]:
    """The blueprints of the job manifests in the files, by path (<namespace>/<name>.yaml), in path
    order; also written under `output` (new files only) when it is given. What a blueprint
    cannot express is a warning (an error when `strict`). Raises InputError, writing nothing."""
    texts, problems = blueprints(files, strict)
    errors = [d for d in problems if d.severity == "error"]
    if errors:
        raise InputError(errors)
    warn(sorted(problems))
    texts = {k: texts[k] for k in sorted(texts)}
    if output is not None:
        write_new_files(output, {k: (schema_line(output / k) + text).encode("utf-8") for k, text in texts.items()})
    return texts


# The blueprint's JSON Schema, in the repository (docs/blueprints.md, "mpigen schema"), and a
# file's first line naming it for an editor, as the examples start.
SCHEMA = Path("schemas") / "blueprint.schema.json"
STREAM_SCHEMA_LINE = f"# yaml-language-server: $schema=../{SCHEMA.as_posix()}\n"  # a blueprint in blueprints/


def schema_line(file: Path) -> str:
    """The `# yaml-language-server: $schema=...` line of a blueprint written at `file`: the
    path from its folder to the repository's schemas/ (the repository: the folder of the
    mpigen.yaml a run here uses, else the working folder)."""
    config = find_config()
    root = config.parent if config is not None else Path(os.getcwd())
    relative = os.path.relpath(root / SCHEMA, os.path.abspath(file.parent))
    return f"# yaml-language-server: $schema={Path(relative).as_posix()}\n"
