"""The value rules of the API server's pod template validation that reach below what
mpigen.check.pod_templates judges: each rule module reads one role's compiled pod template
(after podTemplatePatch and overlays) and says what Kubernetes v1.30
pkg/apis/core/validation/validation.go refuses, with the path in the template; this module
reports each problem once, at the blueprint line that wrote the value (the role's
podTemplatePatch, or the blueprint's own field: spec.placement.<role>.affinity,
metadata.annotations), and only where the blueprint wrote it:
- the MPI container's probes and lifecycle hooks (mpigen.check.probes: validateProbe,
  validateLivenessProbe, validateReadinessProbe, validateStartupProbe, validateLifecycle);
- dnsConfig and dnsPolicy (mpigen.check.dns_config: validatePodDNSConfig);
- topologySpreadConstraints (mpigen.check.topology_spread: validateTopologySpreadConstraints);
- affinity (mpigen.check.affinity: validateAffinity);
- the template's annotations (mpigen.check.template_annotations: ValidatePodSpecificAnnotations);
- the pod spec's names and small values (mpigen.check.pod_spec_names: ValidatePodSpec's
  nodeName, hostname, subdomain, hostAliases, runtimeClassName, preemptionPolicy,
  readinessGates, schedulingGates, activeDeadlineSeconds)."""

from __future__ import annotations

from mpigen.check.affinity import affinity_problems
from mpigen.check.dns_config import dns_problems
from mpigen.check.effective import PODS_OF_ROLE, ROLE_PATHS
from mpigen.check.pod_spec_names import name_problems
from mpigen.check.probes import lifecycle_problems, probe_problems
from mpigen.check.selectors import NEVER_SCHEDULED
from mpigen.check.template_annotations import annotation_problems
from mpigen.check.topology_spread import topology_problems
from mpigen.compile.mpijob import MPIJob
from mpigen.errors import Diagnostic, error
from mpigen.load.document import Document, Loc, field_path

RULES = (probe_problems, lifecycle_problems, dns_problems, topology_problems, affinity_problems, annotation_problems,
         name_problems)


def pod_spec_checks(doc: Document, job: MPIJob) -> list[Diagnostic]:
    """Each problem at the line that wrote the value, once however many roles share it."""
    found: dict[tuple[Loc, str], list[str]] = {}
    for role, name in ROLE_PATHS.items():
        if not _writes_any(doc, name):
            continue  # most roles: every value these rules read is mpigen's own
        template = job.spec.mpiReplicaSpecs[role].template
        for rule in RULES:
            for where, path, message in rule(template):
                loc = written_within(doc, _bases(name, where), path)
                if loc is not None:
                    found.setdefault((loc, message), []).append(PODS_OF_ROLE[name])
    return [error(doc.value_mark(loc), f"{field_path(loc)}: {message}; " + (
        f"the pods of {' and '.join(pods)} would never be scheduled" if NEVER_SCHEDULED in message else
        f"the API server refuses the pod template of {' and '.join(pods)}, whose pods would never be created"))
            for (loc, message), pods in found.items()]


def _writes_any(doc: Document, role: str) -> bool:
    """Whether the blueprint writes anything these rules may report for the role: its patch,
    its placement's affinity, or annotations (the places _bases names, the blueprint's
    metadata only for its annotations, the one part of it the rules read)."""
    return (doc.get(("spec", "podTemplatePatch", role)) is not None
            or doc.get(("spec", "placement", role, "affinity")) is not None
            or bool(doc.get(("metadata", "annotations"))))


def _bases(role: str, where: str) -> tuple[Loc, ...]:
    """Where the blueprint writes a part of the role's template: its patch, then its own field."""
    patch: Loc = ("spec", "podTemplatePatch", role)
    if where == "container":
        return (patch + ("container",),)
    if where == "metadata":
        return (patch + ("metadata",), ("metadata",))
    return (patch + ("pod",), ("spec", "placement", role))


def written_within(doc: Document, bases: tuple[Loc, ...], path: tuple) -> Loc | None:
    """The deepest location under one of `bases` (the first that writes it) that the blueprint
    writes on the way to `path`; None when none writes even the path's first key."""
    for depth in range(len(path), 0, -1):
        for base in bases:
            if doc.get(base + path[:depth]) is not None:
                return base + path[:depth]
    return None
