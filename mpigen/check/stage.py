"""The check stage, between compile and render: one compiled job judged on its pods as they
will run (mpigen.check.effective, after podTemplatePatch and overlays), in the order the
rules report: what the environment's GitOps profile cannot render (mpigen.check.shared_rules),
what the job's life in Git cannot be, what no target's pods can run (mpigen.check.pod_checks)
and the API server refuses of their templates (mpigen.check.pod_templates, and below them
mpigen.check.pod_spec_rules) and of the MPI container's ports and security context
(mpigen.check.container_rules),
and what the target cannot render. The second and the last are the render's to say (the
Kueue lifecycle, mpigen.render.kueue; each target's checks, mpigen.render.<target>.checks):
they come in as TargetRules (mpigen.render.targets.target_rules), as check imports no render."""

from __future__ import annotations

from typing import Callable, NamedTuple

from mpigen.check.container_rules import container_rules
from mpigen.check.effective import EffectivePods, effective_pods
from mpigen.check.pod_checks import pod_checks
from mpigen.check.pod_spec_rules import pod_spec_checks
from mpigen.check.pod_templates import template_checks
from mpigen.check.shared_rules import profile_checks
from mpigen.compile.mpijob import MPIJob
from mpigen.errors import Diagnostic
from mpigen.formats.blueprint import Blueprint
from mpigen.load.document import Document


class TargetRules(NamedTuple):
    """What the environment's target and profile judge of a job, beside the shared rules."""

    lifecycle: Callable[[Document, Blueprint], list[Diagnostic]]  # the job's state in Git
    own: Callable[[Document, Blueprint, EffectivePods], list[Diagnostic]]  # the target's own checks
    main_container: str | None = None  # the name the target gives the MPI container, where it renames it


def check_job(doc: Document, blueprint: Blueprint, job: MPIJob, gitops: str, rules: TargetRules) -> list[Diagnostic]:
    """Every problem of one compiled job under the environment's profile (`gitops`) and target
    (`rules`), each at the line of `doc` (the blueprint after overlays) that set it."""
    pods = effective_pods(doc, job)
    return (profile_checks(doc, blueprint, gitops) + rules.lifecycle(doc, blueprint)
            + pod_checks(doc, pods) + [d for pod in pods for d in container_rules(doc, pod)]
            + template_checks(doc, job, rules.main_container) + pod_spec_checks(doc, job) + rules.own(doc, blueprint, pods))
