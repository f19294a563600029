"""`mpigen import`, the proof of an import (what a decompiler asks for: Proof, mpigen.decompile.port):
the blueprint rendered with the target whose decompiler read the job, and every value of each
document given (the job, and what it references when mpigen wrote that too) that the
render does not give back reported at its line, as is every value the render adds.
Whatever the import's reading missed is found here, so the import is lossless or says
where it is not."""

from __future__ import annotations

from dataclasses import replace

from mpigen.compile.blueprint import compile_blueprint
from mpigen.decompile.mpijob import SERVER_METADATA
from mpigen.decompile.port import Imported
from mpigen.decompile.reader import Reader
from mpigen.emit.flux_substitution import kept_from_substitution
from mpigen.emit.yaml import dump_object
from mpigen.errors import error
from mpigen.kube.labels import mpigens_own
from mpigen.load.document import Loc
from mpigen.load.parser import parse
from mpigen.render.target import Lifecycle, Options
from mpigen.render.targets import RESERVED, render_job, target_checks
from mpigen.validate.document import validate_document

# What a cluster writes into an object (kubectl get -o yaml): not the user's.
IGNORED = {("status",), *(("metadata", key) for key in SERVER_METADATA)}
LIST_MAP_KEYS = {"runtimePatches": "manager"}


def rendered(target: str, blueprint: dict, r: Reader, options: Options | None = None) -> list[dict] | None:
    """The blueprint's objects under the target, as mpigen writes them (with the environment's `options` the objects
    given were rendered with, when their importer tells them), or None when mpigen refuses the
    blueprint (each reason an error at the job's metadata.name)."""
    options = replace(options, target=target) if options is not None else Options(target=target)
    doc = parse(dump_object(blueprint), "imported")[0]
    model, diagnostics = validate_document(doc, RESERVED)
    job = compile_blueprint(model) if model is not None else None
    if job is not None:
        diagnostics += target_checks(doc, model, job, options)
    errors = [d for d in diagnostics if d.severity == "error"]
    for diagnostic in errors:
        r.refuse(("metadata", "name"), f"the imported blueprint cannot be rendered for the {target} target: "
                                       f"{diagnostic.message}")
    if errors or model is None:
        return None
    spec = model.spec
    objects = render_job(job, options, Lifecycle(spec.state, spec.run, spec.runPolicy.ttlSecondsAfterFinished))
    return [kept_from_substitution(obj) for obj in objects]  # as mpigen writes them


def compare(r: Reader, given, made, reported: set, loc: Loc = ()) -> None:
    """Report where `made` (the render) differs from `given` (the document of r), at the
    given document's lines; nothing under a place reported already (its mark in `reported`)."""
    if loc in IGNORED or _reported(r, loc, reported):
        return
    if isinstance(given, dict) and isinstance(made, dict):
        _mappings(r, given, made, reported, loc)
    elif isinstance(given, list) and isinstance(made, list):
        _lists(r, given, made, reported, loc)
    elif not _same(given, made):
        r.differs(loc, f"the imported blueprint renders {_shown(made)} here, not {_shown(given)}")


def _mappings(r: Reader, given: dict, made: dict, reported: set, loc: Loc) -> None:
    for key, value in given.items():
        if _ours(loc, key):
            continue
        if key not in made:
            if loc + (key,) not in IGNORED and not _reported(r, loc + (key,), reported):
                r.lost(loc + (key,), f"{key}: {_shown(value)}")
            continue
        compare(r, value, made[key], reported, loc + (key,))
    for key, value in made.items():
        if key not in given and not _ours(loc, key) and not _default(loc, key, value):
            r.differs(loc, f"the imported blueprint renders {key}: {_shown(value)} here too")


