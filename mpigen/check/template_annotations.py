"""What the API server refuses of a pod template's annotations (metadata.annotations reach
every pod template, podTemplatePatch.<role>.metadata.annotations one role's), judged on the
compiled template: Kubernetes v1.30 pkg/apis/core/validation/validation.go
ValidatePodTemplateSpec -> ValidatePodSpecificAnnotations:
- controller.kubernetes.io/pod-deletion-cost (core.PodDeletionCost) must parse as an int32
  (pkg/apis/core/helper/helpers.go GetDeletionCostFromPodAnnotations: validFirstDigit, no "+"
  and no leading zero, then strconv.ParseInt(value, 10, 32)): "must be a 32bit integer";
- kubernetes.io/config.mirror (core.MirrorPodAnnotationKey), the kubelet's mark of a static
  pod's mirror, "must set spec.nodeName if mirror pod annotation is set": a template that sets
  no nodeName is refused (the seccomp and AppArmor annotations: mpigen.check.pod_templates,
  mpigen.render.refusals)."""

from __future__ import annotations

import re

Problem = tuple[str, tuple, str]
DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
MIRROR = "kubernetes.io/config.mirror"
_INT = re.compile(r"^(0|-[0-9]+|[1-9][0-9]*)$")  # validFirstDigit, then ParseInt's digits
INT32 = (-2**31, 2**31 - 1)


def deletion_cost_ok(value: object) -> bool:
    """GetDeletionCostFromPodAnnotations takes the value."""
    return isinstance(value, str) and bool(_INT.fullmatch(value)) and INT32[0] <= int(value) <= INT32[1]


def annotation_problems(template: dict) -> list[Problem]:
    """Each problem of the template's annotations, with its path in the template's metadata."""
    annotations = template.get("metadata", {}).get("annotations") or {}
    out: list[Problem] = []
    if DELETION_COST in annotations and not deletion_cost_ok(annotations[DELETION_COST]):
        out.append(("metadata", ("annotations", DELETION_COST),
                    f"{annotations[DELETION_COST]!r} \"must be a 32bit integer\" (ValidatePodSpecificAnnotations: "
                    "decimal digits, an optional '-', no '+' and no leading zero, from -2147483648 to 2147483647)"))
    if MIRROR in annotations and not template.get("spec", {}).get("nodeName"):
        out.append(("metadata", ("annotations", MIRROR),
                    f"{MIRROR} marks the kubelet's mirror of a static pod, and a pod template with it \"must set "
                    "spec.nodeName if mirror pod annotation is set\" (ValidatePodSpecificAnnotations); remove it"))
    return out
