"""The table of targets (name -> Target), and what is asked of whichever target an
environment renders with: its objects, and its checks; and the table of the kinds of object
any of them writes (Kubernetes' own and the targets'), which diff and validate ask."""

from __future__ import annotations

from dataclasses import replace
from functools import reduce
from operator import add
from typing import NamedTuple

from mpigen.check.shared_rules import RESERVED as ADDED
from mpigen.check.stage import TargetRules, check_job
from mpigen.compile.mpijob import MPIJob
from mpigen.compile.reserved import RESERVED as COMPILED
from mpigen.errors import Diagnostic, Mark
from mpigen.formats.blueprint import Blueprint
from mpigen.kube.labels import KUEUE_QUEUE_LABEL
from mpigen.kube.sizes import MAX_ANNOTATIONS, MAX_ETCD_REQUEST, largest_annotations, stored_size
from mpigen.load.document import Document
from mpigen.render.admission import reapplied_safely
from mpigen.render.core_kinds import KUBERNETES
from mpigen.render.jobset.target import JOBSET
from mpigen.render.kinds import Find, Kind, group_of
from mpigen.render.mpijob.target import MPIJOB
from mpigen.render.queued import hold, lifecycle_checks, renders_nothing
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
    safe to re-apply under the GitOps profile (mpigen.render.admission)."""
    if options.target not in TARGETS:
        raise ValueError(f"unknown target {options.target!r}")
    if renders_nothing(job, lifecycle):
        return []  # nothing in Git: the controller prunes the job's objects (mpigen.render.queued)
    objects = TARGETS[options.target].render(job, with_own_defaults(options), lifecycle)
    if lifecycle.state == "held":
        hold(objects)
    if options.gitops != "none":
        for obj in objects:
            facts = kind_facts(obj["apiVersion"], obj["kind"])
            if facts is not None and facts.admission is not None:
                reapplied_safely(obj, facts.admission, options.gitops)
    return objects


class TooLarge(NamedTuple):
    """An object the cluster would refuse for its size: the blueprint field that makes it so
    ("" where no one field does: the caller names the largest), why, and the limit it is over."""

    field: str
    problem: str
    limit: str = "kind"  # "kind" (its kind's own), "annotations" or "etcd"


def oversized(objects: list[dict]) -> list[TooLarge]:
    """Why the cluster would refuse each object of a render, or one its controller creates from
    one (the table of kinds' `creates` fact), for its size: over a limit of its kind's own (its
    `size_limit` fact), or over what etcd stores in one request (mpigen.kube.sizes). One pass over
    what each counts."""
    find = finder(objects)
    problems = []
    for obj in objects:
        problems += _too_large(obj, "", "")
        facts = kind_facts(obj["apiVersion"], obj["kind"])
        if facts is not None and facts.creates is not None:
            creator = f"the {obj['kind']} {obj['metadata']['name']}"
            for made in facts.creates(obj, find):
                problems += _too_large(made, f" that the controller of {creator} creates",
                                       f"; the controller fails to create it, and {creator} never starts")
    return problems


def _too_large(obj: dict, made_by: str, consequence: str) -> list[TooLarge]:
    facts = kind_facts(obj["apiVersion"], obj["kind"])
    named = f"the {obj['kind']} {obj['metadata']['name']}{made_by}"
    limit = facts.size_limit if facts is not None else None
    if limit is not None and (size := limit.size(obj)) > limit.limit:
        return [TooLarge(limit.field, f"{named} would hold {size:,} bytes, over the API server's limit of "
                                      f"{limit.limit:,} bytes for its kind, and the cluster would refuse it"
                                      f"{consequence}; {limit.advice}")]
    # One pass in C that most objects fit in: their JSON holds every annotation whole, and is
    # never less than their strings.
    json_size = stored_size(obj, as_json=True)
    if json_size > MAX_ANNOTATIONS and (size := largest_annotations(obj)) > MAX_ANNOTATIONS:
        return [TooLarge("", f"{named} would carry {size:,} bytes of annotations (keys and values, on the object "
                             f"or a pod template), over the API server's limit of {MAX_ANNOTATIONS:,} bytes, and the "
                             f"cluster would refuse it{consequence}", "annotations")]
    custom = (group_of(obj["apiVersion"]), obj["kind"]) in CUSTOM_RESOURCES
    size = json_size
    if size > MAX_ETCD_REQUEST and not custom:
        size = stored_size(obj, as_json=False)
    if size > MAX_ETCD_REQUEST:
        counted = "its JSON, as a custom resource is stored" if custom else "its strings alone"
        return [TooLarge("", f"{named} would take at least {size:,} bytes to store ({counted}), over etcd's "
                             f"request limit of {MAX_ETCD_REQUEST:,} bytes (its --max-request-bytes default), and "
                             f"the API server would fail to create it (\"etcdserver: request is too large\")"
                             f"{consequence}", "etcd")]
    return []


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
    target, own = TARGETS[options.target], with_own_defaults(options)
    return TargetRules(lambda doc, blueprint: lifecycle_checks(doc, blueprint, options.gitops),
                       lambda doc, blueprint, pods: target.checks(doc, blueprint, own, pods))


def target_checks(doc: Document, blueprint: Blueprint, job: MPIJob, options: Options) -> list[Diagnostic]:
    """The check stage of one job under the environment's profile and target (mpigen.check.stage)."""
    return check_job(doc, blueprint, job, options.gitops, target_rules(options))


def expected_objects(doc: Document, blueprint: Blueprint, options: Options) -> list[tuple[dict, Mark]]:
    """The objects the job's output references that the cluster must have (Target.expects)."""
    return TARGETS[options.target].expects(doc, blueprint, with_own_defaults(options))


def with_own_defaults(options: Options) -> Options:
    """The options, with its target's own options at their defaults where none are given."""
    if options.own is not None:
        return options
    return replace(options, own=TARGETS[options.target].options.build({}))




def kind_facts(api_version: str, kind: str) -> Kind | None:
    """What mpigen knows of the kind of an object (mpigen.render.kinds); None for a kind it
    never renders."""
    return KINDS.get((group_of(api_version), kind))
