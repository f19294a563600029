"""A fifth target, for the test that a target is one package plus one line in the table: per
job, one batch/v1 Job whose pods are the workers (the kind of target a Volcano or
plain-Job backend would be), with one check of its own and one flag of its own."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from mpigen.check.effective import EffectivePods
from mpigen.compile.mpijob import WORKER, MPIJob
from mpigen.errors import Diagnostic, error
from mpigen.formats.blueprint import Blueprint
from mpigen.load.document import Document
from mpigen.render.target import Flag, Lifecycle, Options, Setting, Target, TargetOptions
from mpigen.validate.reserved import Reserved

NAME = "toy"
MAX_WORKERS = 8


def render(job: MPIJob, options: Options, lifecycle: Lifecycle) -> list[dict]:
    template = copy.deepcopy(job.spec.mpiReplicaSpecs[WORKER].template)
    template.setdefault("spec", {})["restartPolicy"] = "Never"
    labels = {**job.metadata.labels, "toy.example.com/queue": options.own["queue"]}
    meta = {"name": f"{job.metadata.name}-toy", "namespace": job.metadata.namespace, "labels": labels}
    spec = {"completions": job.workers, "parallelism": job.workers, "template": template}
    return [{"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}]


def checks(doc: Document, blueprint: Blueprint, options: Options, pods: EffectivePods) -> list[Diagnostic]:
    if blueprint.spec.workers <= MAX_WORKERS:
        return []
    return [error(doc.value_mark(("spec", "workers")),
                  f"spec.workers: the toy target runs at most {MAX_WORKERS} workers; use fewer")]


def build(given: Mapping[str, Any]) -> dict:
    return {"queue": given.get("queue") or "default"}


TOY = Target(name=NAME, render=render, checks=checks, reserved=Reserved(),
             options=TargetOptions("one Job per job (a toy)",
                                   (Setting("queue", Flag("--toy-queue", help="with --target toy: the queue")),),
                                   build))
