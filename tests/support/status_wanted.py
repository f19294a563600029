"""A job as Git says it, for the tests of `mpigen status`: a blueprint rendered through the
real stages (load, validate, compile, render, as tests.support.rendering does), and its
Wanted made as the pipeline makes what its alerts watch (mpigen.pipeline.step `_watched`: the
target's `watched` of the rendered objects, then mpigen.render.watched.with_job).

A queued job that is `completed` renders none of its objects (mpigen.render.kueue): its
Watched is the one of its `running` render, at state `completed`, with no objects."""

from __future__ import annotations

from dataclasses import dataclass

from mpigen.compile.blueprint import compile_blueprint
from mpigen.load.parser import parse
from mpigen.render.mpijob.options import MpiJobOptions
from mpigen.render.target import Lifecycle, Options
from mpigen.render.targets import RESERVED, TARGETS, render_job
from mpigen.render.watched import with_job
from mpigen.status.model import ObjectRef, Wanted
from mpigen.validate.document import validate_document
from tests.support.blueprints import blueprint_yaml

JOB, NAMESPACE, QUEUE = "train", "ml", "team-gpus"
SPEC = "image: example.com/train:1\nworkers: 2\ngpusPerWorker: 4\ncommand: [python, train.py]\n"


@dataclass(frozen=True)
class Rendered:
    wanted: Wanted
    objects: list[dict]  # the objects the render gives (none for a queued job that is completed)


def blueprint(state: str, queue: bool, run: str | None) -> str:
    spec = SPEC + f"state: {state}\n" + (f"scheduling:\n  queue: {QUEUE}\n" if queue else "")
    return blueprint_yaml(JOB, metadata=f"namespace: {NAMESPACE}\n", spec=spec + (f"run: {run}\n" if run else ""))


def render(target: str, state: str = "running", queue: bool = False, gitops: str = "none",
           run: str | None = None, mpijob_api: str | None = None) -> Rendered:
    """The job rendered under `target` (the mpijob target's MPIJob under `mpijob_api`, default
    kubeflow.org/v2beta1), and its Wanted."""
    own = MpiJobOptions(api=mpijob_api) if mpijob_api else None
    objects, job = _render(blueprint(state, queue, run), target, gitops, state, run, own)
    watched_from = objects or _render(blueprint("running", queue, run), target, gitops, "running", run, own)[0]
    watched = TARGETS[target].watched(watched_from)
    watched = with_job(watched, job, watched_from, "blueprints/train.yaml")._replace(state=state)
    refs = tuple(ObjectRef(o["apiVersion"], o["kind"], o["metadata"]["name"]) for o in objects)
    return Rendered(Wanted("prod", target, watched, refs), objects)


def _render(text: str, target: str, gitops: str, state: str, run: str | None, own=None):
    doc, = parse(text, "blueprints/train.yaml")
    validated, diagnostics = validate_document(doc, RESERVED)
    assert validated is not None, [d.message for d in diagnostics]
    job = compile_blueprint(validated)
    lifecycle = Lifecycle(state, validated.spec.run, validated.spec.runPolicy.ttlSecondsAfterFinished)
    return render_job(job, Options(target=target, gitops=gitops, own=own), lifecycle), job
