"""The table of targets (name -> Target), and what is asked of whichever target an
environment renders with: its objects, and its checks; and the table of the kinds of object
any of them writes (Kubernetes' own and the targets'), which diff and validate ask."""

from __future__ import annotations

from dataclasses import replace
from functools import reduce
from operator import add

from mpigen.check.shared_rules import RESERVED as ADDED
from mpigen.check.stage import TargetRules, check_job
from mpigen.compile.mpijob import MPIJob
from mpigen.compile.reserved import RESERVED as COMPILED
from mpigen.errors import Diagnostic, Mark
from mpigen.formats.blueprint import Blueprint
from mpigen.kube.labels import KUEUE_QUEUE_LABEL
from mpigen.load.document import Document
from mpigen.render.kueue import hold, lifecycle_checks, reapplied_safely, renders_nothing
from mpigen.render.jobset.target import JOBSET
from mpigen.render.kinds import KUBERNETES, Find, Kind, group_of
from mpigen.render.mpijob.target import MPIJOB
from mpigen.render.parts.scripts import template
from mpigen.render.static.target import STATIC
from mpigen.render.target import Lifecycle, Options
from mpigen.render.trainjob.target import TRAINJOB
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
# Every kind a render may hold, by (API group, kind): Kubernetes' own and each target's.
KINDS = {(kind.group, kind.kind): kind for kind in (*KUBERNETES, *(k for t in TARGETS.values() for k in t.kinds))}
# The targets' own kinds are custom resources, which the API server stores as JSON.
CUSTOM_RESOURCES = frozenset((k.group, k.kind) for t in TARGETS.values() for k in t.kinds)


def render_job(job: MPIJob, options: Options, lifecycle: Lifecycle = Lifecycle()) -> list[dict]:
    """The objects of one job under the environment's target, those Kueue writes into made
    safe to re-apply under the GitOps profile (mpigen.render.kueue)."""
    options = resolved(options)
    if renders_nothing(job, lifecycle):
        return []  # nothing in Git: the controller prunes the job's objects (mpigen.render.kueue)
    objects = options.definition.render(job, options, lifecycle)
    if lifecycle.state == "held":
        hold(objects)
    if options.gitops != "none":
        for obj in objects:
            facts = kind_facts(obj["apiVersion"], obj["kind"])
            if facts is not None and facts.admission is not None:
                reapplied_safely(obj, facts.admission, options.gitops)
    return objects


def finder(objects: list[dict]) -> Find:
    """The lookup of an object of the render by (API group, kind, namespace, name)."""
    index = {(group_of(o["apiVersion"]), o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]): o
             for o in objects}
    return lambda group, kind, namespace, name: index.get((group, kind, namespace, name)) or index.get(
        (group, kind, "", name))


def kueue_pod_sets(objects: list[dict]) -> list[tuple[dict, int]]:
    """Each object of a render that Kueue makes a Workload of (it carries the queue label and
    its kind's `pod_sets` fact knows), with the pod sets of that Workload."""
    find = finder(objects)
    out = []
    for obj in objects:
        facts = kind_facts(obj["apiVersion"], obj["kind"])
        if facts is None or facts.pod_sets is None or KUEUE_QUEUE_LABEL not in obj["metadata"].get("labels", {}):
            continue
        count = facts.pod_sets(obj, find)
        if count is not None:
            out.append((obj, count))
    return out


def target_rules(options: Options) -> TargetRules:
    """What the environment's target and profile judge of a job in the check stage
    (mpigen.check.stage), beside the rules every target shares."""
    options = resolved(options)
    return TargetRules(lambda doc, blueprint: lifecycle_checks(doc, blueprint, options.gitops),
                       lambda doc, blueprint, pods: options.definition.checks(doc, blueprint, options, pods),
                       options.definition.main_container)


def target_checks(doc: Document, blueprint: Blueprint, job: MPIJob, options: Options) -> list[Diagnostic]:
    """The check stage of one job under the environment's profile and target (mpigen.check.stage)."""
    return check_job(doc, blueprint, job, options.gitops, target_rules(options))


def expected_objects(doc: Document, blueprint: Blueprint, options: Options) -> list[tuple[dict, Mark]]:
    """The objects the job's output references that the cluster must have (Target.expects)."""
    options = resolved(options)
    return options.definition.expects(doc, blueprint, options)


def named_objects(doc: Document, blueprint: Blueprint, options: Options) -> list[tuple[dict, str, Mark]]:
    """The objects the job writes whose name a blueprint field other than metadata.name gives,
    with that field (Target.names)."""
    options = resolved(options)
    return options.definition.names(doc, blueprint, options)


def resolved(options: Options) -> Options:
    """The options with their Target (`definition`), and its own options at their defaults where
    none are given: what the run's settings carry (mpigen.pipeline.settings.run_settings), so that
    nothing after looks a target up by its name. Options that are resolved come back as they are."""
    definition = options.definition
    if definition is None or definition.name != options.target:
        if options.target not in TARGETS:
            raise ValueError(f"unknown target {options.target!r}")
        definition = TARGETS[options.target]
    if definition is options.definition and options.own is not None:
        return options
    return replace(options, definition=definition,
                   own=options.own if options.own is not None else definition.options.build({}))




def compile_shared_templates() -> None:
    """Compile the templates most jobs render (the operator's hostfile and kubexec.sh), so that
    processes forked after this share them."""
    for name in ("hostfile.j2", "kubexec.sh.j2"):
        template(name)


def kind_facts(api_version: str, kind: str) -> Kind | None:
    """What mpigen knows of the kind of an object (mpigen.render.kinds); None for a kind it
    never renders."""
    return KINDS.get((group_of(api_version), kind))
