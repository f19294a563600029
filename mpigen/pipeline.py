"""The whole pipeline for a set of paths: load -> (overlay) -> validate -> compile -> render -> sort.

Each stage is a pure function of the previous stage's output; this module only chains
them and carries each object's provenance (which blueprint and overlay it came from).
With overlays, every blueprint is rendered once per overlay; the output of each overlay
is its own environment (its own folder under -o, with its own kustomization.yaml).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from mpigen.errors import Diagnostic, InputError


@dataclass(frozen=True)
class RenderedObject:
    obj: dict
    source: str                 # the blueprint's path, as shown to the user
    job: str                    # the blueprint's metadata.name
    env: str = ""               # the overlay's name ("" without overlays): the output sub-folder
    overlay_source: str = ""    # the overlay file's path

    @property
    def comment(self) -> str:
        sources = [self.source] + ([self.overlay_source] if self.overlay_source else [])
        shown = [s if s.isprintable() else json.dumps(s) for s in sources]  # a line break must not end the comment
        return "Source: " + ", ".join(shown)


@dataclass
class Result:
    objects: list[RenderedObject] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    jobs: int = 0
    envs: list[str] = field(default_factory=list)  # the environments rendered, in order


def validate_paths(paths: list[Path], overlays=None):
    """[(overlay or None, checked blueprints)] and warnings; raises InputError with every
    problem of every blueprint under every overlay."""
    from mpigen.load import load_blueprints
    from mpigen.overlay import Usage, apply
    from mpigen.validate import validate_documents

    docs, problems = load_blueprints(paths)
    if not overlays:
        checked, warnings = validate_documents(docs, problems)
        return [(None, checked)], warnings
    usage = Usage()
    results, all_problems, warnings = [], list(problems), []
    for overlay in overlays:
        patched = [apply(overlay, doc, usage) for doc in docs]
        try:
            checked, found = validate_documents(patched, [])
        except InputError as exc:
            all_problems.extend(exc.diagnostics)
            continue
        warnings.extend(found)
        results.append((overlay, checked))
    if any(p.severity == "error" for p in all_problems):
        raise InputError([p for p in all_problems if p.severity == "error"])
    warnings = sorted(set(warnings + [p for p in all_problems if p.severity != "error"] + usage.unused(overlays)))
    return results, warnings


def render_paths(paths: list[Path], options, overlays=None) -> Result:
    from mpigen.compile import compile_blueprint
    from mpigen.emit import sort_key
    from mpigen.render import render_job

    environments, warnings = validate_paths(paths, overlays)
    result = Result(warnings=warnings)
    for overlay, checked in environments:
        env = overlay.name if overlay is not None else ""
        overlay_source = overlay.doc.path if overlay is not None else ""
        rendered: list[RenderedObject] = []
        for item in checked:
            job = compile_blueprint(item.blueprint)
            for obj in render_job(job, options):
                rendered.append(RenderedObject(obj, item.document.path, job.metadata.name, env, overlay_source))
        rendered.sort(key=lambda r: sort_key(r.obj))
        result.objects.extend(rendered)
        result.jobs += len(checked)
        result.envs.append(env)
    return result
