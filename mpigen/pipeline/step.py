"""The pipeline's step for one blueprint file: load -> (overlay) -> validate -> compile ->
check -> render -> emit, under every environment of the run, a pure function of the run's settings
and the file's text to a FileResult; and the step of a slice of files, each through the
cache's memo, the objects' texts put in the render's store."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import NamedTuple

from mpigen.cache.memo import Memo, Read
from mpigen.check.stage import check_job
from mpigen.compile.blueprint import compile_blueprint
from mpigen.compile.mpijob import MPIJob
from mpigen.emit.comments import OBJECT as GENERATED, SHARED_SOURCE, source_comment
from mpigen.emit.flux_substitution import kept_document
from mpigen.emit.install_order import sort_key
from mpigen.emit.layout import object_path, step_placement
from mpigen.emit.rendered import Admitted, RenderedObject, TextStore
from mpigen.emit.yaml import JSON_BYTES_PER_BYTE
from mpigen.errors import Diagnostic, Mark
from mpigen.formats.blueprint import Blueprint
from mpigen.kube.pod_security import PRIVILEGED
from mpigen.load.blueprints import load_files
from mpigen.load.document import Document
from mpigen.overlay.apply import Usage, apply, with_namespace
from mpigen.pipeline.oversize import size_errors, size_marks
from mpigen.pipeline.results import DocResult, Expected, FileResult, Named, UsedPatch, shape
from mpigen.pipeline.settings import Environment, RunSettings
from mpigen.render.target import FluxSteps, Lifecycle, Options
from mpigen.render.kueue import ignored_paths, renders_nothing
from mpigen.kube.kueue_limits import pod_set_errors
from mpigen.render.refusals import annotation_problems, oversized, pod_security_problems, writes_apparmor
from mpigen.render.watched import Watched, with_job
from mpigen.render.targets import (APPLIED_FIRST, IMPORTABLE, RESERVED, expected_objects, kind_facts, named_objects,
                                   kueue_pod_sets, render_job, target_rules)
from mpigen.validate.document import attributed, validate_document, written_problems

SCHEDULING_QUEUE = ("spec", "scheduling", "queue")
File = tuple[Path, bool]  # a file to read, and whether the user named it (mpigen.load.files.find_yaml_files)


@dataclass
class _Pending:
    """A valid blueprint waiting to be rendered in one environment, with its document as
    patched there (whose marks are read only if the cluster would refuse the render)."""

    blueprint: Blueprint
    job: MPIJob  # compiled once: the checks judge its pods, the target renders it
    source: str
    env: Environment
    options: Options  # the environment's for the job's target (mpigen.pipeline.targeting)
    doc: Document  # as patched for the environment: where what the cluster would refuse is reported
    pod_security: bool  # the pods are checked against a Pod Security level
    queue: Mark | None = None  # spec.scheduling.queue's value, where the job is queued (mpigen.kube.kueue_limits)


class _Validated(NamedTuple):
    """A document's result in one environment, and what is left to render of it (None: nothing)."""

    result: DocResult
    pending: _Pending | None


class Placement(NamedTuple):
    """Where an object goes in its environment's folder, the kustomize root of its own it
    is in ("" for none), whether it is a worker StatefulSet with replicas > 0, and (argocd)
    what Kueue writes into it once it admits the job."""

    path: str
    root: str
    running_workers: bool
    admitted: Admitted | None = None


def file_results(files: list[File], settings: RunSettings, memo: Memo, store: TextStore | None) -> list[FileResult]:
    """What each of these files gives (through the memo: stored in the cache when it has one),
    the objects' texts put in `store` when there is one."""
    out = []
    compute = partial(file_result, settings, shaped=memo.store is not None)
    for file in files:
        one = memo.result(file, compute)
        one.per_env = [[replace(r, objects=stored(r.objects, store)) if r.objects else r for r in results]
                       for results in one.per_env]
        out.append(one)
    return out


def file_result(settings: RunSettings, file: File, read: Read, shaped: bool = True) -> FileResult:
    """What one file gives (its text from `read`), with its shape where it is `shaped` (only a
    run with a cache reads it: mpigen.cache.memo.Memo.input). Only the results are kept, never
    the loaded documents (with the marks of every key and value, they are the bulk): each is
    rendered in every environment as soon as it is validated there, and dropped."""
    result = FileResult([], [[] for _ in settings.environments], set())
    docs, result.problems = load_files([file], read, IMPORTABLE)
    docs.reverse()
    while docs:
        doc = docs.pop()  # and no longer held here
        for env_results, validated_here in zip(result.per_env, _environments(doc, settings, result.used)):
            if validated_here.pending is not None:
                objects, refused, watched = _render(validated_here.pending, settings.render, settings.watched)
                validated_here.result.objects = [] if refused else objects
                validated_here.result.watched = None if refused else watched
                validated_here.result.diagnostics.extend(refused)
            env_results.append(validated_here.result)
    result.shape = shape(result) if shaped else None
    return result


