"""The whole pipeline for a set of paths: load -> validate -> compile -> render -> sort.

Each stage is a pure function of the previous stage's output; this module only chains
them and carries each object's provenance (which blueprint it came from).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from mpigen.errors import Diagnostic


@dataclass(frozen=True)
class RenderedObject:
    obj: dict
    source: str  # the blueprint's path, as shown to the user
    job: str     # the blueprint's metadata.name

    @property
    def comment(self) -> str:
        source = self.source
        if not source.isprintable():  # a file name with a line break must not end the comment
            source = json.dumps(source)
        return f"Source: {source}"


@dataclass
class Result:
    objects: list[RenderedObject] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    jobs: int = 0


def validate_paths(paths: list[Path]):
    """Checked blueprints and warnings; raises InputError with every problem found."""
    from mpigen.load import load_blueprints
    from mpigen.validate import validate_documents

    docs, problems = load_blueprints(paths)
    return validate_documents(docs, problems)


def render_paths(paths: list[Path], options) -> Result:
    from mpigen.compile import compile_blueprint
    from mpigen.emit import sort_key
    from mpigen.render import render_job

    checked, warnings = validate_paths(paths)
    rendered: list[RenderedObject] = []
    for item in checked:
        job = compile_blueprint(item.blueprint)
        for obj in render_job(job, options):
            rendered.append(RenderedObject(obj, item.document.path, job.metadata.name))
    rendered.sort(key=lambda r: sort_key(r.obj))
    return Result(rendered, sorted(warnings), len(checked))