def _lists(r: Reader, given: list, made: list, reported: set, loc: Loc) -> None:
    names = [_name(item, loc) for item in given], [_name(item, loc) for item in made]
    if all(n is not None for n in names[0] + names[1]) and len(set(names[0])) == len(names[0]):
        by_name = dict(zip(names[1], made))
        for index, item in enumerate(given):
            if names[0][index] not in by_name:
                if not _reported(r, loc + (index,), reported):
                    r.lost(loc + (index,), f"{names[0][index]!r}")
            else:
                compare(r, item, by_name[names[0][index]], reported, loc + (index,))
        extra = [n for n in names[1] if n not in names[0]]
        if extra:
            r.differs(loc, f"the imported blueprint renders {', '.join(map(repr, extra))} here too")
        elif [n for n in names[1] if n in names[0]] != [n for n in names[0] if n in names[1]]:
            r.differs(loc, f"the imported blueprint renders these in another order: {', '.join(names[1])}")
        return
    for index, item in enumerate(given):
        if index >= len(made):
            if not _reported(r, loc + (index,), reported):
                r.lost(loc + (index,), _shown(item))
        else:
            compare(r, item, made[index], reported, loc + (index,))
    if len(made) > len(given):
        r.differs(loc, f"the imported blueprint renders {len(made) - len(given)} more item(s) here: "
                       f"{_shown(made[len(given):])}")


def _reported(r: Reader, loc: Loc, reported: set) -> bool:
    """Whether the import reported something at loc or around it already."""
    return any(r.doc.key_marks.get(loc[:n]) in reported for n in range(1, len(loc) + 1))


def _ours(loc: Loc, key) -> bool:
    """mpigen's own labels and annotations, which a render writes from the blueprint's name."""
    return loc[-1:] in (("labels",), ("annotations",)) and isinstance(key, str) and (
        mpigens_own(key))


def _default(loc: Loc, key, value) -> bool:
    """What a render adds that the API server reads the same without it, or that is only
    mpigen's own: the default namespace, labels and annotations of mpigen's alone."""
    if loc == ("metadata",) and key == "namespace":
        return value == "default"
    return key in ("labels", "annotations") and isinstance(value, dict) and all(_ours(loc + (key,), k) for k in value)


def _name(item, loc: Loc):
    """An item's key in its list: its name, or in a list-map of another key (a TrainJob's
    runtimePatches, by manager: Trainer v2.3.0 trainjob_types.go, listMapKey=manager) that key's value."""
    key = LIST_MAP_KEYS.get(loc[-1] if loc else None, "name")
    return item.get(key) if isinstance(item, dict) and isinstance(item.get(key), str) else None


def _same(given, made) -> bool:
    """Equal, a quantity written as a number equal to the same one as a string."""
    if given == made:
        return True
    return (isinstance(given, (int, float)) and not isinstance(given, bool) and isinstance(made, str)
            and str(given) == made)


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def prove(target: str, blueprint: dict, given: list[tuple[Reader, dict]], reported: set,
          options: Options | None = None) -> None:
    """Render the blueprint with the target (and `options`, as `rendered`) and compare each
    document given (a reader of it, and its data as the cluster reads it: with its defaults)
    with the rendered object of its kind; the blueprint's refusals are reported by the first
    reader (the job's)."""
    objects = rendered(target, blueprint, given[0][0], options)
    if objects is None:
        return
    made = {obj["kind"]: obj for obj in objects}
    for reader, data in given:
        kind = data.get("kind")
        compare(reader, data, made.get(kind, {}) if isinstance(kind, str) else {}, reported)


def proved(target: str, imported: Imported, strict: bool) -> Imported:
    """The import once its proof is done (imported.proof): the readers' problems, the proof's
    among them, every warning an error with --strict but the proof's notes; no blueprint when
    any is an error."""
    proof = imported.proof
    prove(target, imported.blueprint, proof.documents, set(proof.reported),
          options=Options(target=target, **proof.options))
    problems = [d for reader, _ in proof.documents for d in reader.problems]
    if strict:
        problems = [error(d.mark, d.message) if d.severity == "warning" and d not in proof.notes else d
                    for d in problems]
    failed = any(d.severity == "error" for d in problems)
    return Imported({} if failed else imported.blueprint, problems)