def stored(objects: list[RenderedObject], store: TextStore | None) -> list[RenderedObject]:
    """The objects with their texts put in the render's store, if it has one (only each object's
    key and place go back to the parent); a shared cluster-scoped object keeps its text."""
    if store is None:
        return objects
    return [o._replace(text="", ref=store.put(o.out_path, o.text)) if not o.shared else o for o in objects]


def _environments(doc: Document, settings: RunSettings,
                  used: set[UsedPatch]) -> list[_Validated]:
    """What one blueprint document gives under each environment.

    Every value the file states must be valid as written, even where an overlay replaces
    it: when every overlay changed the blueprint, its own values are checked once more
    as written (mpigen.validate.document.written_problems), reported once at the blueprint's
    line. Otherwise one environment validates the file's values as they are."""
    if settings.default_namespace:
        doc = with_namespace(doc, settings.default_namespace)
    usage = Usage(used)
    patched = [apply(env.overlay, doc, usage) if env.overlay is not None else doc for env in settings.environments]
    written = written_problems(doc, RESERVED) if all(p is not doc for p in patched) else []
    return [_validated(p, env, written, used) for p, env in zip(patched, settings.environments)]


def _validated(patched: Document, env: Environment, written: list[Diagnostic], used: set[UsedPatch]) -> _Validated:
    """The document validated, compiled and checked in one environment (with the options of the
    job's target there): its result, and what is left to render of it."""
    blueprint, diagnostics = validate_document(patched, RESERVED)
    diagnostics = written + diagnostics
    job = compile_blueprint(blueprint) if blueprint is not None else None
    options = env.options
    if job is not None and options is not None:  # the check stage, under the job's target and profile
        options = env.job_options(blueprint.metadata.name, blueprint.metadata.labels, used)
        diagnostics += check_job(patched, blueprint, job, options.gitops, target_rules(options))
    if any(d.severity == "error" for d in diagnostics):
        blueprint = None
    result = DocResult([attributed(d, patched) for d in diagnostics])
    if blueprint is None:
        return _Validated(result, None)
    result.job = (blueprint.metadata.namespace, blueprint.metadata.name)
    result.name_mark = patched.value_mark(("metadata", "name"))
    result.expects = _expected(patched, blueprint, options)
    result.named = _named(patched, blueprint, options)
    checked = options is not None and options.pod_security not in (None, PRIVILEGED)
    queue = patched.value_mark(SCHEDULING_QUEUE) if blueprint.spec.scheduling.queue is not None else None
    pending = _Pending(blueprint, job, patched.path, env, options, patched, checked, queue)
    return _Validated(result, pending)


def _expected(doc: Document, blueprint: Blueprint, options: Options | None) -> list[Expected]:
    """The objects the job says the cluster has, keyed as the objects other jobs render."""
    if options is None:
        return []
    out = []
    for obj, mark in expected_objects(doc, blueprint, options):
        meta = obj["metadata"]
        where = f"{meta['namespace']}/{meta['name']}" if "namespace" in meta else meta["name"]
        out.append((sort_key(obj, APPLIED_FIRST), f"{obj['kind']} {where}", mark))
    return out


def _named(doc: Document, blueprint: Blueprint, options: Options | None) -> list[Named]:
    """The objects the job writes under a name one of its fields gives, keyed as rendered objects."""
    if options is None:
        return []
    return [(sort_key(obj, APPLIED_FIRST), where, mark) for obj, where, mark in named_objects(doc, blueprint, options)]


