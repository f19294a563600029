"""The table of targets (name -> Target), and what is asked of whichever target an
environment renders with: its objects, and its checks; and the table of the kinds of object
any of them writes (Kubernetes' own and the targets'), which diff and validate ask."""

from __future__ import annotations

from dataclasses import replace
from functools import reduce
from operator import add

from mpigen.compile.reserved import RESERVED as COMPILED
from mpigen.compile.mpijob import MPIJob
from mpigen.errors import Diagnostic, Mark
from mpigen.formats.blueprint import Blueprint
from mpigen.load.document import Document
from mpigen.render.checks import RESERVED as ADDED, profile_checks
from mpigen.render.admission import reapplied_safely
from mpigen.render.core_kinds import KUBERNETES
from mpigen.render.effective import effective_pods
from mpigen.render.jobset.target import JOBSET
from mpigen.render.kinds import Kind, group_of
from mpigen.render.mpijob.target import MPIJOB
from mpigen.render.pod_checks import pod_checks
from mpigen.render.static.target import STATIC
from mpigen.render.trainjob.target import TRAINJOB
from mpigen.render.target import Lifecycle, Options
from mpigen.validate.reserved import Reserved

TARGETS = {target.name: target for target in (STATIC, MPIJOB, JOBSET, TRAINJOB)}  # the first is the default
# What a blueprint may not name: what any target writes into the pods (a blueprint renders
# under every target, and its file is validated once whatever each environment's target),
# and what compile and the shared additions write.
RESERVED = reduce(add, (*(target.reserved for target in TARGETS.values()), COMPILED, ADDED), Reserved())
# The custom resources other objects need first, whichever target renders them (install order).
APPLIED_FIRST = tuple(kind for target in TARGETS.values() for kind in target.applied_first)
# What `mpigen import` reads, for loading to tell (mpigen.load.blueprints.Importable).
IMPORTABLE = {t.importer.kind: (t.importer.group, t.importer.article) for t in TARGETS.values() if t.importer}


def render_job(job: MPIJob, options: Options, lifecycle: Lifecycle = Lifecycle()) -> list[dict]:
    """The objects of one job under the environment's target, those Kueue writes into made
    safe to re-apply under the GitOps profile (mpigen.render.admission)."""
    if options.target not in TARGETS:
        raise ValueError(f"unknown target {options.target!r}")
    if lifecycle.state == "archived":
        return []  # nothing in Git: the controller prunes the job's objects
    objects = TARGETS[options.target].render(job, with_own_defaults(options), lifecycle)
    if options.gitops != "none":
        for obj in objects:
            facts = kind_facts(obj["apiVersion"], obj["kind"])
            if facts is not None and facts.admission is not None:
                reapplied_safely(obj, facts.admission, options.gitops)
    return objects


def oversized(objects: list[dict]) -> list[str]:
    """Why the API server would refuse each object whose kind has a size limit (the table of
    kinds' `size` fact) that the object is over; one pass over what it counts."""
    problems = []
    for obj in objects:
        facts = kind_facts(obj["apiVersion"], obj["kind"])
        if facts is None or facts.size is None:
            continue
        size = facts.size(obj)
        if size > facts.size_limit:
            problems.append(f"the {obj['kind']} {obj['metadata']['name']} would hold {size:,} bytes, over the API "
                            f"server's limit of {facts.size_limit:,} bytes for its kind, and the cluster would refuse "
                            "it; lower spec.workers (every worker is a line of its hostfile) or shorten the job's name")
    return problems


def target_checks(doc: Document, blueprint: Blueprint, job: MPIJob, options: Options) -> list[Diagnostic]:
    """What the environment's GitOps profile and target cannot render, and what no target's
    pods can run; the pods judged as they will run: the compiled job's (after podTemplatePatch)."""
    target, pods = TARGETS[options.target], effective_pods(doc, job)
    return (profile_checks(doc, blueprint, options.gitops) + pod_checks(doc, pods)
            + target.checks(doc, blueprint, with_own_defaults(options), pods))


def expected_objects(doc: Document, blueprint: Blueprint, options: Options) -> list[tuple[dict, Mark]]:
    """The objects the job's output references that the cluster must have (Target.expects)."""
    return TARGETS[options.target].expects(doc, blueprint, with_own_defaults(options))


def with_own_defaults(options: Options) -> Options:
    """The options, with its target's own options at their defaults where none are given."""
    if options.own is not None:
        return options
    return replace(options, own=TARGETS[options.target].options.build({}))


# Every kind a render may hold, by (API group, kind): Kubernetes' own and each target's.
KINDS = {(kind.group, kind.kind): kind for kind in (*KUBERNETES, *(k for t in TARGETS.values() for k in t.kinds))}


def kind_facts(api_version: str, kind: str) -> Kind | None:
    """What mpigen knows of the kind of an object (mpigen.render.kinds); None for a kind it
    never renders."""
    return KINDS.get((group_of(api_version), kind))