def _render(pending: _Pending, emit: bool, asked: bool = False) -> tuple[list[RenderedObject], list[Diagnostic],
                                                                         Watched | None]:
    """The job's objects as the run carries them (none unless `emit`: `mpigen validate` asks only
    whether the cluster would take them), or none and why the cluster would refuse them; and
    what its alerts watch, where the environment is monitored or the run `asked` for it."""
    blueprint, overlay, options = pending.blueprint, pending.env.overlay, pending.options
    comment = source_comment(pending.source, overlay.doc.path if overlay is not None else "")
    spec = blueprint.spec
    lifecycle = Lifecycle(spec.state, spec.run, spec.runPolicy.ttlSecondsAfterFinished)
    job = pending.job
    objects = render_job(job, options, lifecycle)
    # The documents first, where the run writes them: their sizes bound the objects' JSON, which
    # the size checks then need not encode.
    texts = [kept_document(obj, comment if obj["metadata"].get("namespace") else SHARED_SOURCE, GENERATED)
             for obj in objects] if emit else None
    encoded = [text.encode("utf-8") for text in texts] if texts is not None else None
    bounds = [JSON_BYTES_PER_BYTE * len(data) for data in encoded] if encoded is not None else None
    too_large = oversized(objects, bounds)
    refused = size_errors(too_large, blueprint, size_marks(pending.doc), pending.source) if too_large else []
    if pending.queue is not None:
        refused += pod_set_errors(kueue_pod_sets(objects), options.kueue_version, pending.queue)
    if pending.pod_security:
        refused += pod_security_problems(objects, options, pending.doc, blueprint, job, lifecycle)
    if writes_apparmor(pending.doc):
        refused += annotation_problems(objects, pending.doc)
    if refused or not emit:
        return [], refused, None
    rendered = []
    beside_steps = stepped(pending.env)
    for obj, text, data in zip(objects, texts, encoded):
        placement = placed_object(obj, options, blueprint.metadata.name, beside_steps)
        rendered.append(_carried(obj, text, data, pending.env.name, placement))
    return rendered, [], _watched(objects, pending, lifecycle, asked)


def _watched(objects: list[dict], pending: _Pending, lifecycle: Lifecycle, asked: bool) -> Watched | None:
    """What the job's alerts watch (None: its environment is not monitored and the run did not
    ask for it, or its target has none). A queued job that is `completed` renders nothing
    (mpigen.render.kueue); asked for, its names are those of the run it had, rendered as if
    running (its state stays `completed`): `mpigen status` finds what the cluster still has of it."""
    options = pending.options
    if options.monitoring is None and not asked:
        return None
    if not objects and asked and renders_nothing(pending.job, lifecycle) and lifecycle.state != "archived":
        objects = render_job(pending.job, options, replace(lifecycle, state="running"))
    if not objects:  # archived: Git has no job
        return None
    watched = options.definition.watched(objects)
    if watched is None:
        return None
    return with_job(watched, pending.job, objects, pending.source)._replace(target=options.target)


def emitted(obj: dict, comment: str, env: str, placement: Placement) -> RenderedObject:
    """An object as the run carries it: its document (opened by `comment`), where it goes, its
    sort key and the sha256 of its bytes."""
    text = kept_document(obj, comment, GENERATED)
    return _carried(obj, text, text.encode("utf-8"), env, placement)


def _carried(obj: dict, text: str, data: bytes, env: str, placement: Placement) -> RenderedObject:
    """emitted's, of a document written already (`data`: its UTF-8 bytes)."""
    facts = kind_facts(obj["apiVersion"], obj["kind"])
    return RenderedObject(sort_key(obj, APPLIED_FIRST), placement.path, text, env, placement.running_workers,
                          placement.root, None, hashlib.sha256(data).digest(), placement.admitted,
                          facts is not None and facts.cluster_scoped)


def placed_object(obj: dict, options: Options, job_name: str, beside_steps: bool = False) -> Placement:
    """Where an object of the job `job_name` goes (its path, and its kustomize root under the
    flux profile when its target applies in steps, or, `beside_steps`, when the target applies
    none where another target of the environment does: a folder named after the target, which a
    Kustomization of its own applies), and whether the running job scales it itself."""
    target = options.definition
    path, root, flux = object_path(obj), "", target.flux
    if options.gitops == "flux" and flux is not None:
        root, path = step_placement(obj, path, flux.step_of(obj), job_name if flux.per_job else None)
    elif options.gitops == "flux" and beside_steps:
        root, path = step_placement(obj, path, target.name, None)
    return Placement(path, root, target.scales_itself(obj), _admitted(obj) if options.gitops == "argocd" else None)


def flux_layouts(env: Environment) -> tuple[FluxSteps, ...]:
    """The Flux steps of the environment's targets that apply their objects in steps (its own
    target's and its rules'), each once, in order."""
    return tuple(dict.fromkeys(o.definition.flux for o in env.all_options if o.definition.flux is not None))


def stepped(env: Environment) -> bool:
    """Whether the environment is under flux and a target of it applies its objects in steps (the
    objects of the targets that apply none then go to a folder of their own: placed_object). The
    profile is every target's of the environment (a target rule's options differ in their target
    alone), and is looked at first: most environments are not under flux."""
    return env.options is not None and env.options.gitops == "flux" and bool(flux_layouts(env))


def _admitted(obj: dict) -> Admitted | None:
    facts = kind_facts(obj["apiVersion"], obj["kind"])
    if facts is None or facts.admission is None:
        return None
    return Admitted(facts.group, facts.kind, ignored_paths(facts.admission))
